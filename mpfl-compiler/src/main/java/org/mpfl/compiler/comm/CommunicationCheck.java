package org.mpfl.compiler.comm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.mpfl.compiler.check.WorkflowAnalysis;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.IrWorkflow;
import org.mpfl.ir.eval.ConstantEnvironment;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.ir.eval.RuntimeFault;

/**
 * The communication check of spec section 5, for given param values: every rank's program is
 * executed symbolically (concrete values where known, {@link Unknown} for run-time data), the ranks
 * are stepped by a {@link Scheduler} until all have finished or none can move, and then
 * {@link FinalStateAnalysis} explains what is stuck. Errors: deadlock cycles, unmatched sends and
 * receives, collective mismatches, messages whose type cannot fit their receive ({@link MessageTyping})
 * and ranks outside their communicator. Warnings: what depends on run-time data and was not decided,
 * faults the run would hit with these values, and bounds of {@link CheckLimits} that stopped the check.
 */
public final class CommunicationCheck implements WorkflowAnalysis {
    private final CheckLimits limits;

    /** The check with the default limits (overridable by system properties). */
    public CommunicationCheck() {
        this(CheckLimits.fromSystemProperties());
    }

    public CommunicationCheck(CheckLimits limits) {
        this.limits = limits;
    }

    @Override
    public void analyse(IrWorkflow workflow, Map<String, Object> paramValues, Diagnostics diagnostics) {
        try {
            run(workflow, paramValues, diagnostics);
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            // a bug of the check must not cost the user the rest of the compilation: say so instead
            diagnostics.warning(workflow.at(), "the communication check could not complete (" + e + "); it is not checked");
        }
    }

    private void run(IrWorkflow workflow, Map<String, Object> paramValues, Diagnostics diagnostics) {
        run(workflow, paramValues, diagnostics, CommunicationObserver.NONE);
    }

    /** The check, telling {@code observer} about every matched message and completed collective. */
    void run(IrWorkflow workflow, Map<String, Object> paramValues, Diagnostics diagnostics, CommunicationObserver observer) {
        CommunicationReporter reporter = new CommunicationReporter(diagnostics);
        ProcessLayout layout = layout(workflow, paramValues, reporter);
        if (layout == null) {
            return;
        }
        // communicator ids: 0 = world, 1.. = the process communicators, then the created ones
        int world = layout.worldSize();
        List<String> processes = layout.processes();
        Communicator worldComm = new Communicator(0, "world", range(0, world), null, null);
        List<Communicator> processComms = new ArrayList<>();
        for (int i = 0; i < processes.size(); i++) {
            String p = processes.get(i);
            processComms.add(new Communicator(i + 1, p, range(layout.first(p), layout.first(p) + layout.count(p)), null, null));
        }
        MessageMatcher matcher = new MessageMatcher(world, new MessageTyping(reporter));
        CollectiveRendezvous rendezvous = new CollectiveRendezvous(new CollectiveResults(processes.size() + 1), reporter);
        matcher.observer = observer;
        rendezvous.observer = observer;
        ProgramStepper stepper = new ProgramStepper(matcher, rendezvous, limits, reporter);
        Scheduler scheduler = new Scheduler(stepper, reporter, limits);

        List<SymbolicRank> ranks = new ArrayList<>(world);
        for (int r = 0; r < world; r++) {
            String processName = layout.processOf(r);
            IrProcess process = workflow.process(processName);
            SymbolicRank rank = new SymbolicRank(r, process, layout, paramValues);
            rank.define("world", worldComm);
            rank.define(processName, processComms.get(processes.indexOf(processName)));
            RankThread main = new RankThread(rank, null, process.body());
            rank.threads.add(main);
            ranks.add(rank);
            try {
                stepper.initialise(main);
            } catch (RankStop stop) {
                rank.status = SymbolicRank.Status.STOPPED;
                rank.stop = stop;
                reporter.stopped(rank, stop);
            } catch (RuntimeFault fault) {
                RankStop stop = RankStop.fault(fault.location() == null ? process.at() : fault.location(), fault.getMessage());
                rank.status = SymbolicRank.Status.STOPPED;
                rank.stop = stop;
                reporter.stopped(rank, stop);
            }
        }

        Scheduler.Outcome outcome = scheduler.run(ranks);
        reporter.flush();
        if (outcome == Scheduler.Outcome.SETTLED) {
            new FinalStateAnalysis(ranks, reporter).analyse(rendezvous, matcher);
        } else {
            reporter.warning(workflow.at(), "the communication check stopped after " + scheduler.operations() + " operations"
                    + (outcome == Scheduler.Outcome.TIME_LIMIT ? " (time limit of " + limits.maxMillis() + " ms)"
                            : " (limit of " + limits.maxOperations() + ")")
                    + "; the communication after that point is not checked");
        }
    }

    /** The rank layout, or null (with a warning) if it cannot be computed or is too large to analyse. */
    private ProcessLayout layout(IrWorkflow workflow, Map<String, Object> paramValues, CommunicationReporter reporter) {
        try {
            ProcessLayout layout = ProcessLayout.of(workflow, paramValues);
            if (layout.worldSize() > limits.maxRanks()) {
                reporter.warning(workflow.at(), "the communication check is skipped: " + layout.worldSize()
                        + " ranks are more than it analyses (" + limits.maxRanks() + ")");
                return null;
            }
            return layout;
        } catch (ConstantEnvironment.NotConstantException unknown) {
            for (IrProcess p : workflow.processes()) {
                try {
                    ProcessLayout.of(new IrWorkflow(workflow.name(), workflow.version(), workflow.description(),
                            workflow.sourceFile(), workflow.libraries(), workflow.params(), List.of(p), workflow.at()), paramValues);
                } catch (ConstantEnvironment.NotConstantException e) {
                    reporter.warning(p.ranks().at(), "the communication check is skipped: the rank count of process '" + p.name()
                            + "' is not known before the run (" + e.getMessage() + "; give it with --param)");
                    return null;
                } catch (RuntimeException e) {
                    return null;
                }
            }
            return null;
        } catch (RuntimeException fault) {
            return null; // bad rank counts are reported by the type checker's param step
        }
    }

    private static int[] range(int from, int to) {
        int[] r = new int[to - from];
        for (int i = 0; i < r.length; i++) {
            r[i] = from + i;
        }
        return r;
    }
}
