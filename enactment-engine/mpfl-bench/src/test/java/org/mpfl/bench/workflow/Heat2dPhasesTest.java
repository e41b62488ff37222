package org.mpfl.bench.workflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class Heat2dPhasesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A trace of two ranks: a setup compute, then per iteration a sendrecv, a sweep and an allreduce. */
    private static ObjectNode trace(int iterations, long iterationUs, long sweepUs) {
        ObjectNode trace = JSON.createObjectNode();
        ArrayNode events = trace.putArray("traceEvents");
        for (int pid = 1; pid <= 2; pid++) {
            events.add(span(pid, 1, "compute jacobi:setup", 0, 500));
            events.add(JSON.createObjectNode().put("ph", "M").put("pid", pid).put("name", "process_name"));
            for (int i = 0; i < iterations; i++) {
                long start = 1000 + i * iterationUs;
                events.add(span(pid, 1, "sendrecv", start, 20));
                events.add(span(pid, 1, "compute jacobi:sweep", start + 30, sweepUs));
                events.add(span(pid, 1, "allreduce", start + 40 + sweepUs, 100));
                events.add(span(pid, 0, "sampled", start, iterationUs)); // the sampled lane: not an operation
            }
        }
        events.add(span(0, 1, "run", 0, 1_000_000)); // the run itself
        return trace;
    }

    private static ObjectNode span(int pid, int tid, String name, long ts, long dur) {
        return JSON.createObjectNode().put("ph", "X").put("pid", pid).put("tid", tid).put("name", name).put("ts", ts).put("dur", dur);
    }

    @Test
    void steadyIterationIsTheIntervalBetweenSweepsAndEachOperationHasItsMedian() {
        Heat2dPhases p = Heat2dPhases.of(trace(50, 1200, 300), 10);
        assertEquals(1200.0, p.iterationUs(), 1e-9);
        assertEquals(300.0, p.medianUs().get("compute"), 1e-9);
        assertEquals(20.0, p.medianUs().get("sendrecv"), 1e-9);
        assertEquals(100.0, p.medianUs().get("allreduce"), 1e-9);
        assertEquals(3, p.medianUs().size(), p.medianUs().toString());
    }

    @Test
    void tooFewIterationsGiveNone() {
        assertNull(Heat2dPhases.of(trace(5, 1200, 300), 10));
    }
}
