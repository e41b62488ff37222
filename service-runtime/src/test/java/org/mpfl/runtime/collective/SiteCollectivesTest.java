package org.mpfl.runtime.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.ReduceOp;
import org.mpfl.runtime.p2p.InProcessCluster;
import org.mpfl.runtime.p2p.InProcessRankContext;
import org.mpfl.runtime.p2p.MessagingSettings;
import org.mpfl.runtime.p2p.RankInstance;
import org.mpfl.runtime.topology.CollectiveCommunicator;

/**
 * The site-aware hierarchical collectives over the real point-to-point runtime: four hosts in one JVM
 * (loopback TCP between them), hosts 0 and 1 in site A, hosts 2 and 3 in site B, one rank per host.
 * The inter-site messages are counted from the ranks' own traffic counters (per destination site), and
 * the results are compared with the flat algorithms' — bit for bit where the reduction order is the
 * same (sites of contiguous ranks), with the documented order otherwise.
 */
@Timeout(120)
class SiteCollectivesTest {
    private static InProcessCluster cluster;
    /** Ranks 0,1 in site A and 2,3 in site B. */
    private static final int[] CONTIGUOUS = {0, 1, 2, 3};
    /** Ranks 0,2 in site A and 1,3 in site B: a flat algorithm's neighbours are in different sites. */
    private static final int[] INTERLEAVED = {0, 2, 1, 3};

