package org.mpfl.samples.common;

import java.util.Arrays;
import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/**
 * Summary of a series of timings: {@code in="samples"} (double[]), {@code out="median, mean, minimum"}
 * (double each). The language has no sort, and a median is what the benchmarks report because it
 * is not thrown off by the odd slow iteration on a shared machine.
 */
public final class Statistics implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        double[] samples = Inputs.doubles(inputs, "samples");
        if (samples.length == 0) {
            throw new IllegalArgumentException("no samples: the iteration count must be at least 1");
        }
        return Map.of("median", median(samples), "mean", mean(samples),
                "minimum", Arrays.stream(samples).min().getAsDouble());
    }

    static double median(double[] samples) {
        double[] sorted = samples.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2.0;
    }

    static double mean(double[] samples) {
        double total = 0.0;
        for (double sample : samples) {
            total += sample;
        }
        return total / samples.length;
    }
}
