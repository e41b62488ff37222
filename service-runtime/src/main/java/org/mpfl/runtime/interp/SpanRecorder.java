package org.mpfl.runtime.interp;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The finished operations of one rank (compute, send, receive, wait, collectives, communicator
 * creation) for the engine's trace, kept cheap and bounded: the first {@value #MAX_SPANS} operations
 * of a rank become spans of their own (a clock read at start and end and one small map each); every
 * later one only adds to a count and a total duration per activity ({@code dropped}), so a tight loop
 * of a million messages costs the engine {@value #MAX_SPANS} spans, not a million. Spans leave in
 * batches (at most one every {@value #FLUSH_MS} ms or per {@value #BATCH} spans, plus the rest when the
 * rank ends), which the host's event poster batches again with the rank's other routine events.
 * Times are epoch microseconds taken from one wall-clock reading and the monotonic clock after it, so
 * the spans of a rank never go backwards even if the wall clock is adjusted during the run.
 * Set the system property {@code mpfl.trace.spans=false} on a host to record none (to measure the cost).
 */
final class SpanRecorder {
    static final int MAX_SPANS = 5000;
    static final int BATCH = 256;
    static final long FLUSH_MS = 250;
    static final boolean ENABLED = RuntimeSettings.TRACE_SPANS.get();
    private static final long FLUSH_NANOS = TimeUnit.MILLISECONDS.toNanos(FLUSH_MS);

    private final long epochMicrosAtStart = System.currentTimeMillis() * 1000;
    private final long nanosAtStart = System.nanoTime();
    private final Thread rankThread = Thread.currentThread();
    private final Map<Thread, Integer> lanes = new HashMap<>();
    private List<Map<String, Object>> pending = new ArrayList<>();
    private final Map<String, long[]> dropped = new LinkedHashMap<>();
    private boolean droppedChanged;
    private int recorded;
    private long lastFlushNanos = nanosAtStart;

    /** Whether another span would still be kept individually (callers skip the byte count otherwise). */
    synchronized boolean hasRoom() {
        return recorded < MAX_SPANS;
    }

    /**
     * One finished operation.
     *
     * @param cat      compute, send, receive, wait (isend/irecv completion), collective, communicator
     * @param peer     the world rank of the other side, or -1
     * @param tag      the message tag, or {@code null}
     * @param bytes    payload bytes this rank sent during the operation, or -1 when unknown
     */
    void record(String cat, String name, String location, long startNanos, long endNanos, int peer, Integer tag, long bytes) {
        record(cat, name, location, startNanos, endNanos, peer, tag, bytes, -1, null);
    }

    /**
     * As {@link #record(String, String, String, long, long, int, Integer, long)}, for an operation that also received:
     * a {@code sendrecv}, whose {@code peer} is where it sent.
     *
     * @param from    the world rank its message came from, or -1
     * @param fromTag that message's tag, or {@code null}
     */
    synchronized void record(String cat, String name, String location, long startNanos, long endNanos, int peer,
                             Integer tag, long bytes, int from, Integer fromTag) {
        if (recorded >= MAX_SPANS) {
            long[] d = dropped.computeIfAbsent(name, k -> new long[2]);
            d[0]++;
            d[1] += (endNanos - startNanos) / 1000;
            droppedChanged = true;
            return;
        }
        recorded++;
        Map<String, Object> s = new LinkedHashMap<>(12);
        s.put("name", name);
        s.put("cat", cat);
        s.put("ts", micros(startNanos));
        s.put("dur", Math.max(0, (endNanos - startNanos) / 1000));
        s.put("lane", lane());
        if (peer >= 0) {
            s.put("peer", peer);
        }
        if (tag != null) {
            s.put("tag", tag);
        }
        if (from >= 0) {
            s.put("from", from);
            s.put("fromTag", fromTag);
        }
        if (bytes >= 0) {
            s.put("bytes", bytes);
        }
        if (location != null) {
            s.put("loc", location);
        }
        pending.add(s);
    }

    /** 0 for the rank's own thread, 1, 2, … for the threads of its {@code parallel} branches in order of first use. */
    private int lane() {
        Thread t = Thread.currentThread();
        if (t == rankThread) {
            return 0;
        }
        return lanes.computeIfAbsent(t, k -> lanes.size() + 1);
    }

    private long micros(long nanos) {
        return epochMicrosAtStart + (nanos - nanosAtStart) / 1000;
    }

    /** The batch to send now ({@code force}: whatever is there, e.g. when the rank ends), or {@code null}. */
    synchronized Map<String, Object> take(long nowNanos, boolean force) {
        boolean due = pending.size() >= BATCH || (!pending.isEmpty() && nowNanos - lastFlushNanos >= FLUSH_NANOS);
        if (!force && !due) {
            return null;
        }
        if (pending.isEmpty() && !droppedChanged) {
            return null;
        }
        Map<String, Object> batch = new LinkedHashMap<>();
        batch.put("spans", pending);
        if (force && !dropped.isEmpty()) {
            Map<String, Object> d = new LinkedHashMap<>();
            dropped.forEach((name, v) -> d.put(name, Map.of("count", v[0], "durUs", v[1])));
            batch.put("dropped", d);
            droppedChanged = false;
        }
        pending = new ArrayList<>();
        lastFlushNanos = nowNanos;
        return batch;
    }
}
