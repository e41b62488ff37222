package org.mpfl.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded H2 store writes each commit to its file before the commit returns: H2's default
 * (500 ms of write delay) lost a run an engine SIGKILLed half a second after storing it had already
 * listed as RUNNING. The setting is persistent in the file, so it is read back here on a plain
 * connection. SlurmCapacityTest and EngineRestartDurabilityTest kill real engines.
 */
@Timeout(60)
class EmbeddedDatabaseDurabilityTest {
    @TempDir
    Path dir;

    @Test
    void theEmbeddedStoreWritesEveryCommitAtOnce() throws Exception {
        try (EngineDatabase db = EngineDatabase.openEmbedded(dir)) {
            assertTrue(db.runs() != null);
        }
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.toAbsolutePath().resolve("engine"), "sa", "");
             ResultSet r = c.createStatement().executeQuery(
                     "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'WRITE_DELAY'")) {
            assertTrue(r.next(), "H2 lists its WRITE_DELAY");
            assertEquals("0", r.getString(1), "no delay between a commit and its write to the file");
        }
    }

    /** Commits now write in the committing thread: an interrupted one must neither fail nor close the store. */
    @Test
    void commitsOfInterruptedThreadsKeepTheStoreOpen() throws Exception {
        try (EngineDatabase db = EngineDatabase.openEmbedded(dir);
             Connection c = DriverManager.getConnection(EngineDatabase.embeddedUrl(dir), "sa", "")) {
            c.createStatement().execute("CREATE TABLE interrupted (i INT)");
            for (int i = 0; i < 50; i++) {
                Thread.currentThread().interrupt();
                try {
                    c.createStatement().execute("INSERT INTO interrupted VALUES (" + i + ")");
                } finally {
                    Thread.interrupted();
                }
            }
            try (ResultSet r = c.createStatement().executeQuery("SELECT COUNT(*) FROM interrupted")) {
                assertTrue(r.next());
                assertEquals(50, r.getInt(1), "every interrupted commit stored");
            }
        }
    }
}
