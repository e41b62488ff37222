package org.mpfl.runtime.topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Balanced factorisation of a number of ranks into a grid, as MPI_Dims_create: the extents multiply
 * to {@code p}, are as close to each other as the greedy prime assignment makes them, and are in
 * non-increasing order (e.g. 12 in 2 dimensions is 4×3, 8 in 3 is 2×2×2, 7 in 2 is 7×1).
 */
public final class Dims {
    private Dims() {
    }

    /** The extents of a balanced {@code nd}-dimensional grid of {@code p} ranks. */
    public static int[] create(int p, int nd) {
        return create(p, new int[nd]);
    }

    /**
     * MPI_Dims_create proper: non-zero entries of {@code fixed} are kept, zeros are filled so that
     * the product is {@code p} (the filled entries in non-increasing order).
     */
    public static int[] create(int p, int[] fixed) {
        if (p < 1) {
            throw new IllegalArgumentException("dims: number of ranks must be positive, not " + p);
        }
        if (fixed.length < 1) {
            throw new IllegalArgumentException("dims: at least one dimension");
        }
        int rest = p;
        List<Integer> free = new ArrayList<>();
        for (int i = 0; i < fixed.length; i++) {
            if (fixed[i] < 0) {
                throw new IllegalArgumentException("dims: negative extent " + fixed[i]);
            } else if (fixed[i] == 0) {
                free.add(i);
            } else if (rest % fixed[i] != 0) {
                throw new IllegalArgumentException("dims: " + p + " ranks cannot be divided by the fixed extent " + fixed[i]);
            } else {
                rest /= fixed[i];
            }
        }
        int[] out = fixed.clone();
        if (free.isEmpty()) {
            if (rest != 1) {
                throw new IllegalArgumentException("dims: fixed extents " + Arrays.toString(fixed) + " do not multiply to " + p);
            }
            return out;
        }
        int[] extents = new int[free.size()];
        Arrays.fill(extents, 1);
        // largest prime factors first, each to the currently smallest extent
        List<Integer> primes = primeFactorsDescending(rest);
        for (int prime : primes) {
            int smallest = 0;
            for (int i = 1; i < extents.length; i++) {
                if (extents[i] < extents[smallest]) {
                    smallest = i;
                }
            }
            extents[smallest] *= prime;
        }
        Arrays.sort(extents);
        for (int i = 0; i < free.size(); i++) {
            out[free.get(i)] = extents[extents.length - 1 - i];
        }
        return out;
    }

    private static List<Integer> primeFactorsDescending(int n) {
        List<Integer> f = new ArrayList<>();
        int rest = n;
        for (int d = 2; (long) d * d <= rest; d++) {
            while (rest % d == 0) {
                f.add(d);
                rest /= d;
            }
        }
        if (rest > 1) {
            f.add(rest);
        }
        f.sort((a, b) -> Integer.compare(b, a));
        return f;
    }
}
