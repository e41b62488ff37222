package org.mpfl.runtime.p2p;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.testing.Await;

/** Memory bound under a flood, bstore broadcast, and no leak of domain state across many domains. */
class FlowControlAndBstoreTest {
    private static final long LIMIT = 1 << 20;
    private static InProcessCluster cluster;

    @BeforeAll
    static void start() {
        cluster = InProcessCluster.start(2, MessagingSettings.fromSystemProperties().withUnexpectedLimitBytes(LIMIT));
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static void assertAllOk(List<InProcessCluster.RankResult> results) {
        for (InProcessCluster.RankResult r : results) {
            assertNull(r.failure(), () -> "rank " + r.rank() + " failed: " + r.failure());
        }
    }

    /**
     * Rank 2 floods rank 0 with 100 × 64 KB (6.4 MB, limit 1 MB) while rank 0 waits for one message
     * from rank 1: that message still gets in (it matches the posted receive), the buffered bytes
     * never exceed the limit, and all of rank 2's messages arrive afterwards, in order.
     */
    @ParameterizedTest
    @ValueSource(strings = {"local", "binary"})
    void aFloodOfUnexpectedMessagesStaysWithinTheMemoryBound(String mode) {
        int[] hostOf = mode.equals("local") ? new int[] {0, 0, 0} : new int[] {0, 1, 1};
        AtomicLong sampledMax = new AtomicLong();
        AtomicBoolean sampling = new AtomicBoolean(true);
        AtomicReference<Domain> rank0sDomain = new AtomicReference<>();
        RankProgram program = ctx -> {
            Communicator w = ctx.world();
            switch (w.rank()) {
                case 0 -> {
                    Domain domain = ((InProcessRankContext) ctx).rankInstance().domain();
                    rank0sDomain.set(domain);
                    Thread sampler = new Thread(() -> {
                        while (sampling.get()) {
                            sampledMax.accumulateAndGet(domain.bufferedBytes(), Math::max);
                            Thread.onSpinWait();
                        }
                    });
                    sampler.start();
                    assertEquals("hello", w.recv(1, 1, Duration.ofSeconds(20)).value());
                    Thread.sleep(300); // the flood keeps knocking at a full buffer
                    for (int i = 0; i < 100; i++) {
                        byte[] b = (byte[]) w.recv(2, 2, Duration.ofSeconds(20)).value();
                        assertEquals(i, b[0]);
                    }
                    sampling.set(false);
                    sampler.join(5000);
                    ctx.output("peak", domain.peakBufferedBytes());
                }
                case 1 -> {
                    // sent once rank 2's flood has filled rank 0's buffer, however late rank 2 starts on a loaded
                    // machine (a fixed 300 ms pause let rank 0 drain a flood that came later: peak 0)
                    Await.until(Duration.ofSeconds(20), "rank 2's flood fills rank 0's buffer",
                            () -> rank0sDomain.get() == null ? 0L : rank0sDomain.get().bufferedBytes(), b -> b > LIMIT / 2);
                    w.send("hello", 0, 1);
                }
                default -> {
                    for (int i = 0; i < 100; i++) {
                        byte[] b = new byte[64 * 1024];
                        b[0] = (byte) i;
                        w.send(b, 0, 2);
                    }
                }
            }
        };
        List<InProcessCluster.RankResult> results = cluster.run(hostOf, mode, Map.of(), program)
                .await(Duration.ofSeconds(60));
        sampling.set(false);
        assertAllOk(results);
        long peak = (Long) results.get(0).outputs().get("peak");
        assertTrue(peak <= LIMIT, "peak buffered " + peak + " > limit " + LIMIT);
        assertTrue(sampledMax.get() <= LIMIT, "sampled buffered " + sampledMax.get() + " > limit " + LIMIT);
        assertTrue(peak > LIMIT / 2, "the flood should have filled the buffer, peak " + peak);
    }

    /**
     * Rank 1's messages to rank 0 are stuck (rank 0's buffer is full, rank 0 is in ssend); rank 1
     * matches the ssend: its acknowledgement must not queue behind those messages.
     */
    @ParameterizedTest
    @ValueSource(strings = {"local", "binary"})
    void aSyncAckOvertakesDataTheReceiverCannotBufferYet(String mode) {
        RankProgram program = ctx -> {
            Communicator w = ctx.world();
            if (w.rank() == 1) {
                for (int i = 0; i < 40; i++) {
                    byte[] b = new byte[64 * 1024];
                    b[0] = (byte) i;
                    w.send(b, 0, 2);
                }
                assertEquals("x", w.recv(0, 5, Duration.ofSeconds(20)).value());
            } else {
                Thread.sleep(300);
                w.ssend("x", 1, 5);
                for (int i = 0; i < 40; i++) {
                    assertEquals(i, ((byte[]) w.recv(1, 2, Duration.ofSeconds(20)).value())[0]);
                }
            }
        };
        int[] hostOf = mode.equals("local") ? new int[] {0, 0} : new int[] {0, 1};
        assertAllOk(cluster.run(hostOf, mode, Map.of(), program).await(Duration.ofSeconds(30)));
    }

    /** A message bigger than the whole limit waits at the sender until its receive is posted. */
    @Test
    void aMessageLargerThanTheLimitWaitsForItsReceive() {
        RankProgram program = ctx -> {
            Communicator w = ctx.world();
            if (w.rank() == 1) {
                w.send(new double[(int) (LIMIT / 8) * 3], 0, 0);
            } else {
                Thread.sleep(300);
                assertEquals(0, ((InProcessRankContext) ctx).rankInstance().domain().bufferedBytes());
                assertEquals((int) (LIMIT / 8) * 3, ((double[]) w.recv(1, 0, Duration.ofSeconds(10)).value()).length);
            }
        };
        assertAllOk(cluster.run(new int[] {0, 1}, "auto", Map.of(), program).await(Duration.ofSeconds(30)));
    }

    /** bstore from root 2 over 7 ranks on two hosts, twice, then ordinary messages: all in order. */
    @Test
    void bstoreBroadcastReachesEveryRankInOrderWithPointToPoint() {
        RankProgram program = ctx -> {
            P2PCommunicator w = (P2PCommunicator) ctx.world();
            int root = 2;
            double[] big = new double[50_000];
            Arrays.fill(big, 7.5);
            for (int round = 0; round < 2; round++) {
                Object v = w.bstoreBroadcast(w.rank() == root ? (round == 0 ? big : "second") : null, root, 11);
                if (round == 0) {
                    assertEquals(50_000, ((double[]) v).length);
                    assertEquals(7.5, ((double[]) v)[49_999]);
                } else {
                    assertEquals("second", v);
                }
            }
            if (w.rank() == root) {
                for (int r = 0; r < w.size(); r++) {
                    if (r != root) {
                        w.send("after", r, 11);
                    }
                }
            } else {
                assertEquals("after", w.recv(root, 11, Duration.ofSeconds(10)).value());
            }
        };
        int[] hostOf = {0, 1, 0, 1, 0, 1, 1};
        assertAllOk(cluster.run(hostOf, "auto", Map.of(), program).await(Duration.ofSeconds(30)));
    }

    /** A blocked ssend and a blocked large send (receiver never receives) both end within a second of an abort. */
    @ParameterizedTest
    @ValueSource(strings = {"local", "binary"})
    void abortEndsBlockedSendsWithinOneSecond(String mode) throws InterruptedException {
        RankProgram program = ctx -> {
            Communicator w = ctx.world();
            try {
                if (w.rank() == 0) {
                    w.ssend("never matched", 1, 9);
                } else {
                    w.send(new double[(int) (3 * LIMIT / 8)], 0, 0);
                }
            } catch (org.mpfl.runtime.api.DomainAbortedException e) {
                ctx.output("abortedAtMs", System.currentTimeMillis());
                throw e;
            }
        };
        int[] hostOf = mode.equals("local") ? new int[] {0, 0} : new int[] {0, 1};
        InProcessCluster.Run run = cluster.run(hostOf, mode, Map.of(), program);
        Thread.sleep(500);
        long abortAt = System.currentTimeMillis();
        run.abort();
        for (InProcessCluster.RankResult r : run.await(Duration.ofSeconds(10))) {
            assertTrue(r.failure() instanceof org.mpfl.runtime.api.DomainAbortedException, "rank " + r.rank() + ": " + r.failure());
            long after = (Long) r.outputs().get("abortedAtMs") - abortAt;
            assertTrue(after < 1000, "rank " + r.rank() + " noticed the abort after " + after + " ms");
        }
    }

    @Test
    void autoSelectsLocalInTheSameHostAndBinaryAcrossHosts() {
        RankProgram program = ctx -> {
            RankInstance me = ((InProcessRankContext) ctx).rankInstance();
            if (me.rank() == 0) {
                ctx.output("to1", me.transportTo(1));
                ctx.output("to2", me.transportTo(2));
            }
        };
        List<InProcessCluster.RankResult> r = cluster.run(new int[] {0, 0, 1}, "auto", Map.of(), program)
                .await(Duration.ofSeconds(10));
        assertAllOk(r);
        assertEquals("local", r.get(0).outputs().get("to1"));
        assertEquals("binary", r.get(0).outputs().get("to2"));
        List<InProcessCluster.RankResult> forced = cluster.run(new int[] {0, 0, 1}, "binary", Map.of(), program)
                .await(Duration.ofSeconds(10));
        assertEquals("binary", forced.get(0).outputs().get("to1"));
    }

    @Test
    void binomialTreeChildrenCoverEveryRankOnce() {
        for (int n = 1; n <= 17; n++) {
            for (int root = 0; root < n; root++) {
                int[] seen = new int[n];
                seen[root]++;
                for (int r = 0; r < n; r++) {
                    for (int c : BroadcastTree.children(r, root, n)) {
                        seen[c]++;
                    }
                }
                for (int r = 0; r < n; r++) {
                    assertEquals(1, seen[r], "n=" + n + " root=" + root + " rank " + r);
                }
            }
        }
        assertEquals("[2, 1]", Arrays.toString(BroadcastTree.children(0, 0, 4)));
    }

    @Test
    void domainStateIsDroppedWhenItsRanksEnd() {
        RankProgram ping = ctx -> {
            Communicator w = ctx.world();
            if (w.rank() == 0) {
                w.send(new double[10], 1, 0);
                w.recv(1, 0, Duration.ofSeconds(10));
            } else {
                w.send(w.recv(0, 0, Duration.ofSeconds(10)).value(), 0, 0);
            }
        };
        for (int i = 0; i < 40; i++) {
            assertAllOk(cluster.run(new int[] {0, 1}, "auto", Map.of(), ping).await(Duration.ofSeconds(10)));
        }
        assertEquals(0, cluster.host(0).registry().liveDomains());
        assertEquals(0, cluster.host(1).registry().liveDomains());
    }
}
