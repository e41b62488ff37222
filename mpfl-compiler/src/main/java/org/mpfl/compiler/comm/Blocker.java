package org.mpfl.compiler.comm;

import java.util.List;
import org.mpfl.ir.diag.SourceLocation;

/**
 * Why a thread of a rank cannot go on: it waits for requests, for a collective to complete, or for
 * its parallel branches. The scheduler polls {@link #satisfied()}; the wait-for graph uses
 * {@link #waitsFor()} and {@link #describe()} to explain a blocked state.
 */
interface Blocker {
    boolean satisfied();

    /** The activity that waits. */
    SourceLocation at();

    /** What it waits for, e.g. {@code "<receive> from rank 3 (tag 0, comm world)"}. */
    String describe();

    /** The world ranks that could end the wait (for a receive from any rank: every member of its communicator). */
    List<Integer> waitsFor();

    /** Runs once the wait is over, on the waiting thread (stores received results). */
    void resume(RankThread thread);
}
