package org.mpfl.compiler.check.activity;

/**
 * Where an activity sits: inside how many loops, and whether a parallel branch lies in between
 * (a {@code <break>} may leave a loop, never a branch).
 */
public record Flow(int loopDepth, boolean inBranch) {

    /** The flow of a loop body nested in this one. */
    public Flow inLoop() {
        return new Flow(loopDepth + 1, inBranch);
    }

    /** The flow of a process body: no loop, no branch. */
    public static Flow top() {
        return new Flow(0, false);
    }
}
