package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.RankEvent;

/**
 * MPFL documents run end to end as a user runs them ({@code mpflc run DOC … --json}), the same cases wherever the
 * ranks run ({@link #where}): {@link MpflDocumentRunTest} on two service-host child processes of an engine,
 * {@link InProcessDocumentRunTest} with {@code run --local}. The same assertions pass on both: the two paths have
 * the same semantics.
 */
abstract class DocumentRunCases extends DocumentRuns {

    @Test
    void everyKindOfActivity() throws Exception {
        Result r = run("everything", EverythingDocument.PARAMS);
        assertEquals("SUCCEEDED", r.state(), r.err());
        assertEquals(0, r.exit());
        EverythingDocument.assertOutputs(r.json().get("outputs"));
    }

    @Test
    void logLinesArePrintedAsTheyComeEachOnceInTheirRanksOrder() throws Exception {
        Result r = runShown("logging");
        assertEquals(0, r.exit(), r.err());
        for (int rank = 0; rank < 2; rank++) {
            int previous = -1;
            for (int i = 0; i < 3; i++) {
                String line = "rank " + rank + ": step " + i + " of rank " + rank + "\n";
                int at = r.err().indexOf(line);
                assertTrue(at > previous, "'" + line.strip() + "' after the rank's line before it: " + r.err());
                assertEquals(at, r.err().lastIndexOf(line), "printed once: " + r.err());
                previous = at;
            }
        }
        assertTrue(r.err().contains("rank 1 WARN: rank 1 is done\n"), "a level other than info is named: " + r.err());
        assertTrue(r.err().indexOf("rank 1 WARN") < r.err().indexOf("SUCCEEDED"), "before the run's end: " + r.err());
    }

    @Test
    void aFaultingRankFailsTheRunQuicklyWithRankLocationAndMessage() throws Exception {
        long start = System.nanoTime();
        Result r = run("failing");
        assertEquals("FAILED", r.state(), r.err());
        assertEquals(1, r.exit());
        JsonNode e = r.json().get("error");
        assertEquals(1, e.get("rank").asInt(), e.toString());
        // locations name the document as the user gave it (here an absolute path), like diagnostics
        assertTrue(e.get("location").asText().endsWith(location("failing", "/ divisor")), e.toString());
        assertEquals("integer division by zero", e.get("message").asText());
        // the compiler saw it coming: its warning, as mpflc check prints it, before the run went ahead
        assertTrue(r.err().contains(location("failing", "/ divisor") + ": warning: with these param values the run fails"
                + " here (integer division by zero)"), r.err());
        assertTrue(r.json().get("elapsedMs").asLong() < 15_000, "failed within seconds: " + r.json());
        assertTrue(System.nanoTime() - start < 60_000_000_000L);
    }

    /**
     * A fault's message of 12.6 million characters (a kernel's exception holding a whole array, say) reaches the run's
     * error, the engine's store and the terminal cut to {@link RankEvent#MAX_MESSAGE_CHARS}, its start and end kept;
     * before, all of it went everywhere.
     */
    @Test
    void aHugeFaultMessageIsCutInTheMiddleKeepingItsStartAndEnd() throws Exception {
        Result r = run("loud");
        assertEquals("FAILED", r.state(), r.err());
        String message = r.json().at("/error/message").asText();
        assertTrue(message.length() <= RankEvent.MAX_MESSAGE_CHARS, "cut: " + message.length() + " characters");
        assertTrue(message.startsWith("start:start:"), message.substring(0, 40));
        assertTrue(message.endsWith("start:start:end"), message.substring(message.length() - 40));
        assertTrue(message.matches("(?s).*\\n\\[\\.\\.\\. \\d{8} characters left out \\.\\.\\.\\]\\n.*"),
                "says how much was left out, once");
        assertTrue(r.err().length() < 4 * RankEvent.MAX_MESSAGE_CHARS, "the output is bounded too: " + r.err().length());
    }

    @Test
    void aRuntimeDeadlockIsReportedWithItsCycle() throws Exception {
        Result r = run("deadlock");
        assertEquals("FAILED", r.state(), r.err());
        String message = r.json().at("/error/message").asText();
        String at = location("deadlock", "<receive from=\"partner\"");
        assertTrue(message.startsWith("deadlock: "), message);
        assertTrue(message.contains("rank 0 waits for rank 1 at " + dir.resolve(at)), message);
        assertTrue(message.contains("rank 1 waits for rank 0 at " + dir.resolve(at)), message);
    }

    @Test
    void aReceiveTimeoutIsAClearError() throws Exception {
        Result r = run("timeout");
        assertEquals("FAILED", r.state(), r.err());
        JsonNode e = r.json().get("error");
        assertEquals(0, e.get("rank").asInt());
        assertTrue(e.get("location").asText().endsWith(location("timeout", "<receive")), e.toString());
        assertTrue(e.get("message").asText().startsWith("timed out: no message from rank 1 with tag 0 arrived on communicator world within 500 ms"),
                e.toString());
    }

    @Test
    void invokeCallsAnExternalSoapService() throws Exception {
        Result r = run("invoke", "endpoint=http://127.0.0.1:" + soap.getAddress().getPort() + "/echo");
        assertEquals("SUCCEEDED", r.state(), r.err());
        assertEquals("<r xmlns=\"urn:r\">echo 0</r>", r.json().at("/outputs/reply/0").asText());
        assertEquals("<r xmlns=\"urn:r\">echo 1</r>", r.json().at("/outputs/reply/1").asText());
    }

    @Test
    void twoRunsOfOneDocumentAtOnce() throws Exception {
        var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            var a = pool.submit(() -> run("everything", "base=1"));
            var b = pool.submit(() -> run("everything", "base=2"));
            Result ra = a.get();
            Result rb = b.get();
            assertEquals("SUCCEEDED", ra.state(), ra.err());
            assertEquals("SUCCEEDED", rb.state(), rb.err());
            assertEquals(2, ra.json().at("/outputs/y/0").asInt());
            assertEquals(4, rb.json().at("/outputs/y/0").asInt());
        } finally {
            pool.shutdownNow();
        }
    }
}
