package org.mpfl.runtime.interp;

import org.mpfl.ir.eval.PlacedRankEnvironment;
import org.mpfl.ir.eval.ProcessLayout;

/**
 * What expressions see on one thread of execution of a rank: the loop variables of the enclosing
 * {@code for}s (innermost first; each parallel branch gets its own chain), then the rank's process
 * variables and params, and the rank's built-ins and communicators.
 */
final class Frame implements PlacedRankEnvironment {
    private final RankState rank;
    private final Frame parent;
    private final String loopVariable;
    /** Whether this is the rank's main thread, whose position a checkpoint saves ({@link ProgramPosition}). */
    private final boolean tracked;
    private int loopValue;

    private Frame(RankState rank, Frame parent, String loopVariable, boolean tracked) {
        this.rank = rank;
        this.parent = parent;
        this.loopVariable = loopVariable;
        this.tracked = tracked;
    }

    /** The frame of a rank's main thread. */
    static Frame root(RankState rank) {
        return new Frame(rank, null, null, true);
    }

    /** A frame holding one loop variable, seeing this one's. */
    Frame withLoopVariable(String name) {
        return new Frame(rank, this, name, tracked);
    }

    /** A frame for a parallel branch: sees this one's loop variables, owns its own further ones. */
    Frame branch() {
        return new Frame(rank, this, null, false);
    }

    /** Whether the executor keeps this thread's position (the main thread, not a parallel branch). */
    boolean tracked() {
        return tracked;
    }

    void setLoopValue(int value) {
        this.loopValue = value;
    }

    RankState rank() {
        return rank;
    }

    @Override
    public Object variable(String name) {
        for (Frame f = this; f != null; f = f.parent) {
            if (f.loopVariable != null && f.loopVariable.equals(name)) {
                return f.loopValue;
            }
        }
        return rank.variable(name);
    }

    @Override
    public int worldRank() {
        return rank.layout().worldRank();
    }

    @Override
    public ProcessLayout processLayout() {
        return rank.layout().processLayout();
    }

    @Override
    public String ownProcess() {
        return rank.layout().ownProcess();
    }

    @Override
    public int commRank(String comm) {
        return rank.communicators().rank(comm);
    }

    @Override
    public int commSize(String comm) {
        return rank.communicators().size(comm);
    }

    @Override
    public int[] coords(String comm) {
        return rank.communicators().cartesian(comm).coords();
    }

    @Override
    public int neighbor(String comm, int dim, int displacement) {
        var cart = rank.communicators().cartesian(comm);
        if (dim < 0 || dim >= cart.dims().length) {
            throw new org.mpfl.ir.eval.RuntimeFault(null, "neighbor('" + comm + "', " + dim + ", ...): dimension "
                    + dim + " outside 0.." + (cart.dims().length - 1));
        }
        return cart.neighbor(dim, displacement);
    }
}
