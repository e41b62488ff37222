package org.mpfl.runtime.interp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.runtime.monitor.RankMonitor;

/**
 * What one interpreted rank tells the engine about its activities, at a bounded rate:
 * <ul>
 * <li>{@code ACTIVITY} when the rank reaches a communication or compute activity — sampled, at most
 *     one every {@value #ACTIVITY_INTERVAL_MS} ms, so a hot loop of small messages costs a clock read
 *     per activity, not an event;</li>
 * <li>{@code WAIT} when every running thread of the rank (one, or one per {@code parallel} branch) is
 *     blocked in a receive, wait, synchronous send or collective for longer than
 *     {@value #WAIT_AFTER_MS} ms (noticed by the {@link WaitWatchdog}, so the blocking call itself
 *     needs no timer), followed by a clearing {@code ACTIVITY} as soon as that call returns. A rank
 *     that keeps blocking briefly in a loop is reported again only after
 *     {@value #WAIT_AFTER_RECENT_MS} ms of blocking, which bounds the event rate without hiding a
 *     real hang from the deadlock detector.</li>
 * </ul>
 * It also ends user code promptly when the domain is aborted: threads inside a {@code compute} are
 * interrupted once the watchdog sees the abort (activities that sleep, wait or do I/O stop there; the
 * interpreter then ends the rank as aborted).
 * Every finished blocking call and {@code compute} also becomes a span of the run's trace
 * ({@link SpanRecorder}: capped per rank, sent in batches from the watchdog's thread).
 * Without a {@link RankMonitor} (a plain rank context) everything here is a no-op.
 */
final class RankActivityMonitor {
    static final long ACTIVITY_INTERVAL_MS = 200;
    static final long WAIT_AFTER_MS = 10;
    static final long WAIT_AFTER_RECENT_MS = 250;
    private static final long RECENT_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

    /** One blocking call in progress (and, for the trace, the span it becomes). */
    static final class Blocking {
        final String activity;
        final SourceLocation at;
        final Supplier<String> waitingFor;
        final long startNanos;
        final String category;
        final long bytesBefore;
        private int peer = -1;
        private Integer tag;
        private int source = -1;
        private Integer sourceTag;

        Blocking(String category, String activity, SourceLocation at, Supplier<String> waitingFor, long startNanos,
                 long bytesBefore) {
            this.category = category;
            this.activity = activity;
            this.at = at;
            this.waitingFor = waitingFor;
            this.startNanos = startNanos;
            this.bytesBefore = bytesBefore;
        }

        /** The other side of a point-to-point call (world rank, -1 for none) and its tag, for the trace span. */
        Blocking peer(int worldRank, Integer messageTag) {
            if (this != UNMONITORED) {
                this.peer = worldRank;
                this.tag = messageTag;
            }
            return this;
        }

        /** Where the message of a call that also received (a {@code sendrecv}) came from: world rank and tag. */
        Blocking source(int worldRank, Integer messageTag) {
            if (this != UNMONITORED) {
                this.source = worldRank;
                this.sourceTag = messageTag;
            }
            return this;
        }
    }

    private static final Blocking UNMONITORED = new Blocking(null, null, null, null, 0, -1);

    private final RankMonitor sink;
    private final Object lock = new Object();
    private final List<Blocking> blocked = new ArrayList<>(2);
    private int runningThreads = 1;
    private boolean waitPosted;
    private long lastWaitNanos = Long.MIN_VALUE / 2;
    private volatile long lastActivityNanos = Long.MIN_VALUE / 2;
    private final List<Thread> busy = new ArrayList<>(1);
    private BooleanSupplier aborted = () -> false;
    private boolean interruptedOnAbort;
    /** Finished operations for the trace; {@code null} without a sink or with spans turned off. */
    private final SpanRecorder spans;
    private LongSupplier bytesSent = () -> -1;

    /** @param sink where events go, or {@code null} for none */
    RankActivityMonitor(RankMonitor sink) {
        this.sink = sink;
        this.spans = sink != null && SpanRecorder.ENABLED ? new SpanRecorder() : null;
    }

    /** How many payload bytes the rank has sent so far (the runtime's counters), for the bytes of send and collective spans. */
    void countBytesWith(LongSupplier sent) {
        this.bytesSent = sent;
    }

    boolean enabled() {
        return sink != null;
    }

