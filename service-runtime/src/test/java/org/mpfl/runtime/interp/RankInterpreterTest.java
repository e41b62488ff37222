package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.ir.plan.RuntimeBinding;

/** Every activity kind, run by the interpreter on in-process ranks (documents in src/test/resources/interp). */
@Timeout(120)
class RankInterpreterTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    @Test
    void generatedServicesNameTheInterpreter() {
        assertEquals(InterpreterService.class.getName(), RuntimeBinding.INTERPRETER_CLASS);
    }

    // The outputs of control, p2p, collectives, mpmd, compute and parallel (with their defaults) are
    // written in the documents as <!-- run: ... --> comments and checked by InterpreterFixturesTest.
    // What such a comment cannot say stays here.

    @Test
    void logsAndProgress() {
        InterpreterHarness.Result r = InterpreterHarness.run("control.mpfl.xml", Map.of(), LIMIT).succeeded();
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

    /** The JSON form of an output does not tell an int from a long; the values themselves are in the documents. */
    @Test
    void javaTypesOfOutputs() {
        assertEquals(30L, InterpreterHarness.run("control.mpfl.xml", Map.of(), LIMIT).succeeded().output("sum", 0), "a long variable");
        assertEquals(7L, InterpreterHarness.run("p2p.mpfl.xml", Map.of(), LIMIT).succeeded().output("widened", 1),
                "an int received into a long widens");
        InterpreterHarness.Result collectives = InterpreterHarness.run("collectives.mpfl.xml", Map.of(), LIMIT).succeeded();
        for (int rank = 0; rank < 4; rank++) {
            assertArrayEquals(new long[] {6, 4}, (long[]) collectives.output("vector", rank));
            assertTrue(collectives.output("piece", rank) instanceof int[]);
        }
    }

    @Test
    void computeLogsItsInstanceAndCallCount() {
        InterpreterHarness.Result r = InterpreterHarness.run("compute.mpfl.xml", Map.of(), LIMIT).succeeded();
        assertTrue(r.rank(1).logs.contains("info: rank 1/2 process rank 1/2 call 3 scale 2.0"), r.rank(1).logs.toString());
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
}
