package org.mpfl.compiler.comm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.IrWalk;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.ir.eval.RuntimeFault;
import org.mpfl.ir.eval.Values;
import org.mpfl.ir.semantics.Addressing;
import org.mpfl.ir.semantics.CartesianGrid;
import org.mpfl.ir.semantics.CollectiveShape;
import org.mpfl.ir.semantics.ForRange;
import org.mpfl.ir.semantics.Operands;
import org.mpfl.ir.semantics.SplitChoice;

/**
 * Executes a rank thread one step at a time (one activity, or one loop test) over symbolic values:
 * control flow with known values is followed exactly; point-to-point operations go to the
 * {@link PointToPointStepper}, collectives to the {@link CollectiveRendezvous}, values to
 * {@link SymbolicValues}; a blocking operation leaves a {@link Blocker} on the thread. Where a decision depends on run-time data it throws
 * {@link RankStop} — except for an {@code if} or loop without any communication inside, whose
 * assignments simply become unknown so that the analysis can go on.
 */
final class ProgramStepper {
    private final MessageMatcher matcher;
    private final CollectiveRendezvous rendezvous;
    private final CheckLimits limits;
    private final CommunicationReporter reporter;
    private final SymbolicValues values;
    private final PointToPointStepper pointToPoint;
    /** Checkpoints already reported for a message crossing them (once per place). */
    private final Set<SourceLocation> crossedCheckpoints = new java.util.HashSet<>();
    private final List<RankThread> started = new ArrayList<>();
    private final Map<List<IrActivity>, Boolean> communicationFree = new IdentityHashMap<>();

    ProgramStepper(MessageMatcher matcher, CollectiveRendezvous rendezvous, CheckLimits limits,
            CommunicationReporter reporter) {
        this.matcher = matcher;
        this.rendezvous = rendezvous;
        this.limits = limits;
        this.reporter = reporter;
        this.values = new SymbolicValues(limits);
        this.pointToPoint = new PointToPointStepper(matcher, values);
    }

    /** Threads started by {@code parallel} since the last call (the scheduler adds them). */
    List<RankThread> takeStartedThreads() {
        List<RankThread> list = new ArrayList<>(started);
        started.clear();
        return list;
    }

    /** Initialises a rank's variables in declaration order (an initialiser may read earlier ones). */
    void initialise(RankThread main) {
        for (var v : main.rank.process().variables()) {
            if (v.init() == null) {
                main.rank.write(v.name(), Values.zero(v.type()));
            } else {
                try {
                    values.store(main, new IrTarget(v.name(), null, v.type(), v.at()), v.init());
                } catch (RankStop stop) {
                    throw stop.at() == null ? new RankStop(stop.reason(), v.at(), stop.getMessage()) : stop;
                } catch (RuntimeFault fault) {
                    throw RankStop.fault(fault.location() == null ? v.at() : fault.location(), fault.getMessage());
                }
            }
        }
    }

    /** One step of {@code t}; may block it, finish it, or throw {@link RankStop}. */
    void step(RankThread t) {
        Object top = t.frames.peek();
        if (top == null) {
            t.done = true;
            return;
        }
        if (top instanceof RankThread.ForLoop f) {
            stepFor(t, f);
        } else if (top instanceof RankThread.WhileLoop w) {
            stepWhile(t, w);
        } else {
            RankThread.Body body = (RankThread.Body) top;
            if (body.next >= body.activities.size()) {
                t.frames.pop();
                if (t.frames.isEmpty()) {
                    t.done = true;
                }
                return;
            }
            IrActivity a = body.activities.get(body.next++);
            try {
                execute(a, t);
            } catch (RankStop stop) {
                throw stop.at() == null ? new RankStop(stop.reason(), a.at(), stop.getMessage()) : stop;
            } catch (Addressing.OutsideCommunicator outside) {
                throw RankStop.certainFault(outside.location(), outside.getMessage());
            } catch (RuntimeFault fault) {
                throw RankStop.fault(fault.location() == null ? a.at() : fault.location(), fault.getMessage());
            } catch (UnknownValueException unknown) {
                throw RankStop.undecided(a.at(), "the communication after this <" + IrActivity.elementName(a)
                        + "> depends on run-time data (it uses " + unknown.explain() + ")");
            } catch (RuntimeException unexpected) {
                // never let a document crash the compiler: say what was not followed instead
                throw RankStop.undecided(a.at(), "the check could not follow this <" + IrActivity.elementName(a) + "> ("
                        + unexpected + ")");
            }
        }
    }

