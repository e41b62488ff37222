package org.mpfl.runtime.interp;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One daemon thread per JVM that looks at the live ranks' blocking calls every
 * {@value #PERIOD_MS} ms and lets {@link RankActivityMonitor#scan} report the ranks that are stuck.
 * It runs only while some rank is registered.
 */
final class WaitWatchdog {
    static final long PERIOD_MS = 10;
    private static final Logger LOG = LoggerFactory.getLogger(WaitWatchdog.class);
    private static final Set<RankActivityMonitor> MONITORS = ConcurrentHashMap.newKeySet();
    private static ScheduledExecutorService executor;
    private static ScheduledFuture<?> task;

    private WaitWatchdog() {
    }

    static synchronized void register(RankActivityMonitor monitor) {
        if (!monitor.enabled()) {
            return;
        }
        MONITORS.add(monitor);
        if (task == null) {
            if (executor == null) {
                ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
                    Thread t = new Thread(r, "mpfl-wait-watchdog");
                    t.setDaemon(true);
                    return t;
                });
                e.setRemoveOnCancelPolicy(true);
                executor = e;
            }
            task = executor.scheduleAtFixedRate(WaitWatchdog::scanAll, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
        }
    }

    static synchronized void unregister(RankActivityMonitor monitor) {
        MONITORS.remove(monitor);
        if (MONITORS.isEmpty() && task != null) {
            task.cancel(false);
            task = null;
        }
    }

    private static void scanAll() {
        long now = System.nanoTime();
        for (RankActivityMonitor m : MONITORS) {
            try {
                m.scan(now);
            } catch (RuntimeException e) {
                // a failing event sink must not stop the watchdog for the other ranks
                LOG.debug("wait report failed", e);
            }
        }
    }
}
