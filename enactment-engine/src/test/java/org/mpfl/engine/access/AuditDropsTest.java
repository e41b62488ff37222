package org.mpfl.engine.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.store.AccessStore;
import org.mpfl.engine.store.EngineDatabase;
import org.mpfl.testing.Await;

/**
 * An attack on the audit trail: a caller floods the engine with mutations while the store is slow, so that the
 * trail's bounded queue is full when the action it wants hidden is answered. The record of that action may be
 * dropped (the queue is bounded on purpose: an answer never waits for the store), but the drop must show on the
 * trail itself — how many, and whose — where before it was only a log line every thousand drops.
 */
@Timeout(120)
class AuditDropsTest {
    @TempDir
    Path dir;

    @Test
    void recordsDroppedByAFloodAreCountedOnTheTrailWithWhoseTheyWere() throws Exception {
        try (EngineDatabase db = EngineDatabase.openEmbedded(dir); Audit audit = new Audit(db.access(), Duration.ofDays(90))) {
            Caller mallory = new Caller("mallory", Caller.Kind.USER, Role.OPERATOR, Set.of("p"), false);
            Caller alice = new Caller("alice", Caller.Kind.USER, Role.OPERATOR, Set.of("p"), false);
            int flood = 10_500;
            // the store is busy (the writer waits for its lock) while the flood and the action to hide arrive
            synchronized (db) {
                for (int i = 0; i < flood; i++) {
                    audit.record(mallory, "10.0.0.66", "POST", "/api/runs", 201);
                }
                audit.record(alice, "10.0.0.7", "POST", "/api/runs/r1/cancel", 200);
            }
            assertTrue(audit.dropped() > 0, "the flood filled the queue");
            // the writer drains the full queue (a flush cannot be queued behind it until there is room)
            List<AccessStore.AuditEntry> trail = Await.until(Duration.ofSeconds(90), "every record written or counted",
                    () -> db.access().audit(0, 100_000),
                    t -> t.stream().filter(e -> !e.who().equals(Audit.ENGINE)).count() + audit.dropped() >= flood + 1
                            && t.stream().anyMatch(e -> e.who().equals(Audit.ENGINE)));
            List<AccessStore.AuditEntry> drops = trail.stream().filter(e -> e.who().equals(Audit.ENGINE)).toList();
            assertEquals(1, drops.size(), "one entry of the engine says what was dropped: " + drops);
            String said = drops.get(0).action();
            assertTrue(said.startsWith("audit: " + audit.dropped() + " records dropped (queue full): mallory "), said);
            assertTrue(said.contains("alice 1"), "the hidden action's caller is named: " + said);
            long written = trail.stream().filter(e -> !e.who().equals(Audit.ENGINE)).count();
            assertEquals(flood + 1, written + audit.dropped(), "every record written or counted as dropped");
        }
    }

    @Test
    void aUserNamedEngineIsNotTakenForTheTrailsOwnEntries() {
        assertEquals("user:engine", Caller.userName("engine"));
    }
}
