package org.mpfl.runtime.p2p;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.mpfl.runtime.api.Communicator;

/**
 * The local transport copies what a rank sends (the sender may reuse its array once the send is
 * complete) except a buffer handed over ({@link P2PCommunicator#isendHandedOver}): that one arrives
 * as the very array, without a copy.
 */
class HandedOverPayloadTest {
    private static final Map<String, Object> SEEN = new ConcurrentHashMap<>();

    @Test
    void aHandedOverArrayArrivesWithoutACopyAnOrdinaryOneAsACopy() {
        SEEN.clear();
        try (InProcessCluster cluster = InProcessCluster.start(1, MessagingSettings.fromSystemProperties())) {
            InProcessCluster.Run run = cluster.run(new int[] {0, 0}, "local", Map.of(), ctx -> {
                Communicator w = ctx.world();
                if (w.rank() == 0) {
                    double[] ordinary = {1, 2, 3};
                    double[] handed = {4, 5, 6};
                    SEEN.put("ordinary", ordinary);
                    SEEN.put("handed", handed);
                    w.isend(ordinary, 1, 1).await();
                    ordinary[0] = -1; // allowed once the send is complete: the receiver must not see it
                    ((P2PCommunicator) w).isendHandedOver(handed, 1, 2).await();
                    w.send(new int[0], 1, 3);
                } else {
                    w.recv(0, 3, Duration.ofSeconds(20)); // both data messages are in by now
                    SEEN.put("ordinary-received", w.recv(0, 1, Duration.ofSeconds(20)).value());
                    SEEN.put("handed-received", w.recv(0, 2, Duration.ofSeconds(20)).value());
                }
            });
            List<InProcessCluster.RankResult> results = run.await(Duration.ofSeconds(30));
            for (InProcessCluster.RankResult r : results) {
                assertNull(r.failure(), "rank " + r.rank() + ": " + r.failure());
            }
        }
        assertNotSame(SEEN.get("ordinary"), SEEN.get("ordinary-received"));
        assertArrayEquals(new double[] {1, 2, 3}, (double[]) SEEN.get("ordinary-received"));
        assertSame(SEEN.get("handed"), SEEN.get("handed-received"));
    }
}
