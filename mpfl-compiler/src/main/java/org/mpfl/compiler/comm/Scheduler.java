package org.mpfl.compiler.comm;

import java.util.ArrayList;
import java.util.List;

/**
 * Steps the ranks cooperatively, in rank order, each runnable thread for a bounded quantum, until
 * every rank has finished, stopped or is blocked — or a bound of {@link CheckLimits} is reached.
 * Deterministic: the same document and params always give the same run and the same report.
 */
final class Scheduler {
    /** Steps a thread may take before the next thread gets its turn. */
    private static final int QUANTUM = 256;

    /** How the run ended. */
    enum Outcome { SETTLED, OPERATION_LIMIT, TIME_LIMIT }

    private final ProgramStepper stepper;
    private final CommunicationReporter reporter;
    private final CheckLimits limits;
    private long operations;

    Scheduler(ProgramStepper stepper, CommunicationReporter reporter, CheckLimits limits) {
        this.stepper = stepper;
        this.reporter = reporter;
        this.limits = limits;
    }

    long operations() {
        return operations;
    }

    Outcome run(List<SymbolicRank> ranks) {
        long deadline = System.nanoTime() + limits.maxMillis() * 1_000_000L;
        boolean progress = true;
        while (progress) {
            progress = false;
            for (SymbolicRank rank : ranks) {
                if (rank.status != SymbolicRank.Status.RUNNING) {
                    continue;
                }
                try {
                    for (RankThread thread : new ArrayList<>(rank.threads)) {
                        if (rank.status != SymbolicRank.Status.RUNNING) {
                            break;
                        }
                        if (resumeIfReady(thread)) {
                            progress = true;
                        }
                        for (int q = 0; q < QUANTUM && thread.runnable(); q++) {
                            if (operations >= limits.maxOperations()) {
                                return Outcome.OPERATION_LIMIT;
                            }
                            operations++;
                            if ((operations & 15) == 0 && System.nanoTime() > deadline) { // often: one step may build a large value
                                return Outcome.TIME_LIMIT;
                            }
                            stepper.step(thread);
                            rank.threads.addAll(stepper.takeStartedThreads());
                            resumeIfReady(thread);
                            progress = true;
                        }
                    }
                    if (rank.status == SymbolicRank.Status.RUNNING && rank.threads.get(0).done) {
                        rank.status = SymbolicRank.Status.DONE;
                    }
                } catch (RankStop stop) {
                    if (rank.status != SymbolicRank.Status.STOPPED) {
                        rank.status = SymbolicRank.Status.STOPPED;
                        rank.stop = stop;
                        reporter.stopped(rank, stop);
                    }
                    progress = true;
                }
            }
        }
        return Outcome.SETTLED;
    }

    /** Ends a satisfied wait (storing what it delivered); true if it did. */
    private boolean resumeIfReady(RankThread thread) {
        Blocker b = thread.blocker;
        if (b == null || !b.satisfied()) {
            return false;
        }
        thread.blocker = null;
        try {
            b.resume(thread);
        } catch (RankStop stop) {
            throw stop.at() == null ? new RankStop(stop.reason(), b.at(), stop.getMessage()) : stop;
        } catch (org.mpfl.ir.eval.RuntimeFault fault) {
            throw RankStop.fault(fault.location() == null ? b.at() : fault.location(), fault.getMessage());
        }
        return true;
    }
}
