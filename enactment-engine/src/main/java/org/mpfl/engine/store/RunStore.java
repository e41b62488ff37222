package org.mpfl.engine.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.JsonNode;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.mpfl.engine.json.Json;

/**
 * Runs and their event logs (tables {@code runs} and {@code run_events}): each run's latest
 * {@link RunRecord} and the events it went through, so an engine restart loses no run record; and the
 * run queue (table {@code run_queue}), so that runs waiting for capacity wait on after a restart; and each
 * run's launch (table {@code run_launches}), so that a later engine can still restart or resume it. Works
 * on the {@link EngineDatabase}'s one connection under its lock.
 */
public final class RunStore {
    private final EngineDatabase db;

    RunStore(EngineDatabase db) {
        this.db = db;
    }

    /** Inserts or replaces a run's record. */
    public void save(RunRecord run) {
        String json = Json.write(run.detail());
        db.upsert("cannot save run " + run.id(), "UPDATE runs SET workflow = ?, state = ?, created_ms = ?, detail = ? WHERE id = ?",
                new Object[] {run.workflow(), run.state(), run.createdMs(), json, run.id()},
                "INSERT INTO runs (id, workflow, state, created_ms, detail) VALUES (?, ?, ?, ?, ?)",
                new Object[] {run.id(), run.workflow(), run.state(), run.createdMs(), json});
    }

    /**
     * A run waiting in the queue before its first start, as a restarted engine queues it again.
     *
     * @param queueTimeoutMs how long it may wait ({@code null}: the engine's default; 0: no bound)
     * @param launch         what placing it needs (process slices, deployed service names, restarts allowed)
     */
    public record QueuedRun(String runId, int priority, long createdMs, long sinceMs, boolean oversubscribe,
                            Long queueTimeoutMs, JsonNode launch) {
    }

    /** Records a run as waiting in the queue (or updates it). */
    public void saveQueued(QueuedRun q) {
        String launch = Json.write(q.launch());
        db.upsert("cannot record queued run " + q.runId(), "UPDATE run_queue SET priority = ?, created_ms = ?, since_ms = ?, "
                        + "oversubscribe = ?, queue_timeout_ms = ?, launch = ? WHERE run_id = ?",
                new Object[] {q.priority(), q.createdMs(), q.sinceMs(), q.oversubscribe(), timeoutColumn(q), launch, q.runId()},
                "INSERT INTO run_queue (run_id, priority, created_ms, since_ms, oversubscribe, queue_timeout_ms, launch) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?)",
                new Object[] {q.runId(), q.priority(), q.createdMs(), q.sinceMs(), q.oversubscribe(), timeoutColumn(q), launch});
    }

    /** -1 for "the engine's default" (not NULL: a typed NULL binds differently on H2 and PostgreSQL). */
    private static long timeoutColumn(QueuedRun q) {
        return q.queueTimeoutMs() == null ? -1 : q.queueTimeoutMs();
    }

    /** The run no longer waits (it was placed, or it ended). */
    public void deleteQueued(String runId) {
        db.execute("cannot take run " + runId + " off the queue", "DELETE FROM run_queue WHERE run_id = ?", runId);
    }

