package org.mpfl.runtime.collective;

/**
 * The binomial tree rooted at any rank, over ranks renumbered relative to the root
 * ({@code rel = (rank - root) mod size}). The parent of {@code rel} is {@code rel} with its lowest
 * set bit cleared; the subtree of {@code rel} covers relative ranks {@code [rel, rel + subtreeSize)}
 * (contiguous, which scatter and gather rely on). Public because the runtime's bstore forwarding
 * uses the same tree.
 */
public final class BinomialTree {
    private BinomialTree() {
    }

    /** The rank relative to the root. */
    public static int relative(int rank, int root, int size) {
        int rel = rank - root;
        return rel < 0 ? rel + size : rel;
    }

    /** The absolute rank of a relative one. */
    public static int absolute(int rel, int root, int size) {
        int abs = rel + root;
        return abs >= size ? abs - size : abs;
    }

    /** The parent's absolute rank, or -1 for the root. */
    public static int parent(int rank, int root, int size) {
        int rel = relative(rank, root, size);
        if (rel == 0) {
            return -1;
        }
        return absolute(rel & (rel - 1), root, size);
    }

    /** Number of relative ranks in the subtree of relative rank {@code rel}. */
    public static int subtreeSize(int rel, int size) {
        if (rel == 0) {
            return size;
        }
        int low = Integer.lowestOneBit(rel);
        return Math.min(low, size - rel);
    }

    /**
     * The children's absolute ranks, largest subtree first (the order a broadcast should serve
     * them in, so the deepest branch starts earliest).
     */
    public static int[] children(int rank, int root, int size) {
        int rel = relative(rank, root, size);
        int limit = rel == 0 ? Integer.highestOneBit(Math.max(size - 1, 1)) << 1 : Integer.lowestOneBit(rel);
        int count = 0;
        for (int mask = limit >> 1; mask > 0; mask >>= 1) {
            if (rel + mask < size) {
                count++;
            }
        }
        int[] out = new int[count];
        int i = 0;
        for (int mask = limit >> 1; mask > 0; mask >>= 1) {
            if (rel + mask < size) {
                out[i++] = absolute(rel + mask, root, size);
            }
        }
        return out;
    }
}
