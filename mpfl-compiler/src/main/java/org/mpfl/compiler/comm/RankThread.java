package org.mpfl.compiler.comm;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.eval.PlacedRankEnvironment;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.ir.semantics.ForRange;

/**
 * One thread of execution of a rank (the rank's body, or a branch of a {@code parallel}) as an
 * explicit stack of frames, so that the scheduler can suspend it at any blocking operation. It is
 * also the evaluation environment of its expressions: loop variables of its frames (and of the
 * thread that started it), then the rank's variables and params; a variable holding an
 * {@link Unknown} makes the evaluation throw {@link UnknownValueException}.
 */
final class RankThread implements PlacedRankEnvironment {

    /** An activity list being executed. */
    static final class Body {
        final List<IrActivity> activities;
        int next;

        Body(List<IrActivity> activities) {
            this.activities = activities;
        }
    }

    /** A {@code for} loop: bounds evaluated once; {@code started} says whether the body ran already. */
    static final class ForLoop {
        final IrActivity.For loop;
        final ForRange range;
        long current;
        boolean started;
        int iterations;

        ForLoop(IrActivity.For loop, ForRange range) {
            this.loop = loop;
            this.range = range;
            this.current = range.from();
        }
    }

    /** A {@code while} loop. */
    static final class WhileLoop {
        final IrActivity.While loop;
        int iterations;

        WhileLoop(IrActivity.While loop) {
            this.loop = loop;
        }
    }

    final SymbolicRank rank;
    private final RankThread parent;
    /** Frames: {@link Body}, {@link ForLoop} or {@link WhileLoop}; the top is the innermost. */
    final Deque<Object> frames = new ArrayDeque<>();
    Blocker blocker;
    boolean done;

    RankThread(SymbolicRank rank, RankThread parent, List<IrActivity> body) {
        this.rank = rank;
        this.parent = parent;
        frames.push(new Body(body));
    }

    boolean runnable() {
        return !done && blocker == null;
    }

    @Override
    public Object variable(String name) {
        for (RankThread t = this; t != null; t = t.parent) {
            for (Iterator<Object> it = t.frames.iterator(); it.hasNext();) {
                if (it.next() instanceof ForLoop f && f.loop.variable().equals(name)) {
                    return (int) f.current;
                }
            }
        }
        Object value = rank.read(name);
        if (value instanceof Unknown u) {
            throw new UnknownValueException(name, u);
        }
        return value;
    }

    @Override
    public int worldRank() {
        return rank.worldRank();
    }

    @Override
    public ProcessLayout processLayout() {
        return rank.layout();
    }

    @Override
    public String ownProcess() {
        return rank.process().name();
    }

    @Override
    public int commRank(String comm) {
        return rank.commRank(comm);
    }

    @Override
    public int commSize(String comm) {
        return rank.commSize(comm);
    }

    @Override
    public int[] coords(String comm) {
        Communicator c = cartesian(comm);
        return c.coords(c.rankOf(rank.worldRank()));
    }

    @Override
    public int neighbor(String comm, int dim, int displacement) {
        Communicator c = cartesian(comm);
        if (dim < 0 || dim >= c.dimensions()) {
            throw RankStop.fault(null, "neighbor('" + comm + "', " + dim + ", …): dimension " + dim + " outside 0.."
                    + (c.dimensions() - 1));
        }
        return c.neighbor(c.rankOf(rank.worldRank()), dim, displacement);
    }

    private Communicator cartesian(String name) {
        Communicator c = rank.communicator(name, null);
        if (!c.isCartesian()) {
            throw RankStop.fault(null, "communicator '" + name + "' has no Cartesian topology");
        }
        return c;
    }
}
