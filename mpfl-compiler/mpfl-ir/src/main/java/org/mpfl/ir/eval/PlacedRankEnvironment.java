package org.mpfl.ir.eval;

/**
 * The evaluation environment of a rank placed in a {@link ProcessLayout}: the built-ins that depend
 * only on where the rank sits ({@code size}, {@code prank}, {@code psize}, {@code first('P')},
 * {@code count('P')}) are worked out here once, so that the compiler's communication check and the
 * rank interpreter answer them alike.
 */
public interface PlacedRankEnvironment extends EvaluationEnvironment {

    /** The layout of the workflow's processes over the domain. */
    ProcessLayout processLayout();

    /** The process this rank belongs to. */
    String ownProcess();

    @Override
    default int worldSize() {
        return processLayout().worldSize();
    }

    @Override
    default int processRank() {
        return worldRank() - processLayout().first(ownProcess());
    }

    @Override
    default int processSize() {
        return processLayout().count(ownProcess());
    }

    @Override
    default int firstRank(String process) {
        return processLayout().first(process);
    }

    @Override
    default int rankCount(String process) {
        return processLayout().count(process);
    }
}
