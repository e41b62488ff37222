package org.mpfl.runtime.interp;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.mpfl.compiler.diag.SourceLocation;
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
 * Without a {@link RankMonitor} (a plain rank context) everything here is a no-op.
 */
final class RankActivityMonitor {
    static final long ACTIVITY_INTERVAL_MS = 100;
    static final long WAIT_AFTER_MS = 10;
    static final long WAIT_AFTER_RECENT_MS = 250;
    private static final long RECENT_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

    /** One blocking call in progress. */
    static final class Blocking {
        final String activity;
        final SourceLocation at;
        final Supplier<String> waitingFor;
        final long startNanos;

        Blocking(String activity, SourceLocation at, Supplier<String> waitingFor, long startNanos) {
            this.activity = activity;
            this.at = at;
            this.waitingFor = waitingFor;
            this.startNanos = startNanos;
        }
    }

    private static final Blocking UNMONITORED = new Blocking(null, null, null, 0);

    private final RankMonitor sink;
    private final Object lock = new Object();
    private final List<Blocking> blocked = new ArrayList<>(2);
    private int runningThreads = 1;
    private boolean waitPosted;
    private long lastWaitNanos = Long.MIN_VALUE / 2;
    private volatile long lastActivityNanos = Long.MIN_VALUE / 2;

    /** @param sink where events go, or {@code null} for none */
    RankActivityMonitor(RankMonitor sink) {
        this.sink = sink;
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
        if (sink == null) {
            return UNMONITORED;
        }
        Blocking b = new Blocking(activity, at, waitingFor, System.nanoTime());
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
                // under the lock, so that this clearing event is queued after the WAIT it clears
                sink.activity(b.activity, text(b.at));
                lastActivityNanos = System.nanoTime();
            }
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
        synchronized (lock) {
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
