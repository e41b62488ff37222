package org.mpfl.engine.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.mpfl.engine.json.Json;

/**
 * Runs, their events and stored workflows in a relational database through JDBC: an embedded H2 file
 * database under the data directory by default, any JDBC URL by configuration (e.g. an H2 server,
 * {@code jdbc:h2:tcp://db/mpfl}). Each run is kept as its latest JSON detail plus its event log, so
 * an engine restart loses no run record; runs that were still going when the engine died are
 * re-attached to by the next engine ({@code org.mpfl.engine.run.Reattachment}, with the domain
 * credentials of {@code live_domains}), those still starting are marked FAILED "engine restarted".
 *
 * <p>One connection, used under a lock: the engine writes little (state changes, events) and H2
 * embedded is fastest that way.
 */
public final class RunStore implements AutoCloseable {
    private final Connection connection;

    private RunStore(Connection connection) throws SQLException {
        this.connection = connection;
        createSchema();
    }

    /** Opens (creating if needed) the embedded H2 database {@code DIR/engine.mv.db}. */
    public static RunStore openEmbedded(Path dataDir) throws IOException, SQLException {
        Files.createDirectories(dataDir);
        return open("jdbc:h2:file:" + dataDir.toAbsolutePath().resolve("engine") + ";DB_CLOSE_ON_EXIT=FALSE", "sa", "");
    }

    /** Opens a database by JDBC URL. */
    public static RunStore open(String jdbcUrl, String user, String password) throws SQLException {
        try {
            Class.forName("org.h2.Driver");
        } catch (ClassNotFoundException e) {
            // another driver may be on the class path; DriverManager will say if none fits
        }
        return new RunStore(DriverManager.getConnection(jdbcUrl, user, password));
    }

