package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.IrWorkflow;
import org.mpfl.protocol.FaultKind;
import org.mpfl.protocol.RunRequest;

/**
 * Section 7: a fault on one rank fails it with its activity, source location and cause, and the
 * domain abort that follows ends every other rank promptly — none is left blocked.
 */
@Timeout(120)
class RankFaultTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "divide  | assign                                                   | faults.mpfl.xml:17:34 | integer division by zero",
        "index   | assign                                                   | faults.mpfl.xml:19:36 | index 6 out of range for length 2",
        "store   | assign                                                   | faults.mpfl.xml:22:" + "        | index -1 out of range for length 2",
        "fail    | fail                                                     | faults.mpfl.xml:25:9  | rank 1 gives up",
        "throw   | compute org.mpfl.runtime.interp.activities.Misbehave     | faults.mpfl.xml:29:9  | the solver diverged at step 7",
        "type    | compute org.mpfl.runtime.interp.activities.Misbehave     | faults.mpfl.xml:29:"  + "       | output 'result' of org.mpfl.runtime.interp.activities.Misbehave of type string does not fit variable 'result' of type double",
        "missing | compute org.mpfl.runtime.interp.activities.Misbehave     | faults.mpfl.xml:29:9  | did not return output 'result'",
        "recurse | compute org.mpfl.runtime.interp.activities.Misbehave     | faults.mpfl.xml:29:9  | failed: java.lang.StackOverflowError",
        "assert  | compute org.mpfl.runtime.interp.activities.Misbehave     | faults.mpfl.xml:29:9  | failed: java.lang.AssertionError: the mesh has no cells",
        "heap    | compute org.mpfl.runtime.interp.activities.Misbehave     | faults.mpfl.xml:29:9  | give the host a larger one (-Xmx",
        "class   | compute org.mpfl.runtime.interp.activities.NoSuchActivity | faults.mpfl.xml:32:9 | is not in the workflow's libraries",
    })
    void aFaultFailsItsRankWithLocationAndAbortsTheOthersPromptly(String fault, String activity, String location,
                                                                   String message) {
        InterpreterHarness.Result r = InterpreterHarness.run("faults.mpfl.xml", Map.of("fault", fault), LIMIT);
        assertFalse(r.timedOut(), "every rank ended by itself");
        RankFault f = r.singleFault();
        assertEquals(1, r.faultingRank());
        assertEquals(activity.strip(), f.activity());
        assertTrue(f.location().startsWith(location.strip()), f.location() + " should start with " + location);
        assertTrue(f.getMessage().contains(message.strip()), f.getMessage());
        assertEquals(FaultKind.WORKFLOW, f.fault(), "the workflow's fault: " + f.getMessage());
        long faultEnd = r.rank(1).endedNanos;
        for (int rank : new int[] {0, 2}) {
            InterpreterHarness.RankRecord other = r.rank(rank);
            assertTrue(other.aborted(), "rank " + rank + " was aborted: " + other.failure);
            long lag = TimeUnit.NANOSECONDS.toMillis(other.endedNanos - faultEnd);
            // the point: the abort ends them, not their receive's timeout (30 s); usually within 100 ms,
            // 10 s holds on a loaded 2-core machine
            assertTrue(lag < 10_000, "rank " + rank + " ended " + lag + " ms after the fault");
        }
    }

    @Test
    void aThrowingJavaActivityNamesItsSourceFileAndLine() {
        RankFault f = InterpreterHarness.run("faults.mpfl.xml", Map.of("fault", "throw"), LIMIT).singleFault();
        assertTrue(f.getMessage().startsWith("activity org.mpfl.runtime.interp.activities.Misbehave failed:"
                + " java.lang.IllegalStateException: the solver diverged at step 7"
                + "\n\tat org.mpfl.runtime.interp.activities.Misbehave.execute(Misbehave.java:16)"), f.getMessage());
        assertFalse(f.getMessage().contains("org.mpfl.runtime.interp.ComputeStep"), "the interpreter's frames are left out: "
                + f.getMessage());
    }

    @Test
    void aRunawayRecursionInAJavaActivityIsItsFaultWithItsFramesCut() {
        // before: a StackOverflowError went past the activity's fault handling and the host printed the JVM's 1,024 frames
        RankFault f = InterpreterHarness.run("faults.mpfl.xml", Map.of("fault", "recurse"), LIMIT).singleFault();
        String[] lines = f.getMessage().split("\n");
        assertTrue(lines.length <= ActivityTrace.MAX_FRAMES + 2, lines.length + " lines: " + f.getMessage());
        assertEquals("\tat org.mpfl.runtime.interp.activities.Misbehave.depth(Misbehave.java:28)", lines[1], f.getMessage());
        assertTrue(lines[lines.length - 1].matches("\t\\.\\.\\. \\d+ more"), f.getMessage());
    }

    /**
     * A step of the document that runs out of heap (a kernel's output array, a copy of a large variable) fails its rank
     * at the step, saying how large the heap is and where a larger one is given; before, the error went past the
     * interpreter's faults and the host printed the JVM's trace. (The interpreter catches it in Executor.execute: a real
     * exhaustion of the test JVM's heap would take gigabytes, so the mapping is what is tested here.)
     */
    @Test
    void runningOutOfHeapIsAFaultAtTheStepNamingTheHeapAndTheRemedy() {
        RuntimeException f = Faults.at("compute", new org.mpfl.ir.diag.SourceLocation("big.mpfl.xml", 11, 7),
                new OutOfMemoryError("Java heap space"));
        RankFault fault = assertInstanceOf(RankFault.class, f);
        assertEquals("big.mpfl.xml:11:7", fault.location());
        assertTrue(fault.getMessage().startsWith("out of memory (OutOfMemoryError: Java heap space): this host's Java heap"
                + " holds at most " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB;"), fault.getMessage());
        assertTrue(fault.getMessage().contains("MPFL_JAVA_OPTS") && fault.getMessage().contains("MPFL_HOST_JAVA_OPTS"),
                fault.getMessage());
    }

    // without a fault the run goes through: faults.mpfl.xml's <!-- run: --> comment (InterpreterFixturesTest)

    @Test
    void receiveTimeoutIsAClearFault() {
        long start = System.nanoTime();
        InterpreterHarness.Result r = InterpreterHarness.run("timeout.mpfl.xml", Map.of("timeout", "300"), LIMIT);
        assertFalse(r.timedOut());
        RankFault f = r.singleFault();
        assertEquals(0, r.faultingRank());
        assertEquals("receive", f.activity());
        assertTrue(f.location().startsWith("timeout.mpfl.xml:11:7"), f.location());
        assertTrue(f.getMessage().startsWith("timed out: no message from rank 1 with tag 4 arrived on communicator world within 300 ms"),
                f.getMessage());
        assertTrue(r.rank(1).aborted(), "rank 1, blocked in a receive nobody serves, was aborted");
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 10_000);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "object | 19 | received value (from rank 0 tag 0) of type object (java.util. | does not fit variable 'number' of type int",
        "array  | 22 | received value (from rank 0 tag 0) of type int[]               | does not fit variable 'doubles' of type double[]",
    })
    void receivedValueOfTheWrongTypeIsAFault(String what, int line, String start, String end) {
        InterpreterHarness.Result r = InterpreterHarness.run("mismatch.mpfl.xml", Map.of("what", what), LIMIT);
        RankFault f = r.singleFault();
        assertEquals(1, r.faultingRank());
        assertEquals("receive", f.activity());
        assertTrue(f.location().startsWith("mismatch.mpfl.xml:" + line + ":"), f.location());
        assertTrue(f.getMessage().startsWith(start.strip()), f.getMessage());
        assertTrue(f.getMessage().endsWith(end.strip()), f.getMessage());
    }

    @Test
    void aParamWithoutValueOrOfTheWrongTypeIsAFault() {
        IrWorkflow w = InterpreterHarness.compile("invoke.mpfl.xml", Map.of("endpoint", "http://localhost:1/")).workflow();
        InterpretedProgram program = InterpretedProgram.of(w, "client", getClass().getClassLoader());
        RankFault missing = assertThrows(RankFault.class, () -> program.typedParams(Map.of()));
        assertTrue(missing.getMessage().contains("param 'endpoint' has no value"), missing.getMessage());
        IrWorkflow c = InterpreterHarness.compile("control.mpfl.xml", Map.of()).workflow();
        InterpretedProgram control = InterpretedProgram.of(c, "solo", getClass().getClassLoader());
        RankFault wrong = assertThrows(RankFault.class, () -> control.typedParams(Map.of("n", "many")));
        assertEquals("param 'n' must be int, got 'many'", wrong.getMessage());
        assertEquals(7, control.typedParams(Map.of("n", 7L)).get("n"));
        assertEquals(7, control.typedParams(Map.of("n", 7.0)).get("n"));
    }

    @Test
    void aRankInsideALongComputeStopsWhenTheDomainIsAborted() {
        InterpreterHarness.Result r = InterpreterHarness.run("slowcompute.mpfl.xml", Map.of(), LIMIT);
        assertFalse(r.timedOut());
        assertEquals(1, r.faultingRank());
        assertTrue(r.rank(0).aborted(), "rank 0 ends as aborted, not faulted: " + r.rank(0).failure);
        long lag = TimeUnit.NANOSECONDS.toMillis(r.rank(0).endedNanos - r.rank(1).endedNanos);
        // the point: the abort stops the compute, which would sleep 30 s; 10 s holds on a loaded 2-core machine
        assertTrue(lag < 10_000, "rank 0 left its compute " + lag + " ms after the fault");
    }

    /**
     * The compiler rejects an algorithm its operation lacks, so the IR here is changed after checking,
     * as a plan written by another compiler version or by hand could carry it: the runtime still fails
     * the rank with the table's names instead of running some other algorithm.
     */
    @Test
    void anAlgorithmTheRuntimeLacksIsAFaultNamingTheKnownOnes() {
        IrWorkflow checked = InterpreterHarness.compile("algorithm.mpfl.xml", Map.of()).workflow();
        IrProcess team = checked.processes().get(0);
        List<IrActivity> body = team.body().stream().map(a -> a instanceof IrActivity.Allreduce x
                ? new IrActivity.Allreduce(x.data(), x.op(), x.into(), x.comm(), "telepathy", x.at()) : a).toList();
        IrProcess forged = new IrProcess(team.name(), team.service(), team.ranks(), team.variables(), team.communicators(),
                team.requests(), body, team.at());
        IrWorkflow workflow = new IrWorkflow(checked.name(), checked.version(), checked.description(), checked.sourceFile(),
                checked.libraries(), checked.params(), List.of(forged), checked.at(), checked.restarts());
        InterpreterHarness.Result r = InterpreterHarness.run(workflow,
                List.of(new RunRequest.ProcessSlice(team.name(), team.service(), 2)), Map.of(), LIMIT);
        assertFalse(r.timedOut());
        RankFault f = r.anyFault();
        assertEquals("allreduce", f.activity());
        assertEquals("algorithm.mpfl.xml:6:5", f.location());
        assertTrue(f.getMessage().startsWith("unknown allreduce algorithm 'telepathy' (known: auto, "), f.getMessage());
    }
}
