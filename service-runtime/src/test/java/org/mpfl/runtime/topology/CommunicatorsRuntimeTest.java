package org.mpfl.runtime.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.RunRequest;
import org.mpfl.runtime.api.CartesianCommunicator;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.Message;
import org.mpfl.runtime.api.ReduceOp;
import org.mpfl.runtime.collective.RuntimeRanks;
import org.mpfl.runtime.p2p.InProcessCluster;
import org.mpfl.runtime.p2p.InProcessRankContext;
import org.mpfl.runtime.p2p.MessagingSettings;

/** split, dup, cartesian, process communicators and isolation, over the real runtime on two hosts (local + binary transports). */
class CommunicatorsRuntimeTest {
    private static InProcessCluster cluster;

    @BeforeAll
    static void start() {
        cluster = InProcessCluster.start(2, MessagingSettings.fromSystemProperties());
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static Object[] run(int p, Function<Communicator, Object> body) {
        return RuntimeRanks.run(cluster, RuntimeRanks.roundRobin(p, 2), "auto", Duration.ofSeconds(60), body);
    }

    @Test
    void splitWithKeysThatReverseTheOrder() {
        for (int p = 1; p <= 9; p++) {
            int size = p;
            run(p, world -> {
                int me = world.rank();
                Communicator half = world.split("half", me % 2, -me);
                // members of my colour in decreasing world rank
                int count = 0;
                int position = 0;
                for (int r = size - 1; r >= 0; r--) {
                    if (r % 2 == me % 2) {
                        if (r == me) {
                            position = count;
                        }
                        count++;
                    }
                }
                assertEquals(count, half.size());
                assertEquals(position, half.rank());
                assertEquals("half", half.name());
                int[] members = (int[]) half.allgather(me, "auto");
                for (int i = 1; i < members.length; i++) {
                    assertTrue(members[i] < members[i - 1], "ordered by key (reversed)");
                }
                assertEquals(me % 2 == 0 ? evenSum(size) : oddSum(size), half.allreduce(me, ReduceOp.SUM, "auto"));
                // the highest world rank of my colour is rank 0 of the new communicator
                assertEquals(members[0], half.bcast(me, 0, "auto"));
                Communicator none = world.split("none", me == 0 ? -1 : 1, 0);
                if (me == 0) {
                    assertNull(none);
                } else {
                    assertEquals(size - 1, none.size());
                    assertEquals(me - 1, none.rank());
                }
                return "ok";
            });
        }
    }

    private static int evenSum(int p) {
        int s = 0;
        for (int r = 0; r < p; r += 2) {
            s += r;
        }
        return s;
    }

    private static int oddSum(int p) {
        int s = 0;
        for (int r = 1; r < p; r += 2) {
            s += r;
        }
        return s;
    }

    @Test
    void dupAndParentNeverMixUserOrCollectiveMessages() {
        run(4, world -> {
            int me = world.rank();
            Communicator dup = world.dup("copy");
            Communicator dup2 = dup.dup("copy-of-copy");
            assertEquals(world.size(), dup.size());
            assertEquals(me, dup.rank());
            if (me == 0) {
                world.send("on world", 1, 5);
                dup.send("on dup", 1, 5);
                dup2.send("on dup2", 1, 5);
            } else if (me == 1) {
                // receive in the opposite order, with wildcards: each communicator only sees its own message
                assertEquals("on dup2", dup2.recv(Communicator.ANY_SOURCE, Communicator.ANY_TAG).value());
                assertEquals("on dup", dup.recv(Communicator.ANY_SOURCE, Communicator.ANY_TAG).value());
                assertEquals("on world", world.recv(Communicator.ANY_SOURCE, Communicator.ANY_TAG).value());
            }
            // collectives on different communicators in different orders on different ranks
            Object a;
            Object b;
            if (me % 2 == 0) {
                a = world.bcast(me == 0 ? "world from 0" : null, 0, "auto");
                b = dup.bcast(me == 3 ? "dup from 3" : null, 3, "auto");
            } else {
                b = dup.bcast(me == 3 ? "dup from 3" : null, 3, "auto");
                a = world.bcast(me == 0 ? "world from 0" : null, 0, "auto");
            }
            assertEquals("world from 0", a);
            assertEquals("dup from 3", b);
            // a user wildcard receive never takes a collective's message
            if (me == 2) {
                world.send(new int[] {42}, 3, 9);
            }
            double[] sum = (double[]) world.allreduce(new double[] {me, 1}, ReduceOp.SUM, "auto");
            assertArrayEquals(new double[] {6, 4}, sum);
            if (me == 3) {
                Message m = world.recv(Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                assertEquals(2, m.source());
                assertEquals(9, m.tag());
                assertArrayEquals(new int[] {42}, (int[]) m.value());
            }
            return "ok";
        });
    }

    @Test
    void cartesianGridsPeriodicAndNot() {
        for (int[] dims : new int[][] {{2, 3}, {3, 3}}) {
            for (boolean periodic : new boolean[] {false, true}) {
                int p = dims[0] * dims[1];
                run(p, world -> {
                    CartesianCommunicator grid = world.cartesian("grid", dims, new boolean[] {periodic, periodic});
                    int me = grid.rank();
                    int[] c = grid.coords();
                    assertArrayEquals(new int[] {me / dims[1], me % dims[1]}, c);
                    assertArrayEquals(dims, grid.dims());
                    int right = grid.neighbor(1, 1);
                    int left = grid.neighbor(1, -1);
                    int down = grid.neighbor(0, 1);
                    int up = grid.neighbor(0, -1);
                    if (periodic) {
                        assertEquals(c[0] * dims[1] + (c[1] + 1) % dims[1], right);
                        assertEquals(((c[0] + dims[0] - 1) % dims[0]) * dims[1] + c[1], up);
                    } else {
                        assertEquals(c[1] + 1 < dims[1] ? me + 1 : Communicator.PROC_NULL, right);
                        assertEquals(c[0] > 0 ? me - dims[1] : Communicator.PROC_NULL, up);
                    }
                    // halo exchange: shift right and down; PROC_NULL edges need no special case
                    Message fromLeft = grid.sendrecv(me, right, 1, left, 1);
                    assertEquals(left == Communicator.PROC_NULL ? null : (Object) left, fromLeft.value());
                    Message fromUp = grid.sendrecv(me, down, 2, up, 2);
                    assertEquals(up == Communicator.PROC_NULL ? null : (Object) up, fromUp.value());
                    // rows of the grid by split, collectives on them
                    Communicator row = grid.split("row", c[0], c[1]);
                    assertEquals(dims[1], row.size());
                    assertEquals(c[1], row.rank());
                    int rowSum = (Integer) row.allreduce(me, ReduceOp.SUM, "auto");
                    int first = c[0] * dims[1];
                    assertEquals(dims[1] * first + dims[1] * (dims[1] - 1) / 2, rowSum);
                    assertEquals(p * (p - 1) / 2, grid.allreduce(me, ReduceOp.SUM, "auto"));
                    return "ok";
                });
            }
        }
    }

    @Test
    void cartesianRejectsAGridOfTheWrongSize() {
        run(4, world -> {
            assertThrows(IllegalArgumentException.class, () -> world.cartesian("g", new int[] {3, 2}, new boolean[2]));
            return "ok";
        });
    }

    @Test
    void processCommunicatorsOfAnMpmdRun() {
        List<RunRequest.ProcessSlice> processes = List.of(new RunRequest.ProcessSlice("A", "a", 2),
                new RunRequest.ProcessSlice("B", "b", 3));
        InProcessCluster.Run run = cluster.run(RuntimeRanks.roundRobin(5, 2), "auto", Map.of(), ctx -> {
            var instance = ((InProcessRankContext) ctx).rankInstance();
            CollectiveCommunicator own = CollectiveCommunicator.ownProcess(instance, processes);
            boolean inA = instance.rank() < 2;
            assertEquals(inA ? "A" : "B", own.name());
            assertEquals(inA ? 2 : 3, own.size());
            assertEquals(inA ? instance.rank() : instance.rank() - 2, own.rank());
            assertEquals(inA ? 1 : 9, own.allreduce(instance.rank(), ReduceOp.SUM, "auto"));
            assertThrows(IllegalArgumentException.class,
                    () -> CollectiveCommunicator.process(instance, processes, inA ? "B" : "A"));
            // the world still works alongside
            CollectiveCommunicator world = CollectiveCommunicator.world(instance);
            assertEquals(10, world.allreduce(instance.rank(), ReduceOp.SUM, "auto"));
        });
        for (InProcessCluster.RankResult r : run.await(Duration.ofSeconds(60))) {
            if (r.failure() != null) {
                throw new AssertionError("rank " + r.rank(), r.failure());
            }
        }
    }

    @Test
    void aCollectiveEndsPromptlyWhenAnotherRankFailsAndTheDomainIsAborted() {
        long start = System.nanoTime();
        InProcessCluster.Run run = cluster.run(RuntimeRanks.roundRobin(4, 2), "auto", Map.of(), ctx -> {
            CollectiveCommunicator world = CollectiveCommunicator.world(((InProcessRankContext) ctx).rankInstance());
            if (world.rank() == 3) {
                throw new IllegalStateException("rank 3 fails before the collectives");
            }
            world.barrier();
            world.allreduce(new double[1000], ReduceOp.SUM, "auto");
        });
        List<InProcessCluster.RankResult> results = run.await(Duration.ofSeconds(30));
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos(), "took too long to end");
        for (InProcessCluster.RankResult r : results) {
            assertTrue(r.failure() != null, "rank " + r.rank() + " should have failed");
            if (r.rank() != 3) {
                assertTrue(r.failure() instanceof org.mpfl.runtime.api.MpiwsException,
                        "rank " + r.rank() + ": " + r.failure());
            }
        }
    }

    @Test
    void twoDomainsOnTheSameHostsNeverMix() {
        int p = 6;
        Function<Integer, InProcessCluster.Run> start = offset -> cluster.run(RuntimeRanks.roundRobin(p, 2), "auto",
                Map.of(), ctx -> {
                    CollectiveCommunicator world = CollectiveCommunicator.world(((InProcessRankContext) ctx).rankInstance());
                    Communicator dup = world.dup("d");
                    for (int k = 0; k < 200; k++) {
                        double[] v = {offset + world.rank() + k};
                        double[] s = (double[]) dup.allreduce(v, ReduceOp.SUM, "auto");
                        double expected = p * (offset + k) + p * (p - 1) / 2.0;
                        if (s[0] != expected) {
                            throw new AssertionError("domain offset " + offset + " round " + k + ": " + s[0] + " != " + expected);
                        }
                        Object b = world.bcast(world.rank() == k % p ? offset + k : -1, k % p, "auto");
                        if (!b.equals(offset + k)) {
                            throw new AssertionError("domain offset " + offset + " bcast " + k + ": " + b);
                        }
                    }
                });
        InProcessCluster.Run one = start.apply(0);
        InProcessCluster.Run two = start.apply(1_000_000);
        for (InProcessCluster.Run run : List.of(one, two)) {
            for (InProcessCluster.RankResult r : run.await(Duration.ofSeconds(90))) {
                if (r.failure() != null) {
                    throw new AssertionError("rank " + r.rank(), r.failure());
                }
            }
        }
    }
}
