package org.mpfl.runtime.p2p;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * A timeout as a fault message names it for people: {@code 500 ms}, {@code 2 s}, {@code 2.5 s}, not Java's
 * ISO-8601 {@code PT0.5S} (the console still turns that form of older run records into the same words).
 */
final class Durations {
    private Durations() {
    }

    static String text(long nanos) {
        if (nanos < 1_000_000) {
            return Math.max(0, nanos / 1_000) + " µs";
        }
        if (nanos < 1_000_000_000) {
            return Math.round(nanos / 1e6) + " ms";
        }
        return BigDecimal.valueOf(nanos).divide(BigDecimal.valueOf(1_000_000_000), 3, RoundingMode.HALF_UP)
                .stripTrailingZeros().toPlainString() + " s";
    }
}
