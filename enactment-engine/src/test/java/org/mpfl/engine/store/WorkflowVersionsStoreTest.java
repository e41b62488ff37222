package org.mpfl.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.digest.Sha256;

/** Workflow versions in the store, and a data directory from before versions existed. */
class WorkflowVersionsStoreTest {
    @TempDir
    Path dir;

    @Test
    void aDataDirectoryWithTheOldWorkflowsTableGetsVersion1OfEachAndLosesTheOldTable() throws Exception {
        String url = "jdbc:h2:file:" + dir.toAbsolutePath().resolve("engine");
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
            // the engine before versions (and before migrations)
            for (String ddl : LegacyH2SchemaTest.OLD_DDL) {
                s.execute(ddl);
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO workflows VALUES (?, ?, ?, ?)")) {
                p.setString(1, "ring");
                p.setLong(2, 1234);
                p.setString(3, "<workflow name='ring'/>");
                p.setString(4, "{\"workflow\":\"ring\"}");
                p.executeUpdate();
                p.setString(1, "planned");
                p.setLong(2, 99);
                p.setString(3, null);
                p.setString(4, "{\"workflow\":\"planned\"}");
                p.executeUpdate();
            }
        }
        for (int open = 0; open < 2; open++) { // the second opening finds nothing left to migrate
            try (RunStore store = RunStore.openEmbedded(dir)) {
                RunStore.StoredWorkflow ring = store.workflow("ring").orElseThrow();
                assertEquals(1, ring.version());
                assertEquals(1234, ring.deployedMs());
                assertEquals("<workflow name='ring'/>", ring.document());
                assertEquals(Sha256.hex("<workflow name='ring'/>"), ring.sourceSha256());
                assertNull(ring.services(), "its services were deployed under the plain names");
                assertEquals(1, store.workflowVersions("planned").size());
                assertEquals(2, store.workflows().size());
            }
        }
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             ResultSet r = c.getMetaData().getTables(null, null, "WORKFLOWS", null)) {
            assertFalse(r.next(), "the old table is gone");
        }
    }

    @Test
    void versionsAreKeptSideBySideAndAVersionIsNeverWrittenTwice() throws Exception {
        try (RunStore store = RunStore.openEmbedded(dir)) {
            store.saveWorkflowVersion(new RunStore.StoredWorkflow("w", 1, 10, "a", "ca", "<one/>", null, "{\"node\":\"w.v1.node\"}"));
            store.saveWorkflowVersion(new RunStore.StoredWorkflow("w", 2, 20, "b", "cb", "<two/>", null, "{\"node\":\"w.v2.node\"}"));
            assertEquals(2, store.workflow("w").orElseThrow().version());
            assertEquals("<one/>", store.workflowVersion("w", 1).orElseThrow().document());
            assertEquals(2, store.workflowVersions("w").size());
            assertNull(store.workflowVersions("w").get(0).document(), "a listing carries no documents");
            assertEquals(1, store.workflows().size());
            assertEquals(2, store.workflows().get(0).version());
            assertThrows(RunStore.StoreException.class, () -> store.saveWorkflowVersion(
                    new RunStore.StoredWorkflow("w", 2, 30, "c", "cc", "<forged/>", null, null)));
            assertEquals("<two/>", store.workflowVersion("w", 2).orElseThrow().document());
        }
    }
}
