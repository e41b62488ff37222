package org.mpfl.runtime.collective;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/** Runs one body per rank on its own thread and returns the results, failing on the first error or after a time limit. */
final class RankThreads {
    private RankThreads() {
    }

    static Object[] run(int p, long timeoutSeconds, IntFunction<Object> body) {
        ExecutorService pool = Executors.newFixedThreadPool(p, r -> {
            Thread t = new Thread(r, "test-rank");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Object>> futures = new ArrayList<>();
            for (int r = 0; r < p; r++) {
                int rank = r;
                futures.add(pool.submit(() -> body.apply(rank)));
            }
            Object[] out = new Object[p];
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            for (int r = 0; r < p; r++) {
                try {
                    out[r] = futures.get(r).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    Throwable c = e.getCause();
                    if (c instanceof RuntimeException re) {
                        throw re;
                    } else if (c instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException("rank " + r + " failed", c);
                } catch (TimeoutException e) {
                    throw new AssertionError("rank " + r + " of " + p + " did not finish within " + timeoutSeconds + " s (deadlock?)");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }
}
