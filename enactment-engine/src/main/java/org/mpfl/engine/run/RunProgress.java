package org.mpfl.engine.run;

import java.util.List;

/**
 * A run's progress, 0 to 1, from its ranks': the mean of the reported progress of the ranks that report one
 * (a rank that is DONE counts as complete), else the share of ranks DONE. The engine's {@link Run} and a run of
 * ranks in the command line's JVM ({@code engine.local.InProcessRun}) show the same figure.
 */
public final class RunProgress {
    private RunProgress() {
    }

    /**
     * One rank.
     *
     * @param value its last reported progress ({@code NaN}: none)
     * @param total what {@code value} counts up to ({@code NaN} or not positive: no progress reported)
     */
    public record Rank(double value, double total, boolean done) {
    }

    /** The progress of these ranks (0 for none). */
    public static double of(List<Rank> ranks) {
        double sum = 0;
        int reporting = 0;
        for (Rank r : ranks) {
            if (r.total() > 0) {
                reporting++;
                sum += r.done() ? 1.0 : Math.min(1.0, r.value() / r.total());
            }
        }
        if (reporting > 0) {
            return sum / reporting;
        }
        return ranks.isEmpty() ? 0 : ranks.stream().filter(Rank::done).count() / (double) ranks.size();
    }
}
