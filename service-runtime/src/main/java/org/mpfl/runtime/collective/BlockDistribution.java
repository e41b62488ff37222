package org.mpfl.runtime.collective;

/**
 * The block distribution of {@code length} elements over {@code parts} parts: the first
 * {@code length % parts} parts get one element more (scatter, alltoall and the chunking of the long
 * broadcast and allreduce use it).
 */
public final class BlockDistribution {
    private BlockDistribution() {
    }

    /** Elements in part {@code i}. */
    public static int count(int length, int parts, int i) {
        return length / parts + (i < length % parts ? 1 : 0);
    }

    /** Offset of part {@code i} (valid for {@code i == parts}: the length). */
    public static int offset(int length, int parts, int i) {
        return i * (length / parts) + Math.min(i, length % parts);
    }
}
