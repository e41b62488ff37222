package org.mpfl.engine.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    private static final Pattern DROP_ENTRY = Pattern.compile("audit: (\\d+) records dropped \\(queue full\\): (.+)");
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
            // the writer writes a drop entry before its next row, with the drops counted when it took them: one entry, or
            // several when it took the counts while the flood went on (CI saw 170 + 330), so their counts add up to every
            // drop, named by caller
            List<AccessStore.AuditEntry> drops = trail.stream().filter(e -> e.who().equals(Audit.ENGINE)).toList();
            Map<String, Long> byCaller = new TreeMap<>();
            long total = 0;
            for (AccessStore.AuditEntry drop : drops) {
                Matcher m = DROP_ENTRY.matcher(drop.action());
                assertTrue(m.matches(), "a drop entry says how many and whose: " + drop.action());
                long counted = 0;
                for (String part : m.group(2).split(", ")) {
                    String[] nameAndCount = part.split(" ");
                    byCaller.merge(nameAndCount[0], Long.parseLong(nameAndCount[1]), Long::sum);
                    counted += Long.parseLong(nameAndCount[1]);
                }
                assertEquals(Long.parseLong(m.group(1)), counted, "an entry's total is the sum of its callers': " + drop.action());
                total += counted;
            }
            assertEquals(audit.dropped(), total, "the drop entries count every drop: " + drops);
            assertEquals(Map.of("alice", 1L, "mallory", audit.dropped() - 1), byCaller,
                    "the hidden action's caller is named beside the flood's: " + drops);
            long written = trail.stream().filter(e -> !e.who().equals(Audit.ENGINE)).count();
            assertEquals(flood + 1, written + audit.dropped(), "every record written or counted as dropped");
        }
    }

    @Test
    void aUserNamedEngineIsNotTakenForTheTrailsOwnEntries() {
        assertEquals("user:engine", Caller.userName("engine"));
    }
}
