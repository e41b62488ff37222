package org.mpfl.compiler.comm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.mpfl.compiler.diag.SourceLocation;
import org.mpfl.compiler.ir.IrActivity;
import org.mpfl.compiler.ir.IrExpr;
import org.mpfl.compiler.ir.IrTarget;
import org.mpfl.compiler.ir.IrWalk;
import org.mpfl.compiler.ir.MpflType;
import org.mpfl.compiler.ir.eval.ExpressionEvaluator;
import org.mpfl.compiler.ir.eval.RuntimeFault;
import org.mpfl.compiler.ir.eval.Values;

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
    private final AllocationGuard guard;
    private final List<RankThread> started = new ArrayList<>();
    private final Map<List<IrActivity>, Boolean> communicationFree = new IdentityHashMap<>();

    ProgramStepper(MessageMatcher matcher, CollectiveRendezvous rendezvous, CheckLimits limits) {
        this.matcher = matcher;
        this.rendezvous = rendezvous;
        this.limits = limits;
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
            f.current += f.step;
        }
        f.started = true;
        if (++f.iterations > limits.localLoopLimit() && isCommunicationFree(f.loop.body())) {
            t.frames.pop();
            havoc(t, f.loop.body(), "assigned in the <for> at " + f.loop.at() + ", which ran too long to be followed");
            return;
        }
        boolean more = f.step > 0 ? f.current < f.to : f.current > f.to;
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
        int from;
        int to;
        int step;
        try {
            from = ExpressionEvaluator.evaluateInt(x.from(), t);
            to = ExpressionEvaluator.evaluateInt(x.to(), t);
            step = x.step() == null ? 1 : ExpressionEvaluator.evaluateInt(x.step(), t);
        } catch (UnknownValueException unknown) {
            if (isCommunicationFree(x.body())) {
                havoc(t, x.body(), "assigned in the <for> at " + x.at() + ", whose bounds depend on run-time data");
                return;
            }
            throw RankStop.undecided(x.at(), "the communication after this <for> depends on run-time data (its bounds use "
                    + unknown.explain() + ")");
        }
        if (step == 0) {
            throw RankStop.fault(x.step().at(), "for " + x.variable() + ": step is 0, the loop would never end");
        }
        t.frames.push(new RankThread.ForLoop(x, from, to, step));
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

    private int evaluateInt(IrExpr expr, RankThread t, String what, IrActivity a) {
        try {
            return ExpressionEvaluator.evaluateInt(expr, t);
        } catch (UnknownValueException unknown) {
            throw RankStop.undecided(a.at(), "the " + what + " of this <" + CommunicationReporter.kind(a)
                    + "> depends on run-time data (it uses " + unknown.explain() + ")");
        }
    }

    private int peer(IrExpr expr, Communicator comm, RankThread t, String what, IrActivity a) {
        int r = evaluateInt(expr, t, what, a);
        if (r != Communicator.PROC_NULL && (r < 0 || r >= comm.size())) {
            throw RankStop.fault(expr.at(), "the " + what + " is rank " + r + ", outside communicator " + comm.name()
                    + " of size " + comm.size() + " (use -1 for no peer)");
        }
        return r;
    }

    private int tag(IrExpr expr, RankThread t, IrActivity a) {
        int tag = evaluateInt(expr, t, "tag", a);
        if (tag < 0) {
            throw RankStop.fault(expr.at(), "tag is " + tag + "; tags are at least 0");
        }
        return tag;
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
        if (a instanceof IrActivity.Send x) {
            Communicator comm = rank.communicator(x.comm(), x.at());
            int to = peer(x.to(), comm, t, "destination", a);
            int tag = tag(x.tag(), t, a);
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
            int from = x.from() == null ? Communicator.ANY_SOURCE : peer(x.from(), comm, t, "source", a);
            int tag = x.tag() == null ? Communicator.ANY_TAG : tag(x.tag(), t, a);
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
            int to = peer(x.to(), comm, t, "destination", a);
            int sendTag = tag(x.sendTag(), t, a);
            int from = x.from() == null ? Communicator.ANY_SOURCE : peer(x.from(), comm, t, "source", a);
            int recvTag = x.recvTag() == null ? Communicator.ANY_TAG : tag(x.recvTag(), t, a);
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
            int to = peer(x.to(), comm, t, "destination", a);
            int tag = tag(x.tag(), t, a);
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
            int from = x.from() == null ? Communicator.ANY_SOURCE : peer(x.from(), comm, t, "source", a);
            int tag = x.tag() == null ? Communicator.ANY_TAG : tag(x.tag(), t, a);
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
        String kind = CommunicationReporter.kind(a);
        StringBuilder signature = new StringBuilder("<").append(kind).append(">");
        Object contribution = null;
        Integer root = null;
        if (a instanceof IrActivity.Broadcast x) {
            root = root(x.root(), comm, t, a);
            Object mine = rank.read(x.variable().variable());
            contribution = mine instanceof Unknown ? mine : Values.copy(mine);
        } else if (a instanceof IrActivity.Scatter x) {
            root = root(x.root(), comm, t, a);
            if (root == me) {
                evaluateData(x.data(), t);
            }
        } else if (a instanceof IrActivity.Gather x) {
            root = root(x.root(), comm, t, a);
            contribution = contribution(x.data(), t);
        } else if (a instanceof IrActivity.Reduce x) {
            root = root(x.root(), comm, t, a);
            contribution = contribution(x.data(), t);
            signature.append(" with op ").append(x.op().spelling());
        } else if (a instanceof IrActivity.Allreduce x) {
            contribution = contribution(x.data(), t);
            signature.append(" with op ").append(x.op().spelling());
        } else if (a instanceof IrActivity.Scan x) {
            contribution = contribution(x.data(), t);
            signature.append(" with op ").append(x.op().spelling());
        } else if (a instanceof IrActivity.Allgather x) {
            contribution = contribution(x.data(), t);
        } else if (a instanceof IrActivity.Alltoall x) {
            evaluateData(x.data(), t);
        } else if (a instanceof IrActivity.Split x) {
            int colour = evaluateInt(x.color(), t, "color", a);
            int key = x.key() == null ? me : evaluateInt(x.key(), t, "key", a);
            contribution = new int[] {colour, key};
        } else if (a instanceof IrActivity.Cartesian x) {
            int[] dims = dims(x, t);
            boolean[] periodic = periodic(x, dims.length, t);
            contribution = new Object[] {dims, periodic};
            signature.append(" with dims ").append(Arrays.toString(dims)).append(" periodic ").append(Arrays.toString(periodic));
        }
        if (root != null) {
            signature.insert(signature.indexOf(">") + 1, " with root " + root);
        }
        CollectiveRendezvous.Slot slot = rendezvous.arrive(comm,
                new CollectiveRendezvous.Arrival(rank, a, me, signature.toString(), root, contribution));
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

    private int root(IrExpr expr, Communicator comm, RankThread t, IrActivity a) {
        int r = evaluateInt(expr, t, "root", a);
        if (r < 0 || r >= comm.size()) {
            throw RankStop.fault(expr.at(), "root is rank " + r + ", outside communicator " + comm.name() + " of size "
                    + comm.size());
        }
        return r;
    }

    private int[] dims(IrActivity.Cartesian x, RankThread t) {
        if (x.dims().size() == 1 && x.dims().get(0).type() == MpflType.INT_ARRAY) {
            try {
                return ((int[]) ExpressionEvaluator.evaluate(x.dims().get(0), t)).clone();
            } catch (UnknownValueException unknown) {
                throw RankStop.undecided(x.at(), "the dims of this <cartesian> depend on run-time data (they use "
                        + unknown.explain() + ")");
            }
        }
        int[] dims = new int[x.dims().size()];
        for (int i = 0; i < dims.length; i++) {
            dims[i] = evaluateInt(x.dims().get(i), t, "dims", x);
        }
        return dims;
    }

    private boolean[] periodic(IrActivity.Cartesian x, int nd, RankThread t) {
        boolean[] periodic = new boolean[nd];
        try {
            if (x.periodic().size() == 1) {
                Arrays.fill(periodic, ExpressionEvaluator.test(x.periodic().get(0), t));
            } else if (x.periodic().size() == nd) {
                for (int i = 0; i < nd; i++) {
                    periodic[i] = ExpressionEvaluator.test(x.periodic().get(i), t);
                }
            } else if (!x.periodic().isEmpty()) {
                throw RankStop.fault(x.at(), "periodic has " + x.periodic().size() + " values for a grid of " + nd
                        + " dimensions");
            }
        } catch (UnknownValueException unknown) {
            throw RankStop.undecided(x.at(), "the periodicity of this <cartesian> depends on run-time data (it uses "
                    + unknown.explain() + ")");
        }
        return periodic;
    }

    /** Stores this member's result of a completed collective. */
    private void collectiveDone(RankThread t, IrActivity a, CollectiveRendezvous.Slot slot, int me) {
        Object result = slot.results[me];
        if (result instanceof RankStop stop) {
            throw stop;
        }
        SymbolicRank rank = t.rank;
        rank.lastCollective = "<" + CommunicationReporter.kind(a) + "> on comm " + slot.comm.name() + " at " + a.at();
        int root = slot.arrivals[me].root() == null ? -1 : slot.arrivals[me].root();
        if (a instanceof IrActivity.Broadcast x) {
            if (me != root) {
                storeValue(t, x.variable(), result);
            }
        } else if (a instanceof IrActivity.Reduce x) {
            if (me == root) {
                storeValue(t, x.into(), result);
            }
        } else if (a instanceof IrActivity.Gather x) {
            if (me == root) {
                storeValue(t, x.into(), result);
            }
        } else if (a instanceof IrActivity.Allreduce x) {
            storeValue(t, x.into(), result);
        } else if (a instanceof IrActivity.Scan x) {
            storeValue(t, x.into(), result);
        } else if (a instanceof IrActivity.Scatter x) {
            storeValue(t, x.into(), result);
        } else if (a instanceof IrActivity.Allgather x) {
            storeValue(t, x.into(), result);
        } else if (a instanceof IrActivity.Alltoall x) {
            storeValue(t, x.into(), result);
        } else if (a instanceof IrActivity.Split x) {
            rank.define(x.name(), (Communicator) result);
        } else if (a instanceof IrActivity.Cartesian x) {
            rank.define(x.name(), (Communicator) result);
        }
    }
}
