package org.mpfl.runtime.collective;

/**
 * Tags of collective messages on a communicator's private context: the collective's sequence
 * number on that communicator (every rank calls the same collectives in the same order, so the
 * number agrees without communication) and a small step code. A late message of one collective can
 * therefore never be matched by the next one, even by a wildcard-tag receive.
 */
public final class Tags {
    /** Number of bits of the step code. */
    static final int STEP_BITS = 7;
    private static final int SEQ_MASK = (1 << (31 - STEP_BITS)) - 1;

    // step codes
    static final int BARRIER = 1;
    static final int BCAST_VALUE = 2;
    static final int BCAST_HEADER = 3;
    static final int BCAST_CHUNK = 4;
    static final int BCAST_RING = 5;
    static final int GATHER = 10;
    static final int GATHER_LENGTHS = 11;
    static final int SCATTER = 12;
    static final int SCATTER_LENGTH = 13;
    static final int ALLGATHER = 14;
    static final int ALLGATHER_LENGTHS = 15;
    static final int ALLGATHER_FOLD = 16;
    static final int ALLTOALL = 17;
    static final int REDUCE = 20;
    static final int ALLREDUCE = 21;
    static final int ALLREDUCE_FOLD = 22;
    static final int ALLREDUCE_GATHER = 23;
    static final int SCAN = 24;
    static final int BARRIER_DOWN = 25;
    static final int BARRIER_LOCAL = 26;

    private Tags() {
    }

    /** The tag for {@code step} of the collective numbered {@code sequence}; always non-negative. */
    public static int of(int sequence, int step) {
        return ((sequence & SEQ_MASK) << STEP_BITS) | step;
    }
}
