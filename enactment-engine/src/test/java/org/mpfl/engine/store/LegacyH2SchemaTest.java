package org.mpfl.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Databases the store did not make with its current migrations: one made by the engine before
 * migrations existed (its tables, no Flyway history) opens with every record kept and is baselined at
 * version 1; one that a newer engine migrated further, or one holding someone else's tables, is refused
 * with a clear error instead of written to.
 */
@Timeout(60)
class LegacyH2SchemaTest {
    @TempDir
    Path dir;

    private String url() {
        return "jdbc:h2:file:" + dir.toAbsolutePath().resolve("engine") + ";DB_CLOSE_ON_EXIT=FALSE";
    }

    /** The DDL the engine made before migrations, verbatim (H2 only: AUTO_INCREMENT, CLOB). */
    /** The DDL of the engine before migrations, verbatim. */
    static final List<String> OLD_DDL = List.of(
            "CREATE TABLE IF NOT EXISTS runs (id VARCHAR(64) PRIMARY KEY, workflow VARCHAR(256), "
                    + "state VARCHAR(16) NOT NULL, created_ms BIGINT NOT NULL, detail CLOB NOT NULL)",
            "CREATE TABLE IF NOT EXISTS run_events (id BIGINT AUTO_INCREMENT PRIMARY KEY, run_id VARCHAR(64) NOT NULL, "
                    + "rank_no INT, time_ms BIGINT NOT NULL, type VARCHAR(16) NOT NULL, body CLOB NOT NULL)",
            "CREATE INDEX IF NOT EXISTS run_events_by_run ON run_events (run_id, id)",
            "CREATE TABLE IF NOT EXISTS workflows (name VARCHAR(256) PRIMARY KEY, updated_ms BIGINT NOT NULL, "
                    + "document CLOB, plan CLOB)",
            "CREATE TABLE IF NOT EXISTS live_domains (run_id VARCHAR(64) PRIMARY KEY, domain_id VARCHAR(128) NOT NULL, "
                    + "token VARCHAR(128) NOT NULL, service_urls CLOB NOT NULL)",
            "CREATE TABLE IF NOT EXISTS host_credentials (id VARCHAR(64) PRIMARY KEY, host_id VARCHAR(128) NOT NULL, "
                    + "verifier VARCHAR(64) NOT NULL, engine_key VARCHAR(64) NOT NULL, created_ms BIGINT NOT NULL)");

    @Test
    void aDatabaseFromBeforeMigrationsOpensWithItsRecordsAndIsBaselinedAtVersion1() throws Exception {
        try (Connection c = DriverManager.getConnection(url(), "sa", ""); Statement s = c.createStatement()) {
            for (String ddl : OLD_DDL) {
                s.execute(ddl);
            }
            s.execute("INSERT INTO runs VALUES ('old', 'ring', 'SUCCEEDED', 5, '{\"id\":\"old\",\"state\":\"SUCCEEDED\"}')");
            s.execute("INSERT INTO run_events (run_id, rank_no, time_ms, type, body) VALUES ('old', 0, 1, 'state', '{}')");
            s.execute("INSERT INTO run_events (run_id, rank_no, time_ms, type, body) VALUES ('old', 1, 2, 'state', '{}')");
            s.execute("INSERT INTO host_credentials VALUES ('c', 'h', 'v', 'k', 3)");
            s.execute("INSERT INTO workflows VALUES ('ring', 4, '<workflow/>', NULL)");
        }
        for (int open = 0; open < 2; open++) {
            try (EngineDatabase db = EngineDatabase.openEmbedded(dir)) {
                RunStore store = db.runs();
                assertEquals("SUCCEEDED", store.run("old").orElseThrow().detail().get("state").asText());
                assertEquals("<workflow/>", db.workflows().latest("ring").orElseThrow().document());
                assertEquals("h", db.credentials().all().get(0).hostId());
                assertEquals("host", db.credentials().all().get(0).kind(), "a credential from before kinds is a host's");
                long next = store.appendEvent("old", 2, 3, "state", Map.of());
                List<RunStore.StoredEvent> events = store.events("old", 0, 10);
                assertEquals(3 + open, events.size());
                assertTrue(next > events.get(1).id(), "the old identity column goes on: " + next);
                store.save(RunStoreContract.run("new" + open, "ring", "RUNNING", 6, Map.of()));
            }
        }
        assertEquals(List.of("1|BASELINE|true", "2|JDBC|true", "22|SQL|true", "23|SQL|true", "24|SQL|true", "25|SQL|true",
                "26|SQL|true", "27|SQL|true"), history(), "baselined once at version 1, V1 not run, V2, V22 (owners and audit),"
                        + " V23 (the run queue), V24 (capacity jobs), V25 (console sessions), V26 (run launches) and V27 (credential"
                        + " kinds) run once");
    }

    @Test
    void aDatabaseMigratedByANewerEngineIsRefused() throws Exception {
        try (EngineDatabase db = EngineDatabase.openEmbedded(dir)) {
            db.runs().save(RunStoreContract.run("r", "w", "SUCCEEDED", 1, Map.of()));
        }
        assertEquals(List.of("1|SQL|true", "2|JDBC|true", "22|SQL|true", "23|SQL|true", "24|SQL|true", "25|SQL|true", "26|SQL|true",
                "27|SQL|true"), history());
        try (Connection c = DriverManager.getConnection(url(), "sa", ""); Statement s = c.createStatement()) {
            s.execute("INSERT INTO \"flyway_schema_history\" (\"installed_rank\", \"version\", \"description\", \"type\", "
                    + "\"script\", \"checksum\", \"installed_by\", \"execution_time\", \"success\") "
                    + "VALUES (99, '99', 'from the future', 'SQL', 'V99__from_the_future.sql', 1, 'sa', 0, TRUE)");
        }
        StoreException e = assertThrows(StoreException.class, () -> EngineDatabase.openEmbedded(dir).close());
        assertTrue(e.getMessage().contains("cannot bring the database schema") && e.getMessage().contains("99"), e.getMessage());
        // refused before anything was written, and the database is not left locked
        try (Connection c = DriverManager.getConnection(url(), "sa", ""); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM runs")) {
            r.next();
            assertEquals(1, r.getInt(1));
        }
    }

    @Test
    void aDatabaseHoldingOtherTablesIsRefusedNotTakenOver() throws Exception {
        try (Connection c = DriverManager.getConnection(url(), "sa", ""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE invoices (id BIGINT PRIMARY KEY)");
        }
        StoreException e = assertThrows(StoreException.class, () -> EngineDatabase.openEmbedded(dir).close());
        assertTrue(e.getMessage().contains("cannot bring the database schema"), e.getMessage());
        try (Connection c = DriverManager.getConnection(url(), "sa", ""); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'PUBLIC'")) {
            r.next();
            assertEquals(1, r.getInt(1), "nothing was created beside the foreign table");
        }
    }

    /** The versions in Flyway's history (without the row Flyway writes when it creates the table). */
    private List<String> history() throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url(), "sa", ""); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT \"version\", \"type\", \"success\" FROM \"flyway_schema_history\" "
                     + "WHERE \"version\" IS NOT NULL ORDER BY \"installed_rank\"")) {
            while (r.next()) {
                out.add(r.getString(1) + "|" + r.getString(2) + "|" + r.getBoolean(3));
            }
        }
        return out;
    }
}
