package org.mpfl.runtime.collective.bench;

/**
 * MPJ Express 0.44 niodev, {@code double[]}, on the 2-core reference machine: median of
 * max-over-ranks time (µs) from {@code shared/peers/results/mpj-collectives.csv} (the issue's
 * reference; p = 4 and 8 are oversubscribed there as here). {@code NaN} where not measured.
 */
final class MpjCollectivesReference {
    private static final int[] P = {2, 4, 8};
    private static final int[] N = {10, 100, 300, 700};
    private static final double[][] BCAST = {
        {7.00, 27.69, 541.64, 3095.26}, {163.19, 283.14, 2361.41, 7654.93}, {592.78, 466.53, 4844.63, 26890.82}};
    private static final double[][] GATHER = {
        {84.43, 119.39, 619.70, 3406.82}, {237.08, 567.26, 2952.83, 10305.97}, {693.14, 1864.53, 7513.55, 18765.04}};
    private static final double[][] ALLREDUCE = {
        {90.28, 181.13, 1222.38, 6548.80}, {299.16, 413.90, 4990.29, 15679.07}, {755.45, 1286.69, 10306.91, 36708.58}};
    private static final double[] BARRIER = {94.16, 156.18, 503.58};

    private MpjCollectivesReference() {
    }

    static double niodev(String op, int p, int n) {
        int pi = indexOf(P, p);
        if (pi < 0) {
            return Double.NaN;
        }
        if (op.equals("barrier")) {
            return BARRIER[pi];
        }
        int ni = indexOf(N, n);
        if (ni < 0) {
            return Double.NaN;
        }
        return switch (op) {
            case "bcast" -> BCAST[pi][ni];
            case "gather" -> GATHER[pi][ni];
            case "allreduce" -> ALLREDUCE[pi][ni];
            default -> Double.NaN;
        };
    }

    private static int indexOf(int[] a, int v) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        return -1;
    }
}
