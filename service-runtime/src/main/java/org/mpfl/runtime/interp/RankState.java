package org.mpfl.runtime.interp;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.IrVariable;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.ir.eval.RuntimeFault;
import org.mpfl.ir.eval.Values;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.interp.kernel.JavaKernelOutput;
import org.mpfl.runtime.interp.kernel.RankKernels;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.topology.RankRuntime;

/**
 * Everything one interpreted rank owns: its params, its process variables, its communicators and
 * pending requests, its activity instances (one per {@code compute} site), and its monitor. Shared by
 * the threads of its {@code parallel} branches, hence the concurrent maps.
 */
final class RankState {
    /** Stands for {@code null} (the zero of {@code object}) in the variable map. */
    private static final Object NULL = new Object();

    private final InterpretedProgram program;
    private final RankContext context;
    private final Map<String, Object> params;
    private final RankLayout layout;
    private final NamedCommunicators communicators;
    private final PendingRequests requests = new PendingRequests();
    private final RankActivityMonitor monitor;
    private final RankKernels kernels;
    private final JavaKernelOutput javaOutput;
    private final Map<String, Object> variables = new ConcurrentHashMap<>();
    private final Map<IrActivity.Compute, Activity> activities = Collections.synchronizedMap(new IdentityHashMap<>());
    private final RankRuntime runtime;
    private final MessageCount messages = new MessageCount();
    private final ProgramPosition position = new ProgramPosition();
    /** Set while a resumed rank re-enters its saved position; null otherwise. */
    private volatile ResumePoint resuming;
    /** The number of the last checkpoint taken (or resumed from) in this run; 0: none. */
    private long lastCheckpoint;
    /** How often each checkpoint site was reached (for {@code every}). */
    private final Map<IrActivity.Checkpoint, long[]> checkpointArrivals = Collections.synchronizedMap(new IdentityHashMap<>());

    /** Point-to-point messages this rank sent and received (a checkpoint checks that none is in flight). */
    static final class MessageCount {
        private final java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();
        private final java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();

        void sent() {
            sent.incrementAndGet();
        }

        void received() {
            received.incrementAndGet();
        }

        long sentCount() {
            return sent.get();
        }

        long receivedCount() {
            return received.get();
        }
    }

    RankState(InterpretedProgram program, RankContext context, Map<String, Object> params, RankLayout layout,
              RankActivityMonitor monitor) {
        this.program = program;
        this.context = context;
        this.params = params;
        this.layout = layout;
        this.monitor = monitor;
        this.communicators = new NamedCommunicators(context, layout);
        this.runtime = RankRuntime.of(context);
        this.kernels = new RankKernels(program.kernels(), context::log);
        this.javaOutput = new JavaKernelOutput(context::log);
    }

    /** Where the rank's Java activities' {@code System.out} and {@code System.err} lines go: its log. */
    JavaKernelOutput javaOutput() {
        return javaOutput;
    }

    /** The rank's kernel workers (Python, executables). */
    RankKernels kernels() {
        return kernels;
    }

    InterpretedProgram program() {
        return program;
    }

    RankContext context() {
        return context;
    }

    /** What the runtime offers this rank beyond the public API (abort state, world ranks, barrier algorithms). */
    RankRuntime runtime() {
        return runtime;
    }

    Map<String, Object> params() {
        return params;
    }

    RankLayout layout() {
        return layout;
    }

    NamedCommunicators communicators() {
        return communicators;
    }

    PendingRequests requests() {
        return requests;
    }

    /** The main thread's position in the program (for checkpoints). */
    ProgramPosition position() {
        return position;
    }

    /** The position a resumed rank is re-entering, or null. */
    ResumePoint resuming() {
        return resuming;
    }

    void resumeAt(ResumePoint point) {
        resuming = point;
    }

    /** The resumed rank has reached its checkpoint: from here on it runs as usual. */
    void resumed() {
        resuming = null;
    }

    MessageCount messages() {
        return messages;
    }

    long lastCheckpoint() {
        return lastCheckpoint;
    }

    void lastCheckpoint(long number) {
        lastCheckpoint = number;
    }

    /** This site's arrival counter (one element, updated in place). */
    long[] arrivals(IrActivity.Checkpoint site) {
        return checkpointArrivals.computeIfAbsent(site, s -> new long[1]);
    }

    /** Restores a variable from a checkpoint (already fitted to its declared type). */
    void restore(String name, Object value) {
        if (!variables.containsKey(name)) {
            throw new IllegalArgumentException("'" + name + "' is not a variable of this process");
        }
        variables.put(name, value == null ? NULL : value);
    }

