package org.mpfl.samples.matmul;

import java.util.SplittableRandom;

/** Row-major square matrices as MPFL holds them: a double[] of n·n elements, element (i, j) at i·n + j. */
final class Matrices {
    private Matrices() {
    }

    /** Uniform values in [-1, 1) from a seeded generator: the same on every machine and JVM. */
    static double[] random(int order, SplittableRandom random) {
        double[] matrix = new double[order * order];
        for (int k = 0; k < matrix.length; k++) {
            matrix[k] = 2.0 * random.nextDouble() - 1.0;
        }
        return matrix;
    }

    /**
     * (rows × order) · (order × order) → (rows × order). The i-k-j loop order runs along rows of both
     * b and the result, which suits row-major storage; the sequential check uses the same routine on the
     * whole matrix, so a correct distribution gives exactly the same sums.
     */
    static double[] multiplyRows(double[] rowBlock, double[] b, int order) {
        if (rowBlock.length % order != 0 || b.length != order * order) {
            throw new IllegalArgumentException("a block of " + rowBlock.length + " elements and b of " + b.length
                    + " elements do not fit matrices of order " + order);
        }
        int rows = rowBlock.length / order;
        double[] product = new double[rows * order];
        for (int i = 0; i < rows; i++) {
            for (int k = 0; k < order; k++) {
                double aik = rowBlock[i * order + k];
                for (int j = 0; j < order; j++) {
                    product[i * order + j] += aik * b[k * order + j];
                }
            }
        }
        return product;
    }
}