    @BeforeAll
    static void start() {
        cluster = InProcessCluster.start(4, MessagingSettings.fromSystemProperties()).withSites("A", "A", "B", "B");
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    /** One rank's result and the messages it sent to ranks of other sites during the collective. */
    private record Outcome(Object result, long interSite) {
    }

    private static Outcome[] run(int[] hostOfRank, Function<Communicator, Object> collective) {
        InProcessCluster.Run run = cluster.run(hostOfRank, "auto", Map.of(), ctx -> {
            RankInstance me = ((InProcessRankContext) ctx).rankInstance();
            List<Endpoint> endpoints = me.endpoints();
            String mySite = endpoints.get(me.rank()).site();
            Communicator world = CollectiveCommunicator.world(me);
            Map<String, Long> before = me.counters().messagesBySite(endpoints);
            Object result = collective.apply(world);
            Map<String, Long> after = me.counters().messagesBySite(endpoints);
            long inter = 0;
            for (Map.Entry<String, Long> e : after.entrySet()) {
                if (!e.getKey().equals(mySite)) {
                    inter += e.getValue() - before.getOrDefault(e.getKey(), 0L);
                }
            }
            ctx.output("result", result == null ? "null" : result);
            ctx.output("interSite", inter);
        });
        Outcome[] out = new Outcome[hostOfRank.length];
        for (InProcessCluster.RankResult r : run.await(Duration.ofSeconds(60))) {
            if (r.failure() != null) {
                throw new AssertionError("rank " + r.rank() + " failed", r.failure());
            }
            out[r.rank()] = new Outcome(r.outputs().get("result"), (Long) r.outputs().get("interSite"));
        }
        return out;
    }

    private static long interSite(Outcome[] outcomes) {
        long n = 0;
        for (Outcome o : outcomes) {
            n += o.interSite();
        }
        return n;
    }

    /** Each rank's operand: 64 doubles of very different magnitudes, so that a different grouping shows in the bits. */
    private static double[] operand(int rank) {
        Random random = new Random(1234 + rank);
        double[] a = new double[64];
        for (int i = 0; i < a.length; i++) {
            a[i] = random.nextDouble() * Math.pow(10, random.nextInt(17) - 8);
        }
        return a;
    }

    @Test
    void hierarchicalAllreduceOverTwoSitesOfTwoRanksCrossesOncePerSiteAndDirectionAndEqualsTheFlatResultBitForBit() {
        Outcome[] hierarchical = run(CONTIGUOUS, c -> c.allreduce(operand(c.rank()), ReduceOp.SUM, "hierarchical"));
        Outcome[] flat = run(CONTIGUOUS, c -> c.allreduce(operand(c.rank()), ReduceOp.SUM, "recursive-doubling"));
        Outcome[] binomial = run(CONTIGUOUS, c -> c.allreduce(operand(c.rank()), ReduceOp.SUM, "reduce-broadcast"));
        // one leader per site: A's leader sends its site's sum to B's leader and B's to A's, nothing else crosses
        assertEquals(2, interSite(hierarchical), "inter-site messages of the hierarchical allreduce");
        // flat recursive doubling: its second step pairs 0-2 and 1-3, four messages across
        assertEquals(4, interSite(flat), "inter-site messages of flat recursive doubling");
        for (int r = 0; r < 4; r++) {
            // sites of contiguous ranks of size 2: the grouping ((a0+a1)+(a2+a3)) of the flat algorithms
            assertArrayEquals(bits((double[]) flat[r].result()), bits((double[]) hierarchical[r].result()), "rank " + r);
            assertArrayEquals(bits((double[]) binomial[r].result()), bits((double[]) hierarchical[r].result()), "rank " + r);
        }
        Outcome[] auto = run(CONTIGUOUS, c -> c.allreduce(operand(c.rank()), ReduceOp.SUM, "auto"));
        assertEquals(2, interSite(auto), "auto picks the hierarchical allreduce when the communicator spans two sites");
        assertArrayEquals(bits((double[]) hierarchical[0].result()), bits((double[]) auto[0].result()));
    }

    @Test
    void withInterleavedSitesTheHierarchicalAllreduceStillCrossesTwiceAndReducesInTheDocumentedOrder() {
        Outcome[] hierarchical = run(INTERLEAVED, c -> c.allreduce(operand(c.rank()), ReduceOp.SUM, "hierarchical"));
        Outcome[] flat = run(INTERLEAVED, c -> c.allreduce(operand(c.rank()), ReduceOp.SUM, "recursive-doubling"));
        assertEquals(2, interSite(hierarchical));
        assertEquals(4, interSite(flat), "flat recursive doubling: its first step pairs 0-1 and 2-3, across the sites");
        // the documented order: within each site by rank, then the sites in the order of their lowest rank
        double[] siteA = operand(0).clone();
        double[] siteB = operand(1).clone();
        double[] a2 = operand(2);
        double[] a3 = operand(3);
        double[] expected = new double[siteA.length];
        for (int i = 0; i < expected.length; i++) {
            siteA[i] += a2[i];
            siteB[i] += a3[i];
            expected[i] = siteA[i] + siteB[i];
        }
        for (int r = 0; r < 4; r++) {
            assertArrayEquals(bits(expected), bits((double[]) hierarchical[r].result()), "rank " + r);
        }
        // integers are associative: the flat and the hierarchical results are the same whatever the order
        Outcome[] exactH = run(INTERLEAVED, c -> c.allreduce(new long[] {c.rank() + 1L, 1L << (10 * c.rank())}, ReduceOp.SUM,
                "hierarchical"));
        Outcome[] exactF = run(INTERLEAVED, c -> c.allreduce(new long[] {c.rank() + 1L, 1L << (10 * c.rank())}, ReduceOp.SUM,
                "recursive-doubling"));
        for (int r = 0; r < 4; r++) {
            assertArrayEquals(new long[] {10, 1 + (1L << 10) + (1L << 20) + (1L << 30)}, (long[]) exactH[r].result());
            assertArrayEquals((long[]) exactF[r].result(), (long[]) exactH[r].result());
        }
    }

    @Test
    void hierarchicalBroadcastReduceAndBarrierCrossBetweenTheSitesOnlyBetweenTheirLeaders() {
        for (int root : new int[] {0, 3}) {
            Outcome[] bcast = run(INTERLEAVED, c -> c.bcast(c.rank() == root ? operand(root) : null, root, "hierarchical"));
            assertEquals(1, interSite(bcast), "broadcast from " + root + ": the root sends once to the other site's leader");
            for (Outcome o : bcast) {
                assertArrayEquals(bits(operand(root)), bits((double[]) o.result()));
            }
            Outcome[] reduce = run(INTERLEAVED, c -> c.reduce(new long[] {c.rank() + 1L}, ReduceOp.SUM, root, "hierarchical"));
            assertEquals(1, interSite(reduce), "reduce to " + root + ": the other site's leader sends its site's sum once");
            assertArrayEquals(new long[] {10}, (long[]) reduce[root].result());
        }
        Outcome[] barrier = run(INTERLEAVED, c -> {
            c.barrier();
            return null;
        });
        assertEquals(2, interSite(barrier), "auto barrier over two sites: one signal each way between the leaders");
    }

    private static long[] bits(double[] a) {
        long[] out = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = Double.doubleToRawLongBits(a[i]);
        }
        return out;
    }
}
