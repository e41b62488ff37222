package org.mpfl.runtime.interp;

import java.util.List;
import org.mpfl.ir.IrActivity;

/**
 * The position a resumed rank re-enters ({@link ProgramPosition} as a checkpoint saved it): the
 * {@link Executor} follows it level by level, starting each activity list at the saved index, until
 * it reaches the checkpoint itself, which is not run again; the rank continues right after it.
 */
final class ResumePoint {
    private final List<ProgramPosition.Step> path;
    private final IrActivity.Checkpoint site;

    ResumePoint(List<ProgramPosition.Step> path, IrActivity.Checkpoint site) {
        if (path.isEmpty()) {
            throw new IllegalArgumentException("the saved position is empty");
        }
        this.path = List.copyOf(path);
        this.site = site;
    }

    /** The saved step of level {@code depth}, checked against the activity list it is in. */
    ProgramPosition.Step step(int depth, int bodySize) {
        if (depth >= path.size()) {
            throw mismatch("the saved position has " + path.size() + " levels; the program goes deeper");
        }
        ProgramPosition.Step step = path.get(depth);
        if (step.index() < 0 || step.index() >= bodySize) {
            throw mismatch("activity " + step.index() + " of level " + depth + " does not exist (that list has "
                    + bodySize + ")");
        }
        return step;
    }

    boolean isLast(int depth) {
        return depth == path.size() - 1;
    }

    /** The activity the saved position ends at must be the checkpoint the state was taken at. */
    void checkAt(IrActivity a) {
        if (a != site) {
            throw mismatch("the saved position ends at the <" + Executor.name(a) + "> at " + a.at()
                    + ", not at the <checkpoint> at " + site.at());
        }
    }

    static Mismatch mismatch(String why) {
        return new Mismatch("the checkpoint's position does not fit this program: " + why);
    }

    /** A saved position that does not fit the program. */
    static final class Mismatch extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Mismatch(String message) {
            super(message);
        }
    }

    /** The fault of a rank whose saved position does not fit: at the process, like any refused part. */
    static RankFault fault(RankState rank, IllegalArgumentException why) {
        return Faults.of("resume", rank.program().process().at(), "cannot resume from checkpoint " + rank.lastCheckpoint()
                + ": " + why.getMessage());
    }
}
