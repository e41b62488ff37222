package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The trace spans of a rank stay bounded however tight its loop, and leave in batches. */
class SpanRecorderTest {

    @Test
    void aTightLoopKeepsTheCapAndCountsTheRest() {
        SpanRecorder r = new SpanRecorder();
        long t = System.nanoTime();
        int kept = 0;
        int batches = 0;
        for (int i = 0; i < 100_000; i++) {
            r.record("send", "send", "a.mpfl.xml:3:5", t + i * 1000L, t + i * 1000L + 500, 1, 0, 8);
            Map<String, Object> batch = r.take(t + i * 1000L, false);
            if (batch != null) {
                batches++;
                List<?> spans = (List<?>) batch.get("spans");
                assertTrue(spans.size() <= SpanRecorder.BATCH, "a batch holds at most " + SpanRecorder.BATCH);
                kept += spans.size();
            }
        }
        Map<String, Object> last = r.take(t + 200_000_000L, true);
        kept += ((List<?>) last.get("spans")).size();
        assertEquals(SpanRecorder.MAX_SPANS, kept, "spans kept individually");
        assertTrue(batches <= SpanRecorder.MAX_SPANS / SpanRecorder.BATCH + 1, "batches: " + batches);
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Long>> dropped = (Map<String, Map<String, Long>>) last.get("dropped");
        assertEquals(100_000L - SpanRecorder.MAX_SPANS, dropped.get("send").get("count"));
        assertNull(r.take(t + 400_000_000L, true), "nothing left to send");
    }

    @Test
    void aFewSpansWaitForTheFlushInterval() {
        SpanRecorder r = new SpanRecorder();
        long t = System.nanoTime();
        r.record("compute", "compute x.Y", null, t, t + 2_000_000, -1, null, -1);
        assertNull(r.take(t + 1_000_000, false), "one span does not make a batch before the interval");
        Map<String, Object> batch = r.take(t + TimeUnit.MILLISECONDS.toNanos(SpanRecorder.FLUSH_MS), false);
        @SuppressWarnings("unchecked")
        Map<String, Object> span = ((List<Map<String, Object>>) batch.get("spans")).get(0);
        assertEquals("compute", span.get("cat"));
        assertEquals(2000L, span.get("dur"));
        assertEquals(0, span.get("lane"));
        assertTrue(!span.containsKey("peer") && !span.containsKey("bytes"), "no peer or bytes for a compute: " + span);
    }

    /** A sendrecv's span names both sides: where it sent ({@code peer}, {@code tag}) and where its message came from. */
    @Test
    void aSendrecvNamesTheRankItReceivedFrom() {
        SpanRecorder r = new SpanRecorder();
        long t = System.nanoTime();
        r.record("sendrecv", "sendrecv", "h.mpfl.xml:61:7", t, t + 1_000_000, 2, 7, 64, 1, 8);
        @SuppressWarnings("unchecked")
        Map<String, Object> span = ((List<Map<String, Object>>) r.take(t, true).get("spans")).get(0);
        assertEquals(2, span.get("peer"));
        assertEquals(7, span.get("tag"));
        assertEquals(1, span.get("from"));
        assertEquals(8, span.get("fromTag"));
    }
}
