package org.mpfl.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How busy the machine is, from {@code /proc/stat}, so a benchmark can wait for a quiet machine
 * before measuring (the peers' scripts do the same: other jobs on 2 cores distort everything).
 */
public final class MachineLoad {
    private MachineLoad() {
    }

    /** Share of CPU time spent idle over {@code sampleMs}; {@code NaN} where /proc/stat is missing. */
    static double idleFraction(long sampleMs) throws InterruptedException {
        long[] a = read();
        Thread.sleep(sampleMs);
        long[] b = read();
        if (a == null || b == null || b[0] == a[0]) {
            return Double.NaN;
        }
        return (double) (b[1] - a[1]) / (b[0] - a[0]);
    }

    /** The 1-minute load average ({@code /proc/loadavg}); {@code NaN} where there is none. */
    public static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** A window over which the share of idle CPU time is measured: {@link #start}, then {@link #idleFraction()}. */
    public static final class Window {
        private final long[] start = read();

        /** Share of CPU time spent idle since the window started; {@code NaN} where /proc/stat is missing. */
        public double idleFraction() {
            long[] now = read();
            if (start == null || now == null || now[0] == start[0]) {
                return Double.NaN;
            }
            return (double) (now[1] - start[1]) / (now[0] - start[0]);
        }
    }

    /** Starts a {@link Window}. */
    public static Window start() {
        return new Window();
    }

    /** {total, idle+iowait} jiffies of the aggregate "cpu" line. */
    private static long[] read() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length; i++) {
                total += Long.parseLong(f[i]);
            }
            return new long[] {total, Long.parseLong(f[4]) + Long.parseLong(f[5])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Waits up to {@code maxSeconds} until the machine is at least {@code minIdle} idle; reports on {@code log}. */
    static void awaitQuiet(int maxSeconds, double minIdle, PrintStream log) throws InterruptedException {
        if (maxSeconds <= 0) {
            return;
        }
        long deadline = System.nanoTime() + maxSeconds * 1_000_000_000L;
        double idle;
        do {
            idle = idleFraction(1000);
            if (Double.isNaN(idle) || idle >= minIdle) {
                return;
            }
        } while (System.nanoTime() < deadline);
        log.printf("[bench] machine still busy after %d s (%.0f %% idle); measuring anyway%n", maxSeconds, 100 * idle);
    }
}
