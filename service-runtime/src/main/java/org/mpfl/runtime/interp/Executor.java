package org.mpfl.runtime.interp;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.ir.semantics.ForRange;
import org.mpfl.ir.semantics.Operands;
import org.mpfl.runtime.api.DomainAbortedException;

/**
 * Executes activity lists of one rank: the control flow itself (assign, if, while, for, break,
 * sequence, parallel) and dispatch of the other activities to the step that owns them. Any fault is
 * turned into a {@link RankFault} at the innermost activity that raised it ({@link Faults}).
 */
final class Executor {
    /** How an activity list ended: normally, or by a {@code break} that the enclosing loop consumes. */
    enum Flow { NEXT, BREAK }

    /** How long a failed parallel waits for its other branches to notice before failing the rank anyway. */
    private static final long BRANCH_STOP_MS = 2_000;

    private final PointToPointSteps pointToPoint = new PointToPointSteps();
    private final CollectiveSteps collectives = new CollectiveSteps();
    private final CommunicatorSteps communicators = new CommunicatorSteps();
    private final ComputeStep compute = new ComputeStep();
    private final InvokeStep invoke = new InvokeStep();
    private final ReportSteps reports = new ReportSteps();
    private final CheckpointStep checkpoints = new CheckpointStep();

    Flow run(List<IrActivity> body, Frame frame) {
        if (!frame.tracked()) {
            for (int i = 0, n = body.size(); i < n; i++) {
                if (execute(body.get(i), frame) == Flow.BREAK) {
                    return Flow.BREAK;
                }
            }
            return Flow.NEXT;
        }
        // the main thread: keep the position up to date for checkpoints, re-enter it when resuming
        ProgramPosition position = frame.rank().position();
        ProgramPosition.Level level = position.push();
        try {
            int i = 0;
            ResumePoint resume = frame.rank().resuming();
            if (resume != null) {
                int depth = position.depth() - 1;
                ProgramPosition.Step step;
                try {
                    step = resume.step(depth, body.size());
                    if (resume.isLast(depth)) {
                        resume.checkAt(body.get(step.index()));
                    }
                } catch (ResumePoint.Mismatch e) {
                    throw ResumePoint.fault(frame.rank(), e);
                }
                i = step.index();
                level.enter(i);
                IrActivity a = body.get(i);
                if (resume.isLast(depth)) {
                    frame.rank().resumed();
                } else if (reenter(a, step, frame, level) == Flow.BREAK) {
                    return Flow.BREAK;
                }
                i++;
            }
            for (int n = body.size(); i < n; i++) {
                level.enter(i);
                if (execute(body.get(i), frame) == Flow.BREAK) {
                    return Flow.BREAK;
                }
            }
            return Flow.NEXT;
        } finally {
            position.pop();
        }
    }

    /** Resuming: runs the rest of the if arm, loop iteration or sequence the checkpoint was in, then what follows in it. */
    private Flow reenter(IrActivity a, ProgramPosition.Step step, Frame f, ProgramPosition.Level level) {
        try {
            if (a instanceof IrActivity.If x) {
                int arm = step.arm() == null ? -1 : step.arm();
                if (arm < 0 || arm > x.arms().size()) {
                    throw ResumePoint.mismatch("no arm " + arm + " in the <if> at " + x.at());
                }
                level.arm = arm;
                return run(arm == x.arms().size() ? x.otherwise() : x.arms().get(arm).body(), f);
            } else if (a instanceof IrActivity.Sequence x) {
                return run(x.body(), f);
            } else if (a instanceof IrActivity.For x) {
                if (step.value() == null) {
                    throw ResumePoint.mismatch("no loop value for the <for> at " + x.at());
                }
                return loop(x, f, step.range(), step.value());
            } else if (a instanceof IrActivity.While x) {
                long iteration = step.iteration() == null ? 0 : step.iteration();
                level.iteration = iteration;
                if (run(x.body(), f) == Flow.BREAK) {
                    return Flow.NEXT;
                }
                return loop(x, f, iteration + 1);
            }
            throw ResumePoint.mismatch("the saved position goes into a <" + name(a) + "> at " + a.at()
                    + ", which has no body");
        } catch (RankFault e) {
            throw e;
        } catch (ResumePoint.Mismatch e) {
            throw ResumePoint.fault(f.rank(), e);
        } catch (RuntimeException | OutOfMemoryError e) {
            throw Faults.at(name(a), a.at(), e);
        }
    }

    Flow execute(IrActivity a, Frame f) {
        try {
            if (a instanceof IrActivity.Assign x) {
                f.rank().store(x.target(), ExpressionEvaluator.evaluate(x.value(), f), true, f, "value");
            } else if (a instanceof IrActivity.If x) {
                return ifThenElse(x, f);
            } else if (a instanceof IrActivity.For x) {
                return loop(x, f);
            } else if (a instanceof IrActivity.While x) {
                return loop(x, f);
            } else if (a instanceof IrActivity.Break) {
                return Flow.BREAK;
            } else if (a instanceof IrActivity.Sequence x) {
                return run(x.body(), f);
            } else if (a instanceof IrActivity.Parallel x) {
                parallel(x, f);
            } else if (a instanceof IrActivity.Compute x) {
                compute.execute(x, f);
            } else if (a instanceof IrActivity.Invoke x) {
                invoke.execute(x, f);
            } else if (a instanceof IrActivity.Checkpoint x) {
                checkpoints.execute(x, f);
            } else if (a instanceof IrActivity.Collective x) {
                collectives.execute(x, f);
            } else if (a instanceof IrActivity.Split || a instanceof IrActivity.Cartesian) {
                communicators.execute((IrActivity.Communication) a, f);
            } else if (a instanceof IrActivity.Communication || a instanceof IrActivity.Wait
                    || a instanceof IrActivity.WaitAll) {
                pointToPoint.execute(a, f);
            } else {
                reports.execute(a, f);
            }
            return Flow.NEXT;
        } catch (RuntimeException | OutOfMemoryError e) {
            throw Faults.at(name(a), a.at(), e);
        }
    }

