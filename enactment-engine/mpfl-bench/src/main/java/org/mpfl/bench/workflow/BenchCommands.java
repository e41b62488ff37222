package org.mpfl.bench.workflow;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** What the engine's bench commands share: option values, the machine's load, cleaning up. */
final class BenchCommands {
    private BenchCommands() {
    }

    /** JVM options of the benchmark hosts unless given: the runtime benchmarks' ({@code -Xmx2g -Xms2g -XX:+UseParallelGC}). */
    static final List<String> DEFAULT_HOST_JVM_ARGS = org.mpfl.bench.BenchCommand.DEFAULT_HOST_JVM_ARGS;

    /**
     * The median of repeated measurements (the lower middle one for an even count): what the bench
     * commands report when a case is run several times, so that one run disturbed by the machine (a
     * compilation, another process) does not decide the result.
     */
    static double median(List<Double> values) {
        return values.isEmpty() ? Double.NaN : medianRun(values, Double::doubleValue);
    }

    /** The run whose {@code key} is the {@link #median} of all runs' (its other figures come with it). */
    static <T> T medianRun(List<T> runs, java.util.function.ToDoubleFunction<T> key) {
        List<T> sorted = new java.util.ArrayList<>(runs);
        sorted.sort(Comparator.comparingDouble(key));
        return sorted.get((sorted.size() - 1) / 2);
    }

    /** One untimed warm-up run. */
    interface WarmupRun {
        void run() throws Exception;
    }

    /**
     * Repeats {@code run} for at least {@code seconds} (at least once: the untimed warm-up of the bench
     * commands, time-based as JMH's) and returns how many runs that took.
     */
    static int repeatFor(int seconds, WarmupRun run) throws Exception {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        int runs = 0;
        do {
            run.run();
            runs++;
        } while (System.nanoTime() < end);
        return runs;
    }

    /** {@code (load 1.23)} from /proc/loadavg, or empty where there is none. */
    static String load() {
        double l = org.mpfl.bench.MachineLoad.loadAverage();
        return Double.isNaN(l) ? "" : String.format(Locale.ROOT, "(load %.2f)", l);
    }
}
