package org.mpfl.ir.semantics;

import org.mpfl.ir.IrActivity;

/**
 * What one member contributes to a {@code split} (MPI_Comm_split): its colour and its key. The key
 * defaults to the member's rank in the parent, so that without keys the new communicators keep the
 * parent's order; a negative colour is MPI_UNDEFINED — the member takes part but joins no new
 * communicator. Members of one colour are ordered by key, then by parent rank (the communicator
 * implementations do that ordering; this class only reads the operands).
 *
 * @param colour the colour as evaluated (possibly negative)
 * @param key    the key
 */
public record SplitChoice(int colour, int key) {
    /** The colour passed to the communicator for a member that joins none (MPI_UNDEFINED). */
    public static final int UNDEFINED = -1;

    /** Evaluates {@code color}, then {@code key} (or takes {@code parentRank} when there is none). */
    public static SplitChoice of(IrActivity.Split split, Operands operands, int parentRank) {
        int colour = operands.intValue(split.color(), "color");
        int key = split.key() == null ? parentRank : operands.intValue(split.key(), "key");
        return new SplitChoice(colour, key);
    }

    /** Whether this member joins a new communicator. */
    public boolean joins() {
        return colour >= 0;
    }

    /** The colour as the communicator takes it: every negative colour becomes {@link #UNDEFINED}. */
    public int communicatorColour() {
        return joins() ? colour : UNDEFINED;
    }
}
