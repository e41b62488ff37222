package org.mpfl.engine.access;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.mpfl.engine.store.AccessStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit trail: each mutating request of an authenticated caller, once it has been answered —
 * who, from which address, what (method and path: never a body, a query or a header, so never a
 * secret) and the status. Written by one background thread through a bounded queue, so an answer never
 * waits for the store; rows older than the retention are deleted at start and every hour. Requests
 * refused for lack of any credential are not written (a stranger could otherwise make the engine
 * write at the stranger's rate); they are counted.
 *
 * <p>When the queue is full (the store cannot keep up, or a caller floods the engine with mutations) a record is
 * dropped, never waited for: but never silently. The drops are counted per caller and the writer's next row is
 * preceded by one entry of the engine's own, {@code engine audit: N records dropped (queue full): alice 9990, bob 1},
 * so a flood meant to hide an action shows on the trail itself, with who flooded. What the count holds is bounded:
 * {@link #DROP_NAMES} callers by name, the rest together.
 */
public final class Audit implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Audit.class);
    private static final int QUEUE = 10_000;
    /** The callers whose dropped records are counted by name in one drop entry; the others are counted together. */
    static final int DROP_NAMES = 16;
    /** Who a drop entry is by: the engine itself ({@link Caller#userName} shows a user of that name as {@code user:engine}). */
    public static final String ENGINE = "engine";

    private final AccessStore store;
    private final Duration retention;
    private final ThreadPoolExecutor writer;
    private final java.util.concurrent.ScheduledExecutorService trimmer;
    private final AtomicLong dropped = new AtomicLong();
    /** Records dropped since the last drop entry, per caller (at most {@link #DROP_NAMES} names, then {@code others}). */
    private final java.util.Map<String, Long> droppedBy = new java.util.LinkedHashMap<>();
    private final AtomicLong anonymousRefusals = new AtomicLong();
    /** How often one caller's refusals of one route and status are on the trail at most ({@link #recordRefusal}). */
    public static final Duration REFUSAL_WINDOW = Duration.ofMinutes(1);
    /** The keys of {@link #lastRefusal} past which those older than the window are forgotten. */
    private static final int REFUSAL_KEYS = 1024;
    private static final java.util.regex.Pattern ANY_HOST = java.util.regex.Pattern.compile("^/api/registry/hosts/[^/]+/");
    /** When each caller, route and status last had a refusal on the trail. */
    private final java.util.Map<String, Long> lastRefusal = new java.util.HashMap<>();
    private final java.util.function.LongSupplier refusalClock;

    public Audit(AccessStore store, Duration retention) {
        this(store, retention, System::currentTimeMillis);
    }

    /** As {@link #Audit(AccessStore, Duration)}, with the clock {@link #recordRefusal}'s window is measured on. */
    Audit(AccessStore store, Duration retention, java.util.function.LongSupplier refusalClock) {
        this.refusalClock = refusalClock;
        this.store = store;
        this.retention = retention;
        this.writer = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUE), r -> daemon(r, "mpfl-audit"));
        this.trimmer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "mpfl-audit-retention"));
        trimmer.scheduleWithFixedDelay(this::trim, 0, 1, TimeUnit.HOURS);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Records one answered request (asynchronously). */
    public void record(Caller who, String source, String method, String path, int status) {
        if (who == null) {
            anonymousRefusals.incrementAndGet();
            return;
        }
        long now = System.currentTimeMillis();
        try {
            writer.execute(() -> {
                writeDrops();
                write(now, who.name(), source, method + " " + path, status);
            });
        } catch (RejectedExecutionException e) {
            countDrop(who.name());
        }
    }

    /**
     * Records the refusal of a frequent request (a host's heartbeat, a relay's check), at most once per
     * {@link #REFUSAL_WINDOW} per caller, route and status: a host that keeps beating with a revoked credential (or for an
     * entry another process holds) is seen without flooding the trail. The route counts the host a heartbeat names as one
     * (a credential the engine does not know could otherwise name a new one with each beat). Accepted ones are not
     * recorded; a {@code null} caller (no credential at all) is only counted, as in {@link #record}.
     */
    public void recordRefusal(Caller who, String source, String method, String path, int status) {
        if (who != null) {
            String key = who.name() + ' ' + method + ' ' + ANY_HOST.matcher(path).replaceFirst("/api/registry/hosts/*/") + ' ' + status;
            long now = refusalClock.getAsLong();
            synchronized (lastRefusal) {
                Long last = lastRefusal.get(key);
                if (last != null && now - last < REFUSAL_WINDOW.toMillis()) {
                    return;
                }
                if (lastRefusal.size() >= REFUSAL_KEYS) {
                    lastRefusal.values().removeIf(t -> now - t >= REFUSAL_WINDOW.toMillis());
                }
                lastRefusal.put(key, now);
            }
        }
        record(who, source, method, path, status);
    }

    private void countDrop(String who) {
        long n = dropped.incrementAndGet();
        synchronized (droppedBy) {
            String key = droppedBy.containsKey(who) || droppedBy.size() < DROP_NAMES ? who : "others";
            droppedBy.merge(key, 1L, Long::sum);
        }
        if (n % 1000 == 1) {
            LOG.warn("the audit trail cannot keep up (queue of {} full): {} records dropped so far, last of {}", QUEUE, n, who);
        }
    }

    /**
     * The entry that says how many records were dropped since the last one, and whose — written by the writer before
     * its next row, so it lands among the rows of the flood that caused it.
     */
    private void writeDrops() {
        String counts;
        long total;
        synchronized (droppedBy) {
            if (droppedBy.isEmpty()) {
                return;
            }
            total = droppedBy.values().stream().mapToLong(Long::longValue).sum();
            StringBuilder b = new StringBuilder();
            droppedBy.forEach((who, n) -> b.append(b.isEmpty() ? "" : ", ").append(who).append(' ').append(n));
            counts = b.toString();
            droppedBy.clear();
        }
        LOG.warn("audit trail: {} records dropped (queue full): {}", total, counts);
        write(System.currentTimeMillis(), ENGINE, "engine", "audit: " + total + " records dropped (queue full): " + counts, 0);
    }

    private void write(long timeMs, String who, String source, String action, int status) {
        try {
            store.audit(timeMs, who, source, action, status);
        } catch (RuntimeException e) {
            LOG.warn("cannot write the audit trail: {}", e.getMessage());
        }
    }

    /** Records dropped since start because the queue was full (each also counted in a drop entry on the trail). */
    public long dropped() {
        return dropped.get();
    }

    /** Waits until what was recorded so far is in the store (bounded). */
    public void flush(Duration max) throws InterruptedException {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        try {
            writer.execute(() -> {
                writeDrops();
                done.countDown();
            });
        } catch (RejectedExecutionException e) {
            return;
        }
        done.await(max.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Requests refused for lack of any credential since start (not in the trail). */
    public long anonymousRefusals() {
        return anonymousRefusals.get();
    }

    private void trim() {
        try {
            int n = store.forgetAuditBefore(System.currentTimeMillis() - retention.toMillis());
            if (n > 0) {
                LOG.info("audit trail: {} entries older than {} days deleted", n, retention.toDays());
            }
        } catch (RuntimeException e) {
            LOG.warn("cannot trim the audit trail: {}", e.getMessage());
        }
    }

    @Override
    public void close() {
        trimmer.shutdownNow();
        writer.shutdown();
        try {
            if (writer.awaitTermination(5, TimeUnit.SECONDS)) {
                writeDrops(); // drops after the writer's last row are on the trail too
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