    private void stepFor(RankThread t, RankThread.ForLoop f) {
        if (f.started) {
            f.current = f.range.after(f.current);
        }
        f.started = true;
        if (++f.iterations > limits.localLoopLimit() && isCommunicationFree(f.loop.body())) {
            t.frames.pop();
            havoc(t, f.loop.body(), "assigned in the <for> at " + f.loop.at() + ", which ran too long to be followed");
            return;
        }
        boolean more = f.range.includes(f.current);
        if (more) {
            t.frames.push(new RankThread.Body(f.loop.body()));
        } else {
            t.frames.pop();
        }
    }

    private void stepWhile(RankThread t, RankThread.WhileLoop w) {
        boolean communicationFree = isCommunicationFree(w.loop.body());
        if (++w.iterations > limits.localLoopLimit() && communicationFree) {
            t.frames.pop();
            havoc(t, w.loop.body(), "assigned in the <while> at " + w.loop.at() + ", which ran too long to be followed");
            return;
        }
        boolean more;
        try {
            more = ExpressionEvaluator.test(w.loop.test(), t);
        } catch (UnknownValueException unknown) {
            if (communicationFree) {
                t.frames.pop();
                havoc(t, w.loop.body(), "assigned in the <while> at " + w.loop.at() + ", whose condition depends on run-time data");
                return;
            }
            throw RankStop.undecided(w.loop.at(), "the communication after this <while> depends on run-time data"
                    + " (the condition uses " + unknown.explain() + ")");
        } catch (RuntimeFault fault) {
            throw RankStop.fault(fault.location() == null ? w.loop.at() : fault.location(), fault.getMessage());
        } catch (RankStop stop) {
            throw stop.at() == null ? new RankStop(stop.reason(), w.loop.at(), stop.getMessage()) : stop;
        }
        if (more) {
            t.frames.push(new RankThread.Body(w.loop.body()));
        } else {
            t.frames.pop();
        }
    }

    private void execute(IrActivity a, RankThread t) {
        if (a instanceof IrActivity.Assign x) {
            values.store(t, x.target(), x.value());
        } else if (a instanceof IrActivity.If x) {
            branch(x, t);
        } else if (a instanceof IrActivity.While x) {
            t.frames.push(new RankThread.WhileLoop(x));
        } else if (a instanceof IrActivity.For x) {
            startFor(x, t);
        } else if (a instanceof IrActivity.Break) {
            while (!t.frames.isEmpty()) {
                Object frame = t.frames.pop();
                if (frame instanceof RankThread.ForLoop || frame instanceof RankThread.WhileLoop) {
                    break;
                }
            }
        } else if (a instanceof IrActivity.Sequence x) {
            t.frames.push(new RankThread.Body(x.body()));
        } else if (a instanceof IrActivity.Parallel x) {
            List<RankThread> branches = new ArrayList<>();
            for (List<IrActivity> b : x.branches()) {
                branches.add(new RankThread(t.rank, t, b));
            }
            started.addAll(branches);
            t.blocker = new Blockers.Join(x.at(), branches);
        } else if (a instanceof IrActivity.Compute x) {
            for (IrTarget out : x.outputs()) {
                t.rank.write(out.variable(), new Unknown(out.variable(), "an output of <compute> at " + x.at()));
            }
        } else if (a instanceof IrActivity.Invoke x) {
            if (x.output() != null) {
                t.rank.write(x.output().variable(), new Unknown(x.output().variable(), "the result of <invoke> at " + x.at()));
            }
        } else if (a instanceof IrActivity.Fail) {
            throw RankStop.fault(a.at(), "<fail> is reached");
        } else if (a instanceof IrActivity.Collective || a instanceof IrActivity.Split || a instanceof IrActivity.Cartesian) {
            collective((IrActivity.Communication) a, t);
        } else if (a instanceof IrActivity.Communication || a instanceof IrActivity.Wait || a instanceof IrActivity.WaitAll) {
            pointToPoint.step(a, t);
        }
        // output, log, progress: no influence on communication
    }

    // ---- control flow ----

