package org.mpfl.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The schema snapshot a throwaway database ({@code run --local}) starts from, {@link EngineDatabase#THROWAWAY_SCHEMA},
 * is what the migrations make: a new migration without a new snapshot fails here (and leaves the snapshot to
 * copy in {@code target/}). A database opened from it holds the same tables and works as a store.
 */
class ThrowawaySchemaTest {

    @Test
    void theSnapshotIsWhatTheMigrationsMake() throws Exception {
        String migrated;
        try (EngineDatabase db = EngineDatabase.open("jdbc:h2:mem:migrated-" + UUID.randomUUID(), "sa", "")) {
            migrated = db.locked("script", EngineDatabase::schemaScript);
        }
        assertTrue(migrated.contains("CREATE") && migrated.toUpperCase().contains("WORKFLOW_VERSIONS"), migrated);
        String snapshot = snapshot();
        if (!snapshot.equals(migrated)) {
            Path fresh = Path.of("target", "h2-schema.sql");
            Files.writeString(fresh, migrated, StandardCharsets.UTF_8);
            assertEquals(migrated, snapshot, "the migrations changed: copy " + fresh.toAbsolutePath()
                    + " to enactment-engine/src/main/resources/" + EngineDatabase.THROWAWAY_SCHEMA);
        }
    }

    @Test
    void aThrowawayDatabaseHasTheMigratedSchemaAndStoresRuns() throws Exception {
        try (EngineDatabase db = EngineDatabase.openThrowaway()) {
            assertEquals(snapshot(), db.locked("script", EngineDatabase::schemaScript));
            db.execute("store a workflow version", "INSERT INTO workflow_versions (name, version, deployed_ms, source_sha256, "
                    + "content_sha256) VALUES (?, ?, ?, ?, ?)", "ring", 1, 1L, "a", "b");
            assertEquals(1, db.workflows().versions("ring").size());
        }
    }

    @Test
    void eachThrowawayDatabaseIsItsOwn() throws SQLException, IOException {
        try (EngineDatabase a = EngineDatabase.openThrowaway(); EngineDatabase b = EngineDatabase.openThrowaway()) {
            a.execute("store a workflow version", "INSERT INTO workflow_versions (name, version, deployed_ms, source_sha256, "
                    + "content_sha256) VALUES (?, ?, ?, ?, ?)", "ring", 1, 1L, "a", "b");
            assertEquals(1, a.workflows().versions("ring").size());
            assertEquals(0, b.workflows().versions("ring").size());
        }
    }

    private static String snapshot() throws IOException {
        try (InputStream in = EngineDatabase.class.getClassLoader().getResourceAsStream(EngineDatabase.THROWAWAY_SCHEMA)) {
            return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