    /** Runs recorded as waiting, in queue order (priority first, then the oldest). */
    public List<QueuedRun> queued() {
        return db.locked("cannot read the run queue", c -> {
            List<QueuedRun> out = new ArrayList<>();
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT run_id, priority, created_ms, since_ms, oversubscribe, queue_timeout_ms, launch"
                         + " FROM run_queue ORDER BY priority DESC, created_ms, run_id")) {
                while (r.next()) {
                    long timeout = r.getLong(6);
                    Long t = timeout < 0 ? null : timeout;
                    out.add(new QueuedRun(r.getString(1), r.getInt(2), r.getLong(3), r.getLong(4), r.getBoolean(5), t,
                            Json.MAPPER.readTree(r.getString(7))));
                }
            }
            return out;
        });
    }

    /**
     * Records what placing a run again needs (its launch: process slices, deployed service names, restarts
     * allowed, queueing), so that an engine started later can still restart or resume it.
     */
    public void saveLaunch(String runId, JsonNode launch) {
        String json = Json.write(launch);
        db.upsert("cannot record the launch of run " + runId, "UPDATE run_launches SET launch = ? WHERE run_id = ?",
                new Object[] {json, runId}, "INSERT INTO run_launches (run_id, launch) VALUES (?, ?)", new Object[] {runId, json});
    }

    /** A run's stored launch ({@link #saveLaunch}); empty for a run started before launches were stored, or succeeded. */
    public Optional<JsonNode> launch(String runId) {
        return db.locked("cannot read the launch of run " + runId, c -> {
            try (PreparedStatement p = c.prepareStatement("SELECT launch FROM run_launches WHERE run_id = ?")) {
                p.setString(1, runId);
                try (ResultSet r = p.executeQuery()) {
                    return r.next() ? Optional.of(Json.MAPPER.readTree(r.getString(1))) : Optional.<JsonNode>empty();
                }
            }
        });
    }

    /** The run will never be placed again (it succeeded). */
    public void deleteLaunch(String runId) {
        db.execute("cannot delete the launch of run " + runId, "DELETE FROM run_launches WHERE run_id = ?", runId);
    }

    /** Appends an event to a run's log; returns its id (increasing; the SSE event id). */
    public long appendEvent(String runId, Integer rank, long timeMs, String type, Object body) {
        String json = Json.write(body);
        return db.locked("cannot store an event of run " + runId, c -> {
            try (PreparedStatement p = c.prepareStatement(
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
                p.setString(5, json);
                p.executeUpdate();
                try (ResultSet keys = p.getGeneratedKeys()) {
                    return keys.next() ? keys.getLong(1) : -1L;
                }
            }
        });
    }

    /** A stored event. */
    public record StoredEvent(long id, String runId, Integer rank, long timeMs, String type, JsonNode body) {
    }

    /** Events of a run with id above {@code afterId}, oldest first, at most {@code limit}. */
    public List<StoredEvent> events(String runId, long afterId, int limit) {
        return db.locked("cannot read events of run " + runId, c -> {
            List<StoredEvent> out = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT id, rank_no, time_ms, type, body FROM run_events WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?")) {
                p.setString(1, runId);
                p.setLong(2, afterId);
                p.setInt(3, limit);
                try (ResultSet r = p.executeQuery()) {
                    while (r.next()) {
                        // wasNull right after its column: a null rank (an event of the whole run) is not rank 0
                        int rankNo = r.getInt(2);
                        Integer rank = r.wasNull() ? null : rankNo;
                        out.add(new StoredEvent(r.getLong(1), runId, rank, r.getLong(3), r.getString(4),
                                Json.MAPPER.readTree(r.getString(5))));
                    }
                }
            }
            return out;
        });
    }

    private static final String RUN_COLUMNS = "id, workflow, state, created_ms, detail";

    private static RunRecord record(ResultSet r) throws SQLException, java.io.IOException {
        return new RunRecord(r.getString(1), r.getString(2), r.getString(3), r.getLong(4), Json.MAPPER.readTree(r.getString(5)));
    }

    /** A run's last stored record. */
    public Optional<RunRecord> run(String id) {
        return db.locked("cannot read run " + id, c -> {
            try (PreparedStatement p = c.prepareStatement("SELECT " + RUN_COLUMNS + " FROM runs WHERE id = ?")) {
                p.setString(1, id);
                try (ResultSet r = p.executeQuery()) {
                    return r.next() ? Optional.of(record(r)) : Optional.<RunRecord>empty();
                }
            }
        });
    }

    /** Stored runs, newest first; {@code state} filters when not null. */
    public List<RunRecord> runs(String state, int limit) {
        return page(RunQuery.newest(state, limit)).runs();
    }

    /** One page of a run listing and how many runs matched in all. */
    public record RunPage(long total, List<RunRecord> runs) {
    }

    /**
     * Stored runs matching {@code q}, sorted and paged in the database. A parameter filter is
     * narrowed by the database (the detail's text contains the value) and decided on the parsed
     * parameters, so its paging happens here.
     */
    public RunPage page(RunQuery q) {
        List<Object> args = new ArrayList<>();
        StringBuilder where = new StringBuilder(" WHERE 1 = 1");
        if (q.state() != null) {
            where.append(" AND state = ?");
            args.add(q.state());
        }
        if (q.workflow() != null) {
            where.append(" AND workflow = ?");
            args.add(q.workflow());
        }
        if (q.text() != null) {
            where.append(" AND (LOWER(id) LIKE ? ESCAPE '!' OR LOWER(workflow) LIKE ? ESCAPE '!')");
            String like = "%" + likeEscaped(q.lowerText()) + "%";
            args.add(like);
            args.add(like);
        }
        if (q.fromMs() != null) {
            where.append(" AND created_ms >= ?");
            args.add(q.fromMs());
        }
        if (q.toMs() != null) {
            where.append(" AND created_ms <= ?");
            args.add(q.toMs());
        }
        if (q.projects() != null) {
            if (q.projects().isEmpty()) {
                where.append(" AND 1 = 0");
            } else {
                where.append(" AND id IN (SELECT run_id FROM run_owners WHERE project IN (")
                        .append(String.join(", ", java.util.Collections.nCopies(q.projects().size(), "?"))).append("))");
                args.addAll(new java.util.TreeSet<>(q.projects()));
            }
        }
        if (q.param() != null) {
            String value = q.param().substring(q.param().indexOf('=') + 1);
            where.append(" AND detail LIKE ? ESCAPE '!'");
            args.add("%" + likeEscaped(value) + "%");
        }
        String column = RunQuery.SORTABLE.get(q.sort());
        String order = " ORDER BY " + column + (q.ascending() ? " ASC" : " DESC")
                + (column.equals("created_ms") ? "" : ", created_ms DESC") + ", id";
        return db.locked("cannot list runs", c -> {
            if (q.param() != null) {
                List<RunRecord> matching = new ArrayList<>();
                try (PreparedStatement p = c.prepareStatement("SELECT " + RUN_COLUMNS + " FROM runs" + where + order)) {
                    bind(p, args);
                    try (ResultSet r = p.executeQuery()) {
                        while (r.next()) {
                            RunRecord rec = record(r);
                            if (q.paramsMatch(rec.detail().get("params"))) {
                                matching.add(rec);
                            }
                        }
                    }
                }
                int from = Math.min(q.offset(), matching.size());
                return new RunPage(matching.size(), List.copyOf(matching.subList(from, Math.min(matching.size(), from + q.limit()))));
            }
            long total;
            try (PreparedStatement p = c.prepareStatement("SELECT COUNT(*) FROM runs" + where)) {
                bind(p, args);
                try (ResultSet r = p.executeQuery()) {
                    r.next();
                    total = r.getLong(1);
                }
            }
            List<RunRecord> out = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("SELECT " + RUN_COLUMNS + " FROM runs" + where + order
                    + " LIMIT ? OFFSET ?")) {
                List<Object> paged = new ArrayList<>(args);
                paged.add(q.limit());
                paged.add(q.offset());
                bind(p, paged);
                try (ResultSet r = p.executeQuery()) {
                    while (r.next()) {
                        out.add(record(r));
                    }
                }
            }
            return new RunPage(total, out);
        });
    }

    private static void bind(PreparedStatement p, List<Object> args) throws SQLException {
        for (int i = 0; i < args.size(); i++) {
            p.setObject(i + 1, args.get(i));
        }
    }

    /** Text for a LIKE pattern with {@code !} as escape: its {@code %}, {@code _} and {@code !} taken literally. */
    private static String likeEscaped(String s) {
        return s.replace("!", "!!").replace("%", "!%").replace("_", "!_");
    }

    /**
     * Marks runs that were PENDING or RUNNING when the engine stopped as FAILED "engine restarted"
     * (their ranks may still run, but nobody watches them any more).
     *
     * @return how many runs were marked
     */
    public int failUnfinishedRuns(long nowMs) {
        return failUnfinishedRuns(nowMs, Set.of());
    }

    /**
     * Marks runs that were PENDING, QUEUED or RUNNING when the engine stopped as FAILED "engine restarted",
     * except those in {@code reattached} (a restarted engine carries on monitoring them, or queues them again).
     *
     * @return how many runs were marked
     */
    public int failUnfinishedRuns(long nowMs, Set<String> reattached) {
        return db.locked("cannot mark unfinished runs as failed", c -> {
            List<String[]> unfinished = new ArrayList<>();
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT id, detail FROM runs WHERE state IN ('PENDING', 'QUEUED', 'RUNNING')")) {
                while (r.next()) {
                    if (!reattached.contains(r.getString(1))) {
                        unfinished.add(new String[] {r.getString(1), r.getString(2)});
                    }
                }
            }
            for (String[] u : unfinished) {
                ObjectNode d = (ObjectNode) Json.MAPPER.readTree(u[1]);
                d.put("state", "FAILED");
                d.put("endedMs", nowMs);
                ObjectNode err = d.putObject("error");
                err.putNull("rank");
                err.putNull("location");
                err.put("message", "engine restarted");
                // it ended: no longer waiting in the queue, and none of its ranks still reads as running (the
                // engine that starts now aborts its domain)
                d.remove("queue");
                for (com.fasterxml.jackson.databind.JsonNode r : d.path("ranks")) {
                    String rs = r.path("state").asText("");
                    if (r instanceof ObjectNode rank && !Set.of("DONE", "FAILED", "ABORTED").contains(rs)) {
                        rank.put("state", "ABORTED");
                        rank.put("error", "the engine restarted while the rank was " + (rs.isEmpty() ? "PENDING" : rs));
                    }
                }
                try (PreparedStatement p = c.prepareStatement("UPDATE runs SET state = 'FAILED', detail = ? WHERE id = ?")) {
                    p.setString(1, Json.write(d));
                    p.setString(2, u[0]);
                    p.executeUpdate();
                }
            }
            return unfinished.size();
        });
    }
}