    private void branch(IrActivity.If x, RankThread t) {
        for (IrActivity.Arm arm : x.arms()) {
            boolean taken;
            try {
                taken = ExpressionEvaluator.test(arm.test(), t);
            } catch (UnknownValueException unknown) {
                List<List<IrActivity>> bodies = IrWalk.bodies(x);
                if (bodies.stream().allMatch(b -> isCommunicationFree(b) && !breaks(b))) {
                    bodies.forEach(b -> havoc(t, b, "assigned under the <if> at " + x.at()
                            + ", whose condition depends on run-time data"));
                    return;
                }
                throw RankStop.undecided(arm.at(), "the communication after this <" + (arm == x.arms().get(0) ? "if" : "elseif")
                        + "> depends on run-time data (the condition uses " + unknown.explain() + ")");
            }
            if (taken) {
                t.frames.push(new RankThread.Body(arm.body()));
                return;
            }
        }
        t.frames.push(new RankThread.Body(x.otherwise()));
    }

    private void startFor(IrActivity.For x, RankThread t) {
        ForRange range;
        try {
            // plain evaluation: an unknown bound comes here as UnknownValueException; a step of 0 is a fault
            range = ForRange.of(x, Operands.in(t));
        } catch (UnknownValueException unknown) {
            if (isCommunicationFree(x.body())) {
                havoc(t, x.body(), "assigned in the <for> at " + x.at() + ", whose bounds depend on run-time data");
                return;
            }
            throw RankStop.undecided(x.at(), "the communication after this <for> depends on run-time data (its bounds use "
                    + unknown.explain() + ")");
        }
        t.frames.push(new RankThread.ForLoop(x, range));
    }

    /** Whether a body has no communication at all, so that not following it changes no communication. */
    boolean isCommunicationFree(List<IrActivity> body) {
        return communicationFree.computeIfAbsent(body, b -> {
            boolean[] free = {true};
            IrWalk.forEachActivity(b, a -> {
                if (a instanceof IrActivity.Communication || a instanceof IrActivity.Wait || a instanceof IrActivity.WaitAll) {
                    free[0] = false;
                }
            });
            return free[0];
        });
    }