    /** The rank reached {@code activity} at {@code at}: reported if the last report is old enough. */
    void reached(String activity, SourceLocation at) {
        if (sink == null) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastActivityNanos < TimeUnit.MILLISECONDS.toNanos(ACTIVITY_INTERVAL_MS)) {
            return;
        }
        lastActivityNanos = now;
        synchronized (lock) {
            if (!waitPosted) {
                sink.activity(activity, text(at));
            }
        }
    }

    /** A blocking call starts; {@code waitingFor} describes it with world ranks, computed only if reported. */
    Blocking begin(String activity, SourceLocation at, Supplier<String> waitingFor) {
        return begin(activity.startsWith("wait") ? "wait" : activity, activity, at, waitingFor);
    }

    /** As {@link #begin(String, SourceLocation, Supplier)}, with the trace category (collective, communicator, …). */
    Blocking begin(String category, String activity, SourceLocation at, Supplier<String> waitingFor) {
        if (sink == null) {
            return UNMONITORED;
        }
        long before = spans != null && !category.equals("receive") && spans.hasRoom() ? bytesSent.getAsLong() : -1;
        Blocking b = new Blocking(category, activity, at, waitingFor, System.nanoTime(), before);
        synchronized (lock) {
            blocked.add(b);
        }
        return b;
    }

    /** The blocking call ended (normally or not); clears a reported wait. */
    void end(Blocking b) {
        if (b == UNMONITORED) {
            return;
        }
        synchronized (lock) {
            blocked.remove(b);
            if (waitPosted) {
                waitPosted = false;
                // under the lock, so that this clearing event is queued after the WAIT it clears.
                // It names the operation that waited and must not restart the sampling clock:
                // otherwise the activity the rank reaches right after the wait (typically a compute)
                // would be dropped, and the timeline would show that time as the wait's operation.
                sink.activity(b.activity, text(b.at));
            }
        }
        if (spans != null) {
            long bytes = b.bytesBefore < 0 ? -1 : bytesSent.getAsLong() - b.bytesBefore;
            spans.record(b.category, b.activity, text(b.at), b.startNanos, System.nanoTime(), b.peer, b.tag, bytes, b.source,
                    b.sourceTag);
        }
    }

    /** When a {@code compute} starts, for {@link #computed}. */
    long computeStart() {
        return spans == null ? 0 : System.nanoTime();
    }

    /** A {@code compute} that started at {@code startNanos} ended (normally or not): a trace span. */
    void computed(String activity, SourceLocation at, long startNanos) {
        if (spans != null) {
            spans.record("compute", activity, text(at), startNanos, System.nanoTime(), -1, null, -1);
        }
    }

    /** The rank ended: the spans not sent yet, and the counts of those beyond the cap, go to the engine now. */
    void finish() {
        if (spans != null) {
            Map<String, Object> batch = spans.take(System.nanoTime(), true);
            if (batch != null) {
                sink.spans(batch);
            }
        }
    }

    /** How to tell that the rank's domain was aborted (checked by the watchdog). */
    void watchAbort(BooleanSupplier abortedCheck) {
        synchronized (lock) {
            this.aborted = abortedCheck;
        }
    }

    /** The current thread enters user code ({@code compute}); it may be interrupted when the domain is aborted. */
    void busyStart() {
        if (sink == null) {
            return;
        }
        synchronized (lock) {
            busy.add(Thread.currentThread());
        }
    }

    /** The current thread left user code; no interrupt reaches it from here on. */
    void busyEnd() {
        if (sink == null) {
            return;
        }
        synchronized (lock) {
            busy.remove(Thread.currentThread());
        }
    }

    /** {@code parallel} started {@code branches} threads while its own thread waits for them. */
    void branchesStarted(int branches) {
        synchronized (lock) {
            runningThreads += branches - 1;
        }
    }

    void branchesEnded(int branches) {
        synchronized (lock) {
            runningThreads -= branches - 1;
        }
    }

    /** Called by the watchdog: reports a WAIT when every running thread has been blocked long enough. */
    void scan(long now) {
        if (spans != null) {
            Map<String, Object> batch = spans.take(now, false);
            if (batch != null) {
                sink.spans(batch);
            }
        }
        synchronized (lock) {
            if (!busy.isEmpty() && !interruptedOnAbort && aborted.getAsBoolean()) {
                interruptedOnAbort = true;
                busy.forEach(Thread::interrupt);
            }
            if (waitPosted || blocked.isEmpty() || blocked.size() < runningThreads) {
                return;
            }
            long threshold = TimeUnit.MILLISECONDS.toNanos(now - lastWaitNanos < RECENT_NANOS ? WAIT_AFTER_RECENT_MS : WAIT_AFTER_MS);
            for (Blocking b : blocked) {
                if (now - b.startNanos < threshold) {
                    return;
                }
            }
            StringBuilder what = new StringBuilder();
            for (Blocking b : blocked) {
                if (what.length() > 0) {
                    what.append("; ");
                }
                what.append(b.waitingFor.get());
            }
            Blocking first = blocked.get(0);
            sink.waiting(first.activity, text(first.at), what.toString());
            waitPosted = true;
            lastWaitNanos = now;
        }
    }

    private static String text(SourceLocation at) {
        return at == null ? null : at.toString();
    }
}
