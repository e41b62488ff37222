package org.mpfl.testing.lab;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How long each phase of a lab build took, printed on one line to standard error (Surefire and
 * Failsafe keep it in the test's output) with the load average: lab builds dominate the full tier's
 * time, and a phase's share is what tells where to cut (issue 25).
 */
final class LabPhases {
    private final String lab;
    private final long start = System.nanoTime();
    private long last = start;
    private final List<String> phases = new ArrayList<>();

    LabPhases(String lab) {
        this.lab = lab;
    }

    /** Ends the current phase, named {@code what}. */
    synchronized void done(String what) {
        long now = System.nanoTime();
        phases.add(what + " " + millis(now - last));
        last = now;
    }

    /** Notes that {@code what}, started with others in the current phase, is ready (seconds into the phase). */
    synchronized void at(String what) {
        phases.add(what + " at " + millis(System.nanoTime() - last));
    }

    void report() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        System.err.println("network lab " + lab + " built in " + millis(System.nanoTime() - start) + " (load "
                + String.format(Locale.ROOT, "%.1f", load) + "): " + String.join(", ", phases));
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
