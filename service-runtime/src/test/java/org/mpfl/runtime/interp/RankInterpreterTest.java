package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.compiler.plan.RuntimeBinding;

/** Every activity kind, run by the interpreter on in-process ranks (documents in src/test/resources/interp). */
@Timeout(120)
class RankInterpreterTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    @Test
    void generatedServicesNameTheInterpreter() {
        assertEquals(InterpreterService.class.getName(), RuntimeBinding.INTERPRETER_CLASS);
    }

    @Test
    void controlFlowAndValues() {
        InterpreterHarness.Result r = InterpreterHarness.run("control.mpfl.xml", Map.of(), LIMIT).succeeded();
        assertEquals(100, r.output("a0", 0));
        assertEquals(0, r.output("b0", 0), "assignment copies arrays");
        assertEquals(0L + 1 + 4 + 9 + 16, r.output("sum", 0));
        assertEquals("10 7 4 1 ", r.output("down", 0));
        assertEquals("medium", r.output("kind", 0));
        assertArrayEquals(new double[] {1, 20, 3}, (double[]) r.output("d", 0));
        assertEquals(0 + 1 + 2, r.output("left", 0));
        assertEquals(40, r.output("right", 0));
        assertEquals("run", r.output("label", 0));
        assertEquals(List.of("warn: run: sum is 30", "info: [0, 1, 4, 9, 16]"), r.rank(0).logs);
        assertArrayEquals(new double[] {3, 4}, r.rank(0).progress.get(0));
    }

    @Test
    void paramsComeTypedFromTexts() {
        InterpreterHarness.Result r = InterpreterHarness.run("control.mpfl.xml", Map.of("n", "3", "label", "x"), LIMIT)
                .succeeded();
        assertEquals(0L + 1 + 4, r.output("sum", 0));
        assertEquals("small", r.output("kind", 0));
        assertEquals("x", r.output("label", 0));
    }

    @Test
    void pointToPoint() {
        InterpreterHarness.Result r = InterpreterHarness.run("p2p.mpfl.xml", Map.of(), LIMIT).succeeded();
        int size = 4;
        assertEquals(6, r.output("token", 0));
        assertEquals(6, r.output("sumSources", 0));
        for (int rank = 0; rank < size; rank++) {
            int prev = (rank + size - 1) % size;
            int next = (rank + 1) % size;
            if (rank > 0) {
                assertEquals(rank * (rank - 1) / 2, r.output("token", rank));
            }
            assertArrayEquals(new double[] {prev, prev}, (double[]) r.output("fromLeft", rank));
            assertArrayEquals(new double[] {next, next, next}, (double[]) r.output("fromRight", rank));
            assertArrayEquals(new int[] {prev}, (int[]) r.output("viaRequests", rank));
            assertEquals(next, r.output("fromNextTag6", rank));
            assertEquals(42, r.output("untouched", rank), "a receive from -1 leaves its variable alone");
            assertEquals(-1, r.output("nullSrc", rank), "the source of a receive from -1 is -1");
        }
        assertEquals("hello", r.output("sync", 1));
        assertEquals(7L, r.output("widened", 1), "an int received into a long widens");
    }

    @Test
    void collectivesSplitAndCartesian() {
        InterpreterHarness.Result r = InterpreterHarness.run("collectives.mpfl.xml", Map.of(), LIMIT).succeeded();
        int[][] pieces = {{0, 1, 2}, {3, 4}, {5, 6}, {7, 8}};
        for (int rank = 0; rank < 4; rank++) {
            assertArrayEquals(new double[] {1.5, 2.5}, (double[]) r.output("shared", rank));
            assertArrayEquals(pieces[rank], (int[]) r.output("piece", rank));
            assertArrayEquals(new int[] {0, 1, 2, 3}, (int[]) r.output("everyone", rank));
            assertEquals("[r0, r1, r2, r3]", r.output("names", rank));
            assertArrayEquals(new int[] {0, 1, 2, 3}, (int[]) r.output("swapped", rank));
            assertEquals(3.0, r.output("maxRank", rank));
            assertArrayEquals(new long[] {6, 4}, (long[]) r.output("vector", rank));
            assertEquals(rank * (rank + 1) / 2, r.output("prefix", rank));
            assertEquals(true, r.output("allTrue", rank));
            assertEquals(7, r.output("bits", rank));
            assertEquals(rank % 2 == 0 ? 2 : 4, r.output("halfSum", rank));
            assertEquals(rank < 2 ? 1 : 0, r.output("halfRank", rank), "key -rank reverses the order");
            assertArrayEquals(new int[] {rank}, (int[]) r.output("gridCoords", rank));
            assertEquals((rank + 3) % 4, r.output("fromWest", rank));
        }
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8}, (int[]) r.output("gathered", 1));
        assertArrayEquals(new int[0], (int[]) r.output("gathered", 0), "gather writes into the root only");
        assertEquals(24, r.output("total", 0));
        assertEquals(0, r.output("total", 1), "reduce writes into the root only");
    }

    @Test
    void mpmdProcessesAndPartialGrid() {
        InterpreterHarness.Result r = InterpreterHarness.run("mpmd.mpfl.xml", Map.of(), LIMIT).succeeded();
        assertArrayEquals(new int[] {0, 100, 200, 300}, (int[]) r.output("results", 0));
        assertEquals(3, r.output("workers", 0));
        for (int w = 0; w < 3; w++) {
            int rank = 1 + w;
            assertEquals(w * 2, r.output("task", rank));
            assertEquals(w, r.output("prank", rank));
            assertEquals(3, r.output("psize", rank));
            assertEquals(6, r.output("sum", rank));
            assertEquals(w, r.output("workerRank", rank));
            assertEquals(w < 2 ? w : -1, r.output("inGrid", rank));
            assertEquals(w < 2 ? 2 : -1, r.output("gridSize", rank));
        }
    }

    @Test
    void computeKeepsOneInstancePerSiteAndUpdatesArraysInPlace() {
        InterpreterHarness.Result r = InterpreterHarness.run("compute.mpfl.xml", Map.of(), LIMIT).succeeded();
        for (int rank = 0; rank < 2; rank++) {
            assertArrayEquals(new double[] {16, 32, 48}, (double[]) r.output("values", rank));
            assertEquals(84.0, r.output("total", rank));
            assertEquals(3, r.output("calls", rank));
            assertEquals(1, r.output("otherCalls", rank));
        }
        assertTrue(r.rank(1).logs.contains("info: rank 1/2 process rank 1/2 call 3 scale 2.0"), r.rank(1).logs.toString());
    }

    @Test
    void parallelBranchesRunConcurrently() {
        InterpreterHarness.Result r = InterpreterHarness.run("parallel.mpfl.xml", Map.of(), LIMIT).succeeded();
        assertEquals(101, r.output("got", 0));
        assertEquals(100, r.output("got", 1));
        assertEquals(10, r.output("counted", 0));
    }

    @Test
    void waitEventsNameWhatABlockedRankWaitsFor() {
        InterpreterHarness.Result r = InterpreterHarness.run("deadlock.mpfl.xml", Map.of(), Duration.ofSeconds(2));
        assertTrue(r.timedOut(), "both ranks receive first: nothing can end this run but an abort");
        for (int rank = 0; rank < 2; rank++) {
            InterpreterHarness.RankRecord rec = r.rank(rank);
            assertTrue(rec.aborted(), "rank " + rank + ": " + rec.failure);
            String wait = rec.events.stream().filter(e -> e.startsWith("WAIT")).findFirst().orElse(null);
            assertEquals("WAIT receive @ deadlock.mpfl.xml:11:7: receive from " + (1 - rank) + " tag 0 comm world", wait,
                    rec.events.toString());
            assertEquals(1, rec.events.stream().filter(e -> e.startsWith("WAIT")).count(), "one WAIT while blocked");
        }
    }

    @Test
    void theZeroOfObjectIsNull() {
        InterpreterHarness.Result r = InterpreterHarness.run("control.mpfl.xml", Map.of(), LIMIT).succeeded();
        assertTrue(r.rank(0).outputs.containsKey("nullObject"));
        assertNull(r.output("nullObject", 0));
    }
}