    RankActivityMonitor monitor() {
        return monitor;
    }

    /** Throws {@link org.mpfl.runtime.api.DomainAbortedException} once the domain was aborted (cheap: volatile reads). */
    void checkAborted() {
        runtime.checkUsable();
    }

    /** Initialises the process variables in declaration order (init expressions may read earlier ones). */
    void initialiseVariables(Frame frame) {
        for (IrVariable v : program.process().variables()) {
            Object value;
            try {
                value = v.init() == null ? Values.zero(v.type()) : Values.copy(ExpressionEvaluator.evaluate(v.init(), frame));
            } catch (RuntimeException e) {
                throw Faults.at("var " + v.name(), v.at(), e);
            }
            Object fitted = ValueConversion.fit(value, v.type());
            if (fitted == ValueConversion.MISMATCH) {
                throw Faults.of("var " + v.name(), v.at(), "initial value of type " + ValueConversion.typeName(value)
                        + " does not fit variable '" + v.name() + "' of type " + v.type());
            }
            variables.put(v.name(), fitted == null ? NULL : fitted);
        }
    }

    /** A process variable or param ({@link Frame} resolves loop variables first). */
    Object variable(String name) {
        Object v = variables.get(name);
        if (v != null) {
            return v == NULL ? null : v;
        }
        v = params.get(name);
        if (v != null) {
            return v;
        }
        throw new RuntimeFault(null, "no variable or param '" + name + "' on this rank");
    }

    /**
     * Stores a value into a target: a whole variable (the value is fitted to its type; {@code copy}
     * copies arrays, for the value semantics of assignment) or an element {@code x[i]}.
     *
     * @param what describes the value's origin in a mismatch message ("received value", "output 'u'")
     */
    void store(IrTarget target, Object value, boolean copy, Frame frame, String what) {
        Object fitted = ValueConversion.fit(value, target.type());
        if (fitted == ValueConversion.MISMATCH) {
            throw new RuntimeFault(target.at(), what + " of type " + ValueConversion.typeName(value) + " does not fit "
                    + (target.index() == null ? "variable '" + target.variable() + "'" : "an element of '" + target.variable() + "'")
                    + " of type " + target.type());
        }
        if (target.index() == null) {
            if (!variables.containsKey(target.variable())) {
                throw new RuntimeFault(target.at(), "'" + target.variable() + "' is not a process variable");
            }
            Object v = copy ? Values.copy(fitted) : fitted;
            variables.put(target.variable(), v == null ? NULL : v);
        } else {
            int index = ExpressionEvaluator.evaluateInt(target.index(), frame);
            ExpressionEvaluator.storeElement(variable(target.variable()), index, fitted, target.at());
        }
    }

    /** Whether a process variable other than {@code name}, or a param, holds {@code value} itself (the same object). */
    boolean heldByAnotherThan(String name, Object value) {
        for (Map.Entry<String, Object> v : variables.entrySet()) {
            if (v.getValue() == value && !v.getKey().equals(name)) {
                return true;
            }
        }
        for (Object p : params.values()) {
            if (p == value) {
                return true;
            }
        }
        return false;
    }

    /** The current value of a target (the whole variable, or its element). */
    Object load(IrTarget target, Frame frame) {
        Object v = variable(target.variable());
        if (target.index() == null) {
            return v;
        }
        int index = ExpressionEvaluator.evaluateInt(target.index(), frame);
        int length = Values.length(v);
        if (index < 0 || index >= length) {
            throw new RuntimeFault(target.at(), "index " + index + " out of range for length " + length);
        }
        return v instanceof int[] a ? (Object) a[index] : v instanceof long[] a ? (Object) a[index]
                : v instanceof double[] a ? (Object) a[index] : (Object) (int) ((byte[]) v)[index];
    }

    /** The instance of the activity class of one compute site on this rank (created on first use, then reused). */
    Activity activityAt(IrActivity.Compute site) throws ReflectiveOperationException {
        synchronized (activities) {
            Activity a = activities.get(site);
            if (a == null) {
                a = program.activityClass(site.className()).getConstructor().newInstance();
                activities.put(site, a);
            }
            return a;
        }
    }

    /** Variables by name with their current values (for tests and diagnostics). */
    Map<String, Object> variablesSnapshot() {
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        variables.forEach((k, v) -> out.put(k, v == NULL ? null : v));
        return out;
    }

    /** Where a value came from, for messages: a location or nothing. */
    static String at(SourceLocation location) {
        return location == null ? "" : " at " + location;
    }
}