    private void createSchema() throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS runs (id VARCHAR(64) PRIMARY KEY, workflow VARCHAR(256), "
                    + "state VARCHAR(16) NOT NULL, created_ms BIGINT NOT NULL, detail CLOB NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS run_events (id BIGINT AUTO_INCREMENT PRIMARY KEY, run_id VARCHAR(64) NOT NULL, "
                    + "rank_no INT, time_ms BIGINT NOT NULL, type VARCHAR(16) NOT NULL, body CLOB NOT NULL)");
            s.execute("CREATE INDEX IF NOT EXISTS run_events_by_run ON run_events (run_id, id)");
            s.execute("CREATE TABLE IF NOT EXISTS workflows (name VARCHAR(256) PRIMARY KEY, updated_ms BIGINT NOT NULL, "
                    + "document CLOB, plan CLOB)");
            // credentials of domains still going, so an engine that restarts can abort what it lost;
            // deleted as soon as the run ends
            s.execute("CREATE TABLE IF NOT EXISTS live_domains (run_id VARCHAR(64) PRIMARY KEY, domain_id VARCHAR(128) NOT NULL, "
                    + "token VARCHAR(128) NOT NULL, service_urls CLOB NOT NULL)");
            // host credentials: the verifier (SHA-256) of each secret and the key the engine calls that
            // host with, never the secret itself
            s.execute("CREATE TABLE IF NOT EXISTS host_credentials (id VARCHAR(64) PRIMARY KEY, host_id VARCHAR(128) NOT NULL, "
                    + "verifier VARCHAR(64) NOT NULL, engine_key VARCHAR(64) NOT NULL, created_ms BIGINT NOT NULL)");
        }
    }

    /** Inserts or replaces a run's record. */
    public synchronized void saveRun(String id, String workflow, String state, long createdMs, Map<String, Object> detail) {
        try (PreparedStatement p = connection.prepareStatement(
                "MERGE INTO runs (id, workflow, state, created_ms, detail) KEY (id) VALUES (?, ?, ?, ?, ?)")) {
            p.setString(1, id);
            p.setString(2, workflow);
            p.setString(3, state);
            p.setLong(4, createdMs);
            p.setString(5, Json.write(detail));
            p.executeUpdate();
        } catch (SQLException e) {
            throw new StoreException("cannot save run " + id, e);
        }
    }

    /** Appends an event to a run's log; returns its id (increasing; the SSE event id). */
    public synchronized long appendEvent(String runId, Integer rank, long timeMs, String type, Object body) {
        try (PreparedStatement p = connection.prepareStatement(
                "INSERT INTO run_events (run_id, rank_no, time_ms, type, body) VALUES (?, ?, ?, ?, ?)",
                Statement.RETURN_GENERATED_KEYS)) {
            p.setString(1, runId);
            if (rank == null) {
                p.setNull(2, java.sql.Types.INTEGER);
            } else {
                p.setInt(2, rank);
            }
            p.setLong(3, timeMs);
            p.setString(4, type);
            p.setString(5, Json.write(body));
            p.executeUpdate();
            try (ResultSet keys = p.getGeneratedKeys()) {
                return keys.next() ? keys.getLong(1) : -1;
            }
        } catch (SQLException e) {
            throw new StoreException("cannot store an event of run " + runId, e);
        }
    }

    /** A stored event. */
    public record StoredEvent(long id, String runId, Integer rank, long timeMs, String type, JsonNode body) {
    }

    /** Events of a run with id above {@code afterId}, oldest first, at most {@code limit}. */
    public synchronized List<StoredEvent> events(String runId, long afterId, int limit) {
        List<StoredEvent> out = new ArrayList<>();
        try (PreparedStatement p = connection.prepareStatement(
                "SELECT id, rank_no, time_ms, type, body FROM run_events WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?")) {
            p.setString(1, runId);
            p.setLong(2, afterId);
            p.setInt(3, limit);
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) {
                    int rank = r.getInt(2);
                    out.add(new StoredEvent(r.getLong(1), runId, r.wasNull() ? null : rank, r.getLong(3), r.getString(4),
                            Json.MAPPER.readTree(r.getString(5))));
                }
            }
        } catch (SQLException | IOException e) {
            throw new StoreException("cannot read events of run " + runId, e);
        }
        return out;
    }

    /** A run's last stored detail. */
    public synchronized Optional<JsonNode> run(String id) {
        try (PreparedStatement p = connection.prepareStatement("SELECT detail FROM runs WHERE id = ?")) {
            p.setString(1, id);
            try (ResultSet r = p.executeQuery()) {
                return r.next() ? Optional.of(Json.MAPPER.readTree(r.getString(1))) : Optional.empty();
            }
        } catch (SQLException | IOException e) {
            throw new StoreException("cannot read run " + id, e);
        }
    }

    /** Stored runs, newest first; {@code state} filters when not null. */
    public synchronized List<JsonNode> runs(String state, int limit) {
        List<JsonNode> out = new ArrayList<>();
        String sql = "SELECT detail FROM runs" + (state == null ? "" : " WHERE state = ?") + " ORDER BY created_ms DESC LIMIT ?";
        try (PreparedStatement p = connection.prepareStatement(sql)) {
            int i = 1;
            if (state != null) {
                p.setString(i++, state);
            }
            p.setInt(i, limit);
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) {
                    JsonNode d = Json.MAPPER.readTree(r.getString(1));
                    if (d instanceof ObjectNode o) {
                        // lists carry the summary only; the per-rank detail is for GET /api/runs/{id}
                        o.remove(List.of("ranks", "matrix", "params"));
                    }
                    out.add(d);
                }
            }
        } catch (SQLException | IOException e) {
            throw new StoreException("cannot list runs", e);
        }
        return out;
    }

    /**
     * Marks runs that were PENDING or RUNNING when the engine stopped as FAILED "engine restarted"
     * (their ranks may still run, but nobody watches them any more).
     *
     * @return how many runs were marked
     */
    public synchronized int failUnfinishedRuns(long nowMs) {
        return failUnfinishedRuns(nowMs, java.util.Set.of());
    }

    /**
     * Marks runs that were PENDING or RUNNING when the engine stopped as FAILED "engine restarted",
     * except those in {@code reattached} (a restarted engine carries on monitoring them).
     *
     * @return how many runs were marked
     */
    public synchronized int failUnfinishedRuns(long nowMs, java.util.Set<String> reattached) {
        List<String[]> unfinished = new ArrayList<>();
        try (Statement s = connection.createStatement();
             ResultSet r = s.executeQuery("SELECT id, detail FROM runs WHERE state IN ('PENDING', 'RUNNING')")) {
            while (r.next()) {
                if (!reattached.contains(r.getString(1))) {
                    unfinished.add(new String[] {r.getString(1), r.getString(2)});
                }
            }
        } catch (SQLException e) {
            throw new StoreException("cannot read unfinished runs", e);
        }
        for (String[] u : unfinished) {
            try {
                ObjectNode d = (ObjectNode) Json.MAPPER.readTree(u[1]);
                d.put("state", "FAILED");
                d.put("endedMs", nowMs);
                ObjectNode err = d.putObject("error");
                err.putNull("rank");
                err.putNull("location");
                err.put("message", "engine restarted");
                try (PreparedStatement p = connection.prepareStatement("UPDATE runs SET state = 'FAILED', detail = ? WHERE id = ?")) {
                    p.setString(1, Json.write(d));
                    p.setString(2, u[0]);
                    p.executeUpdate();
                }
            } catch (SQLException | IOException e) {
                throw new StoreException("cannot mark run " + u[0] + " as failed", e);
            }
        }
        return unfinished.size();
    }

    /** A domain that was live when recorded: what is needed to abort it on every service. */
    public record LiveDomain(String runId, String domainId, String token, List<String> serviceUrls) {
    }

    public synchronized void saveLiveDomain(LiveDomain d) {
        try (PreparedStatement p = connection.prepareStatement(
                "MERGE INTO live_domains (run_id, domain_id, token, service_urls) KEY (run_id) VALUES (?, ?, ?, ?)")) {
            p.setString(1, d.runId());
            p.setString(2, d.domainId());
            p.setString(3, d.token());
            p.setString(4, Json.write(d.serviceUrls()));
            p.executeUpdate();
        } catch (SQLException e) {
            throw new StoreException("cannot record the domain of run " + d.runId(), e);
        }
    }

    public synchronized void deleteLiveDomain(String runId) {
        try (PreparedStatement p = connection.prepareStatement("DELETE FROM live_domains WHERE run_id = ?")) {
            p.setString(1, runId);
            p.executeUpdate();
        } catch (SQLException e) {
            throw new StoreException("cannot forget the domain of run " + runId, e);
        }
    }

    /**
     * One host credential as stored: no secret, only its verifier and the engine's key for that host.
     *
     * @param id        credential id
     * @param hostId    the host it speaks for
     * @param verifier  SHA-256 of the secret, base64url
     * @param engineKey the key the engine authenticates to the host with
     * @param createdMs when it was issued
     */
    public record StoredCredential(String id, String hostId, String verifier, String engineKey, long createdMs) {
        @Override
        public String toString() {
            return "StoredCredential[id=" + id + ", hostId=" + hostId + "]";
        }
    }

    public synchronized void saveCredential(StoredCredential c) {
        try (PreparedStatement p = connection.prepareStatement("MERGE INTO host_credentials (id, host_id, verifier, engine_key, "
                + "created_ms) KEY (id) VALUES (?, ?, ?, ?, ?)")) {
            p.setString(1, c.id());
            p.setString(2, c.hostId());
            p.setString(3, c.verifier());
            p.setString(4, c.engineKey());
            p.setLong(5, c.createdMs());
            p.executeUpdate();
        } catch (SQLException e) {
            throw new StoreException("cannot store host credential " + c.id(), e);
        }
    }

    public synchronized void deleteCredential(String id) {
        try (PreparedStatement p = connection.prepareStatement("DELETE FROM host_credentials WHERE id = ?")) {
            p.setString(1, id);
            p.executeUpdate();
        } catch (SQLException e) {
            throw new StoreException("cannot delete host credential " + id, e);
        }
    }

    /** Every stored host credential. */
    public synchronized List<StoredCredential> credentials() {
        List<StoredCredential> out = new ArrayList<>();
        try (Statement s = connection.createStatement();
             ResultSet r = s.executeQuery("SELECT id, host_id, verifier, engine_key, created_ms FROM host_credentials")) {
            while (r.next()) {
                out.add(new StoredCredential(r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getLong(5)));
            }
        } catch (SQLException e) {
            throw new StoreException("cannot read host credentials", e);
        }
        return out;
    }

    /** Domains recorded as live (after a restart: those the previous engine left running). */
    public synchronized List<LiveDomain> liveDomains() {
        List<LiveDomain> out = new ArrayList<>();
        try (Statement s = connection.createStatement();
             ResultSet r = s.executeQuery("SELECT run_id, domain_id, token, service_urls FROM live_domains")) {
            while (r.next()) {
                List<String> urls = List.of(Json.MAPPER.readValue(r.getString(4), String[].class));
                out.add(new LiveDomain(r.getString(1), r.getString(2), r.getString(3), urls));
            }
        } catch (SQLException | IOException e) {
            throw new StoreException("cannot read live domains", e);
        }
        return out;
    }

    /** A stored workflow: its document (may be null), its plan JSON (may be null). */
    public record StoredWorkflow(String name, long updatedMs, String document, String plan) {
    }

    public synchronized void saveWorkflow(String name, String document, String plan, long nowMs) {
        try (PreparedStatement p = connection.prepareStatement(
                "MERGE INTO workflows (name, updated_ms, document, plan) KEY (name) VALUES (?, ?, ?, ?)")) {
            p.setString(1, name);
            p.setLong(2, nowMs);
            p.setString(3, document);
            p.setString(4, plan);
            p.executeUpdate();
        } catch (SQLException e) {
            throw new StoreException("cannot save workflow " + name, e);
        }
    }

    public synchronized Optional<StoredWorkflow> workflow(String name) {
        try (PreparedStatement p = connection.prepareStatement("SELECT name, updated_ms, document, plan FROM workflows WHERE name = ?")) {
            p.setString(1, name);
            try (ResultSet r = p.executeQuery()) {
                return r.next() ? Optional.of(new StoredWorkflow(r.getString(1), r.getLong(2), r.getString(3), r.getString(4)))
                        : Optional.empty();
            }
        } catch (SQLException e) {
            throw new StoreException("cannot read workflow " + name, e);
        }
    }

    public synchronized List<StoredWorkflow> workflows() {
        List<StoredWorkflow> out = new ArrayList<>();
        try (Statement s = connection.createStatement();
             ResultSet r = s.executeQuery("SELECT name, updated_ms, document, plan FROM workflows ORDER BY name")) {
            while (r.next()) {
                out.add(new StoredWorkflow(r.getString(1), r.getLong(2), r.getString(3), r.getString(4)));
            }
        } catch (SQLException e) {
            throw new StoreException("cannot list workflows", e);
        }
        return out;
    }

    @Override
    public synchronized void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new StoreException("cannot close the run store", e);
        }
    }

    /** A database failure, with what the engine was doing. */
    public static final class StoreException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public StoreException(String message, Throwable cause) {
            super(message + ": " + cause.getMessage(), cause);
        }
    }
}