    private Flow ifThenElse(IrActivity.If x, Frame f) {
        for (int k = 0; k < x.arms().size(); k++) {
            IrActivity.Arm arm = x.arms().get(k);
            boolean taken;
            try {
                taken = ExpressionEvaluator.test(arm.test(), f);
            } catch (RuntimeException e) {
                throw Faults.at(arm == x.arms().get(0) ? "if" : "elseif", arm.at(), e);
            }
            if (taken) {
                if (f.tracked()) {
                    f.rank().position().top().arm = k;
                }
                return run(arm.body(), f);
            }
        }
        if (f.tracked()) {
            f.rank().position().top().arm = x.arms().size();
        }
        return run(x.otherwise(), f);
    }

    private Flow loop(IrActivity.While x, Frame f) {
        return loop(x, f, 0);
    }

    /** A while loop from its {@code iteration}-th test on (0: from the start). */
    private Flow loop(IrActivity.While x, Frame f, long iteration) {
        RankState rank = f.rank();
        ProgramPosition.Level level = f.tracked() ? rank.position().top() : null;
        for (long n = iteration; ExpressionEvaluator.test(x.test(), f); n++) {
            rank.checkAborted();
            if (level != null) {
                level.iteration = n;
            }
            if (run(x.body(), f) == Flow.BREAK) {
                break;
            }
        }
        return Flow.NEXT;
    }

    private Flow loop(IrActivity.For x, Frame f) {
        ForRange range = ForRange.of(x, Operands.in(f));
        return loop(x, f, range, range.from());
    }

    /** A for loop over {@code range} from the iteration at {@code first} on (resuming starts inside it). */
    private Flow loop(IrActivity.For x, Frame f, ForRange range, long first) {
        RankState rank = f.rank();
        Frame body = f.withLoopVariable(x.variable());
        ProgramPosition.Level level = f.tracked() ? rank.position().top() : null;
        if (level != null) {
            level.range = range;
        }
        // long arithmetic: i += step must not wrap around near Integer.MAX_VALUE
        for (long i = first; range.includes(i); i = range.after(i)) {
            rank.checkAborted();
            body.setLoopValue((int) i);
            if (level != null) {
                level.value = i;
            }
            if (run(x.body(), body) == Flow.BREAK) {
                break;
            }
        }
        return Flow.NEXT;
    }

    /** Runs the branches on threads of their own; returns when all completed, fails the rank when one fails. */
    private void parallel(IrActivity.Parallel x, Frame f) {
        List<List<IrActivity>> branches = x.branches();
        RankActivityMonitor monitor = f.rank().monitor();
        List<Thread> threads = new ArrayList<>(branches.size());
        Throwable[] failures = new Throwable[branches.size()];
        Object done = new Object();
        int[] running = {branches.size()};
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        String name = Thread.currentThread().getName();
        monitor.branchesStarted(branches.size());
        try {
            for (int b = 0; b < branches.size(); b++) {
                int index = b;
                Frame branchFrame = f.branch();
                Thread t = new Thread(() -> {
                    try {
                        run(branches.get(index), branchFrame);
                    } catch (Throwable e) {
                        failures[index] = e;
                    } finally {
                        synchronized (done) {
                            running[0]--;
                            done.notifyAll();
                        }
                    }
                }, name + "-branch-" + (b + 1));
                t.setDaemon(true);
                t.setContextClassLoader(loader);
                threads.add(t);
            }
            threads.forEach(Thread::start);
            Throwable first = awaitBranches(done, running, failures);
            if (first != null) {
                // the others may be blocked on messages that will never come: interrupt them and give
                // them a moment to end; the domain abort that follows the rank's failure ends the rest
                threads.forEach(Thread::interrupt);
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BRANCH_STOP_MS);
                for (Thread t : threads) {
                    long left = deadline - System.nanoTime();
                    if (left > 0) {
                        joinQuietly(t, left);
                    }
                }
                throw first instanceof RuntimeException r ? r : new RankFault("parallel", x.at(),
                        "a branch failed: " + first, first);
            }
        } finally {
            monitor.branchesEnded(branches.size());
        }
    }

    /** Waits until all branches ended or one failed; returns the failure to report (a fault before an abort). */
    private static Throwable awaitBranches(Object done, int[] running, Throwable[] failures) {
        synchronized (done) {
            while (true) {
                Throwable fault = null;
                Throwable aborted = null;
                for (Throwable t : failures) {
                    if (t instanceof DomainAbortedException) {
                        aborted = aborted == null ? t : aborted;
                    } else if (t != null) {
                        fault = fault == null ? t : fault;
                    }
                }
                if (fault != null) {
                    return fault;
                }
                if (running[0] == 0) {
                    return aborted;
                }
                if (aborted != null) {
                    return aborted;
                }
                try {
                    done.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return new DomainAbortedException("interrupted while waiting for parallel branches");
                }
            }
        }
    }

    private static void joinQuietly(Thread t, long nanos) {
        try {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The activity's name in events and errors: its element name, with the class or operation where that helps. */
    static String name(IrActivity a) {
        if (a instanceof IrActivity.Compute c) {
            return "compute " + c.kernelName();
        }
        if (a instanceof IrActivity.Invoke i) {
            return "invoke " + i.operation();
        }
        return IrActivity.elementName(a);
    }
}