    /** Whether a body may leave the enclosing loop (a {@code break} not inside a loop of its own). */
    private static boolean breaks(List<IrActivity> body) {
        for (IrActivity a : body) {
            if (a instanceof IrActivity.Break) {
                return true;
            }
            if (a instanceof IrActivity.If || a instanceof IrActivity.Sequence) {
                for (List<IrActivity> nested : IrWalk.bodies(a)) {
                    if (breaks(nested)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * Makes every variable a body may assign unknown (the body is not followed). The body is communication-free
     * (isCommunicationFree), so its targets are those of assignments, kernels and invokes.
     */
    private static void havoc(RankThread t, List<IrActivity> body, String why) {
        Set<String> assigned = new LinkedHashSet<>();
        IrWalk.forEachActivity(body, a -> IrWalk.targets(a).forEach(target -> assigned.add(target.variable())));
        for (String name : assigned) {
            t.rank.write(name, new Unknown(name, why));
        }
    }

    // ---- collectives ----

    private void collective(IrActivity.Communication a, RankThread t) {
        SymbolicRank rank = t.rank;
        Communicator comm = rank.communicator(a.comm(), a.at());
        int me = comm.rankOf(rank.worldRank());
        Operands ops = SymbolicValues.operands(t, a);
        String kind = IrActivity.elementName(a);
        StringBuilder signature = new StringBuilder("<").append(kind).append(">");
        IrExpr rootExpr = CollectiveShape.root(a);
        Integer root = rootExpr == null ? null : Addressing.root(rootExpr, ops, comm.name(), comm.size());
        IrExpr data = CollectiveShape.data(a, root != null && root == me);
        IrActivity.ReduceOp op = CollectiveShape.op(a);
        Object contribution = null;
        if (a instanceof IrActivity.Broadcast x) {
            Object mine = rank.read(x.variable().variable());
            contribution = mine instanceof Unknown ? mine : Values.copy(mine);
        } else if (a instanceof IrActivity.Alltoall x) {
            // the blocks are not followed, but a known length that does not divide into equal blocks fails the run
            // there (in the run's words, CollectiveSteps)
            Object blocks = values.contribution(x.data(), t);
            if (!(blocks instanceof Unknown) && Values.length(blocks) % comm.size() != 0) {
                throw RankStop.fault(x.data().at(), "alltoall needs data whose length is a multiple of the " + comm.size()
                        + " ranks of communicator " + comm.name() + "; it has " + Values.length(blocks) + " elements");
            }
        } else if (a instanceof IrActivity.Scatter) {
            if (data != null) {
                values.evaluateData(data, t); // faults count; the blocks themselves are not followed
            }
        } else if (a instanceof IrActivity.Split x) {
            contribution = SplitChoice.of(x, ops, me);
        } else if (a instanceof IrActivity.Checkpoint x) {
            int every = ops.intValue(x.every(), "every");
            if (every != 1) {
                signature.append(" every ").append(every);
            }
            outstandingAtCheckpoint(x, t);
        } else if (a instanceof IrActivity.Cartesian x) {
            CartesianGrid grid = CartesianGrid.of(x, ops);
            contribution = grid;
            signature.append(" with dims ").append(Arrays.toString(grid.dims()))
                    .append(" periodic ").append(Arrays.toString(grid.periodic()));
        } else if (data != null) {
            contribution = values.contribution(data, t);
        }
        if (op != null) {
            signature.append(" with op ").append(op.spelling());
        }
        if (root != null) {
            signature.insert(signature.indexOf(">") + 1, " with root " + root);
        }
        CollectiveRendezvous.Slot slot = rendezvous.arrive(comm,
                new CollectiveRendezvous.Arrival(rank, a, me, signature.toString(), root, contribution));
        if (slot.completed && a instanceof IrActivity.Checkpoint x) {
            // the last rank arrived: every rank is at the checkpoint now, none has gone on
            messagesCrossing(x);
        }
        t.blocker = new Blockers.CollectiveWait(slot, me, thread -> collectiveDone(thread, a, slot, me));
    }

    /** Stores this member's result of a completed collective. */
    private void collectiveDone(RankThread t, IrActivity a, CollectiveRendezvous.Slot slot, int me) {
        Object result = slot.results[me];
        if (result instanceof RankStop stop) {
            throw stop;
        }
        SymbolicRank rank = t.rank;
        rank.lastCollective = "<" + IrActivity.elementName(a) + "> on comm " + slot.comm.name() + " at " + a.at();
        Integer root = slot.arrivals[me].root();
        IrTarget target = CollectiveShape.result(a, root != null && root == me);
        if (target != null) {
            values.storeValue(t, target, result);
        } else if (a instanceof IrActivity.Split x) {
            rank.define(x.name(), (Communicator) result);
        } else if (a instanceof IrActivity.Cartesian x) {
            rank.define(x.name(), (Communicator) result);
        }
    }

    /**
     * A non-blocking request still outstanding when a rank reaches a checkpoint: an error, since the
     * state saved there could not hold the operation (the run would fail at the checkpoint).
     */
    private void outstandingAtCheckpoint(IrActivity.Checkpoint x, RankThread t) {
        for (Map.Entry<String, Request> open : t.rank.requests().entrySet()) {
            Request r = open.getValue();
            reporter.outstandingAtCheckpoint(x.at(), open.getKey(), IrActivity.elementName(r.origin), r.at, t.rank.worldRank());
            throw new RankStop(RankStop.Reason.ERROR, x.at(), "request outstanding at a checkpoint");
        }
    }

    /**
     * Every rank of the domain is at the checkpoint: a message sent and not yet received crosses it,
     * which the saved state could not hold (reported once per checkpoint).
     */
    private void messagesCrossing(IrActivity.Checkpoint x) {
        List<Request> crossing = matcher.unreceivedMessages();
        if (crossing.isEmpty() || !crossedCheckpoints.add(x.at())) {
            return;
        }
        Request m = crossing.get(0);
        reporter.error(x.at(), "a message crosses this <checkpoint>: rank " + m.owner.worldRank() + " sends it at " + m.at
                + " to " + m.describePeer() + " (" + m.describeTag() + ", comm " + m.comm.name() + "), which has not received it"
                + " when every rank is at the checkpoint; no message may be in flight at a checkpoint" + (crossing.size() > 1 ? " (" + crossing.size()
                + " messages cross it)" : ""), List.of(new org.mpfl.ir.diag.Diagnostic.Note(m.at, "sent here")));
    }
}
