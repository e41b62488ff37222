package org.mpfl.runtime.p2p;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.runtime.api.ReceiveTimeoutException;
import org.mpfl.runtime.transport.MemoryBudget;

/**
 * The host's memory budget bounds all domains together: two domains flood the same receiving host
 * at once, each well within its own per-domain bound (64 MB) but together far above the host's
 * budget (1 MB). The receiving host answers BUSY instead of allocating, the senders retry, and
 * every message arrives exactly once and in order — over the binary channel between two hosts
 * (real sockets) and through the in-JVM hand-over.
 */
class HostMemoryBudgetTest {
    private static final long BUDGET = 1 << 20;
    private static final int MESSAGES = 60;
    private InProcessCluster cluster;

    @BeforeEach
    void start() {
        cluster = InProcessCluster.start(2, MessagingSettings.fromSystemProperties().withUnexpectedLimitBytes(64L << 20),
                () -> new MemoryBudget(BUDGET, BUDGET));
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "binary"})
    void twoDomainsTogetherStayWithinTheHostBudgetAndDeliverExactlyOnce(String mode) {
        int[] hostOf = mode.equals("local") ? new int[] {0, 0} : new int[] {0, 1};
        RankProgram program = ctx -> {
            Communicator w = ctx.world();
            if (w.rank() == 1) {
                for (int i = 0; i < MESSAGES; i++) {
                    byte[] b = new byte[64 * 1024];
                    b[0] = (byte) i;
                    w.send(b, 0, 2);
                }
            } else {
                Thread.sleep(500); // both floods knock at the full budget meanwhile
                for (int i = 0; i < MESSAGES; i++) {
                    assertEquals(i, ((byte[]) w.recv(1, 2, Duration.ofSeconds(30)).value())[0]);
                }
                // exactly once: no retried message turns up a second time
                assertThrows(ReceiveTimeoutException.class, () -> w.recv(1, 2, Duration.ofMillis(300)));
            }
        };
        var a = cluster.run(hostOf, mode, Map.of(), program);
        var b = cluster.run(hostOf, mode, Map.of(), program);
        for (List<InProcessCluster.RankResult> results : List.of(a.await(Duration.ofSeconds(90)), b.await(Duration.ofSeconds(90)))) {
            for (InProcessCluster.RankResult r : results) {
                assertNull(r.failure(), () -> "rank " + r.rank() + " failed: " + r.failure());
            }
        }
        MemoryBudget budget = cluster.host(0).registry().budget();
        assertTrue(budget.peakBytes() <= BUDGET, "peak " + budget.peakBytes() + " over the budget " + BUDGET);
        assertTrue(budget.peakBytes() > BUDGET / 2, "the floods should have filled the budget, peak " + budget.peakBytes());
        assertEquals(0, budget.usedBytes(), "everything held was released");
    }
}
