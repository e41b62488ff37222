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
 */
public final class Audit implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Audit.class);
    private static final int QUEUE = 10_000;

    private final AccessStore store;
    private final Duration retention;
    private final ThreadPoolExecutor writer;
    private final java.util.concurrent.ScheduledExecutorService trimmer;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong anonymousRefusals = new AtomicLong();

    public Audit(AccessStore store, Duration retention) {
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
                try {
                    store.audit(now, who.name(), source, method + " " + path, status);
                } catch (RuntimeException e) {
                    LOG.warn("cannot write the audit trail: {}", e.getMessage());
                }
            });
        } catch (RejectedExecutionException e) {
            if (dropped.incrementAndGet() % 1000 == 1) {
                LOG.warn("the audit trail cannot keep up: {} entries dropped so far", dropped.get());
            }
        }
    }

    /** Waits until what was recorded so far is in the store (bounded). */
    public void flush(Duration max) throws InterruptedException {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        try {
            writer.execute(done::countDown);
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
            writer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
