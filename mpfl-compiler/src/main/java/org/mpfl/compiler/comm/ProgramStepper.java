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
import org.mpfl.ir.MpflType;
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
 * {@link MessageMatcher}, collectives to the {@link CollectiveRendezvous}; a blocking operation
 * leaves a {@link Blocker} on the thread. Where a decision depends on run-time data it throws
 * {@link RankStop} — except for an {@code if} or loop without any communication inside, whose
 * assignments simply become unknown so that the analysis can go on.
 */
final class ProgramStepper {
    private final MessageMatcher matcher;
    private final CollectiveRendezvous rendezvous;
    private final CheckLimits limits;
    private final CommunicationReporter reporter;
    private final AllocationGuard guard;
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
        this.guard = new AllocationGuard(limits.maxValueLength());
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
                    store(main, new IrTarget(v.name(), null, v.type(), v.at()), v.init(), v.at());
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
                throw RankStop.undecided(a.at(), "the communication after this <" + CommunicationReporter.kind(a)
                        + "> depends on run-time data (it uses " + unknown.explain() + ")");
            } catch (RuntimeException unexpected) {
                // never let a document crash the compiler: say what was not followed instead
                throw RankStop.undecided(a.at(), "the check could not follow this <" + CommunicationReporter.kind(a) + "> ("
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
            store(t, x.target(), x.value(), x.at());
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
            pointToPoint(a, t);
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

    /** Makes every variable a body may assign unknown (the body is not followed). */
    private static void havoc(RankThread t, List<IrActivity> body, String why) {
        Set<String> assigned = new LinkedHashSet<>();
        IrWalk.forEachActivity(body, a -> {
            if (a instanceof IrActivity.Assign x) {
                assigned.add(x.target().variable());
            } else if (a instanceof IrActivity.Compute x) {
                x.outputs().forEach(o -> assigned.add(o.variable()));
            } else if (a instanceof IrActivity.Invoke x && x.output() != null) {
                assigned.add(x.output().variable());
            }
        });
        for (String name : assigned) {
            t.rank.write(name, new Unknown(name, why));
        }
    }

    // ---- values ----

    /** {@code target = value}: unknown values and unknown indices make the variable unknown. */
    private void store(RankThread t, IrTarget target, IrExpr value, SourceLocation at) {
        Object result;
        try {
            String refused = guard.refuse(value, t);
            result = refused != null ? new Unknown(target.variable(), refused) : ExpressionEvaluator.evaluate(value, t);
        } catch (UnknownValueException unknown) {
            result = unknown.unknown();
        }
        storeValue(t, target, result);
    }

    /** Stores an evaluated value (or {@link Unknown}) into a target. */
    void storeValue(RankThread t, IrTarget target, Object value) {
        String name = target.variable();
        int length = lengthOf(value);
        if (length > limits.maxValueLength()) {
            value = new Unknown(name, "a value of " + length + " elements, more than the check follows ("
                    + limits.maxValueLength() + ")");
        }
        if (target.index() == null) {
            t.rank.write(name, value instanceof Unknown ? value : coerce(Values.copy(value), target.type()));
            return;
        }
        Object array = t.rank.read(name);
        if (array instanceof Unknown) {
            return;
        }
        int index;
        try {
            index = ExpressionEvaluator.evaluateInt(target.index(), t);
        } catch (UnknownValueException unknown) {
            t.rank.write(name, unknown.unknown());
            return;
        }
        if (value instanceof Unknown u) {
            t.rank.write(name, u);
            return;
        }
        ExpressionEvaluator.storeElement(array, index, value, target.at());
    }

    /** Elements of an array or characters of a string; 0 for anything else. */
    private static int lengthOf(Object value) {
        if (value instanceof String text) {
            return text.length();
        }
        return value != null && value.getClass().isArray() && !(value instanceof Object[]) ? Values.length(value) : 0;
    }

    private static Object coerce(Object value, MpflType type) {
        Object fitted = Values.coerce(value, type);
        return fitted == null ? value : fitted;
    }

    /**
     * The operands of {@code a} as the shared semantics read them: one that depends on run-time data
     * stops the rank here, naming the operand, since the communication that follows depends on it.
     */
    private static Operands operands(RankThread t, IrActivity a) {
        Operands plain = Operands.in(t);
        return new Operands() {
            @Override
            public Object value(IrExpr expr, String role) {
                try {
                    return plain.value(expr, role);
                } catch (UnknownValueException unknown) {
                    throw undecided(role, unknown);
                }
            }

            @Override
            public int intValue(IrExpr expr, String role) {
                try {
                    return plain.intValue(expr, role);
                } catch (UnknownValueException unknown) {
                    throw undecided(role, unknown);
                }
            }

            @Override
            public boolean test(IrExpr expr, String role) {
                try {
                    return plain.test(expr, role);
                } catch (UnknownValueException unknown) {
                    throw undecided(role, unknown);
                }
            }

            private RankStop undecided(String role, UnknownValueException unknown) {
                return RankStop.undecided(a.at(), "the " + role + " of this <" + CommunicationReporter.kind(a)
                        + "> depends on run-time data (it uses " + unknown.explain() + ")");
            }
        };
    }

    /** Evaluates data that is sent: faults count, the value itself is not followed. */
    private void evaluateData(IrExpr data, RankThread t) {
        try {
            if (guard.refuse(data, t) == null) {
                ExpressionEvaluator.evaluate(data, t);
            }
        } catch (UnknownValueException ignored) {
            // sending an unknown value is fine: received values are unknown anyway
        }
    }

    // ---- point-to-point ----

    private void pointToPoint(IrActivity a, RankThread t) {
        SymbolicRank rank = t.rank;
        Operands ops = operands(t, a);
        if (a instanceof IrActivity.Send x) {
            Communicator comm = rank.communicator(x.comm(), x.at());
            int to = Addressing.destination(x.to(), ops, comm.name(), comm.size());
            int tag = Addressing.sendTag(x.tag(), ops);
            evaluateData(x.data(), t);
            if (to != Communicator.PROC_NULL) {
                Request message = new Request(Request.Kind.SEND, rank, comm, to, tag,
                        x.mode() == IrActivity.SendMode.SYNCHRONOUS, a, x.at());
                matcher.send(message);
                if (!message.complete) {
                    t.blocker = new Blockers.RequestWait(x.at(), "synchronous <send>", List.of(message), null);
                }
            }
        } else if (a instanceof IrActivity.Receive x) {
            Communicator comm = rank.communicator(x.comm(), x.at());
            int from = Addressing.source(x.from(), ops, comm.name(), comm.size());
            int tag = Addressing.receiveTag(x.tag(), ops);
            if (from == Communicator.PROC_NULL) {
                deliverFromNobody(t, x.source(), x.gottag());
                return;
            }
            Request receive = new Request(Request.Kind.RECEIVE, rank, comm, from, tag, false, a, x.at());
            matcher.receive(receive);
            t.blocker = new Blockers.RequestWait(x.at(), "<receive>", List.of(receive),
                    thread -> deliver(thread, receive, x.into(), x.source(), x.gottag()));
        } else if (a instanceof IrActivity.SendRecv x) {
            Communicator comm = rank.communicator(x.comm(), x.at());
            int to = Addressing.destination(x.to(), ops, comm.name(), comm.size());
            int sendTag = Addressing.sendTag(x.sendTag(), ops);
            int from = Addressing.source(x.from(), ops, comm.name(), comm.size());
            int recvTag = Addressing.receiveTag(x.recvTag(), ops);
            evaluateData(x.data(), t);
            Request receive = null;
            if (from != Communicator.PROC_NULL) {
                receive = new Request(Request.Kind.RECEIVE, rank, comm, from, recvTag, false, a, x.at());
                matcher.receive(receive);
            }
            if (to != Communicator.PROC_NULL) {
                matcher.send(new Request(Request.Kind.SEND, rank, comm, to, sendTag, false, a, x.at()));
            }
            if (receive != null) {
                Request r = receive;
                t.blocker = new Blockers.RequestWait(x.at(), "<sendrecv>", List.of(receive),
                        thread -> deliver(thread, r, x.into(), null, null));
            }
        } else if (a instanceof IrActivity.ISend x) {
            Communicator comm = rank.communicator(x.comm(), x.at());
            int to = Addressing.destination(x.to(), ops, comm.name(), comm.size());
            int tag = Addressing.sendTag(x.tag(), ops);
            evaluateData(x.data(), t);
            rank.requests().remove(x.request());
            if (to != Communicator.PROC_NULL) {
                Request message = new Request(Request.Kind.SEND, rank, comm, to, tag,
                        x.mode() == IrActivity.SendMode.SYNCHRONOUS, a, x.at());
                matcher.send(message);
                rank.requests().put(x.request(), message);
            }
        } else if (a instanceof IrActivity.IRecv x) {
            Communicator comm = rank.communicator(x.comm(), x.at());
            int from = Addressing.source(x.from(), ops, comm.name(), comm.size());
            int tag = Addressing.receiveTag(x.tag(), ops);
            rank.requests().remove(x.request());
            if (from == Communicator.PROC_NULL) {
                deliverFromNobody(t, x.source(), x.gottag());
                return;
            }
            Request receive = new Request(Request.Kind.RECEIVE, rank, comm, from, tag, false, a, x.at());
            matcher.receive(receive);
            rank.requests().put(x.request(), receive);
        } else if (a instanceof IrActivity.Wait x) {
            await(t, a, List.of(x.request()));
        } else if (a instanceof IrActivity.WaitAll x) {
            await(t, a, x.requests());
        }
    }

    private void await(RankThread t, IrActivity a, List<String> names) {
        List<Request> requests = new ArrayList<>();
        for (String name : names) {
            Request r = t.rank.requests().remove(name);
            if (r != null) { // a request never started or already waited for is MPI's null request
                requests.add(r);
            }
        }
        if (requests.isEmpty()) {
            return;
        }
        t.blocker = new Blockers.RequestWait(a.at(), "<" + CommunicationReporter.kind(a) + ">", requests, thread -> {
            for (Request r : requests) {
                if (r.origin instanceof IrActivity.IRecv x) {
                    deliver(thread, r, x.into(), x.source(), x.gottag());
                }
            }
        });
    }

    private void deliver(RankThread t, Request receive, IrTarget into, IrTarget source, IrTarget gottag) {
        storeValue(t, into, new Unknown(into.variable(), "received at " + receive.at));
        if (source != null) {
            storeValue(t, source, receive.peer == Communicator.ANY_SOURCE
                    ? new Unknown(source.variable(), "the sender of the receive from any rank at " + receive.at)
                    : (Object) receive.peer);
        }
        if (gottag != null) {
            storeValue(t, gottag, receive.tag == Communicator.ANY_TAG
                    ? new Unknown(gottag.variable(), "the tag of the receive of any tag at " + receive.at)
                    : (Object) receive.tag);
        }
    }

    private void deliverFromNobody(RankThread t, IrTarget source, IrTarget gottag) {
        if (source != null) {
            storeValue(t, source, Communicator.PROC_NULL);
        }
        if (gottag != null) {
            storeValue(t, gottag, Communicator.ANY_TAG);
        }
    }

    // ---- collectives ----

    private void collective(IrActivity.Communication a, RankThread t) {
        SymbolicRank rank = t.rank;
        Communicator comm = rank.communicator(a.comm(), a.at());
        int me = comm.rankOf(rank.worldRank());
        Operands ops = operands(t, a);
        String kind = CommunicationReporter.kind(a);
        StringBuilder signature = new StringBuilder("<").append(kind).append(">");
        IrExpr rootExpr = CollectiveShape.root(a);
        Integer root = rootExpr == null ? null : Addressing.root(rootExpr, ops, comm.name(), comm.size());
        IrExpr data = CollectiveShape.data(a, root != null && root == me);
        IrActivity.ReduceOp op = CollectiveShape.op(a);
        Object contribution = null;
        if (a instanceof IrActivity.Broadcast x) {
            Object mine = rank.read(x.variable().variable());
            contribution = mine instanceof Unknown ? mine : Values.copy(mine);
        } else if (a instanceof IrActivity.Scatter || a instanceof IrActivity.Alltoall) {
            if (data != null) {
                evaluateData(data, t); // faults count; the blocks themselves are not followed
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
            contribution = contribution(data, t);
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

    private Object contribution(IrExpr data, RankThread t) {
        try {
            String refused = guard.refuse(data, t);
            return refused != null ? new Unknown("data", refused) : ExpressionEvaluator.evaluate(data, t);
        } catch (UnknownValueException unknown) {
            return unknown.unknown();
        }
    }

    /** Stores this member's result of a completed collective. */
    private void collectiveDone(RankThread t, IrActivity a, CollectiveRendezvous.Slot slot, int me) {
        Object result = slot.results[me];
        if (result instanceof RankStop stop) {
            throw stop;
        }
        SymbolicRank rank = t.rank;
        rank.lastCollective = "<" + CommunicationReporter.kind(a) + "> on comm " + slot.comm.name() + " at " + a.at();
        Integer root = slot.arrivals[me].root();
        IrTarget target = CollectiveShape.result(a, root != null && root == me);
        if (target != null) {
            storeValue(t, target, result);
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
            reporter.error(x.at(), "request '" + open.getKey() + "' of rank " + t.rank.worldRank() + " (<"
                    + CommunicationReporter.kind(r.origin) + "> at " + r.at + ") is still outstanding at this <checkpoint>;"
                    + " <wait> for it before the checkpoint", List.of());
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
