package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** A rank's per-peer counts as the deadlock detector takes them every second: copied once per change, not per look. */
class RankTrafficTest {
    @Test
    void theCountsAreCopiedAgainOnlyAfterOneChanged() {
        RankView rank = SiteTrafficTest.rank(0, "A");
        assertSame(DeadlockDetector.Traffic.NONE, rank.traffic(), "nothing counted yet");

        rank.applyCounters(Map.of("sentTo", Map.of("1", 3), "dataSentTo", Map.of("1", 3), "dataFrom", Map.of("1", 2),
                "receiptsSentTo", Map.of("1", 1), "receiptsFrom", Map.of()));
        DeadlockDetector.Traffic first = rank.traffic();
        assertEquals(new DeadlockDetector.Traffic(Map.of(1, 3L), Map.of(1, 2L), Map.of(1, 1L), Map.of()), first);
        assertSame(first, rank.traffic(), "no new count, no new copy");

        // a status answer repeating the same counts (the usual case between messages), and one with only other counters
        rank.applyCounters(Map.of("dataSentTo", Map.of("1", 3), "dataFrom", Map.of("1", 2)));
        rank.applyCounters(Map.of("sentTo", Map.of("1", 4), "bytesTo", Map.of("1", 32)));
        assertSame(first, rank.traffic(), "the same counts again, or only the traffic matrix's: still the same copy");

        rank.applyCounters(Map.of("dataFrom", Map.of("1", 3)));
        DeadlockDetector.Traffic second = rank.traffic();
        assertNotSame(first, second);
        assertEquals(Map.of(1, 3L), second.dataFrom(), "the message that arrived is seen");
        assertEquals(Map.of(1, 2L), first.dataFrom(), "a copy the detector holds does not change under it");
    }
}
