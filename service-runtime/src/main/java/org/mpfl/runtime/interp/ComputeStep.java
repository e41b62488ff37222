package org.mpfl.runtime.interp;

import java.lang.reflect.InvocationTargetException;
import java.io.InterruptedIOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;
import org.mpfl.runtime.api.DomainAbortedException;
import org.mpfl.runtime.interp.kernel.JavaKernelOutput;
import org.mpfl.runtime.interp.kernel.KernelFailure;
import org.mpfl.runtime.interp.kernel.RankKernels;

/**
 * {@code compute}: calls the user's {@link Activity} — one instance per rank and compute site, kept
 * for the rank's life so it can hold state between iterations — with the named inputs (arrays are
 * the rank's own, so the activity may update them in place), and stores the named outputs after
 * checking them against the declared types. Outputs are stored as returned, without a copy.
 */
final class ComputeStep {

    /**
     * Starts the rank's kernel workers and loads its Python kernels: a worker that does not start, or a
     * module or function that is missing, fails the rank before its first activity, at that compute.
     */
    static void startKernels(RankState rank) {
        List<IrActivity.Compute> sites = rank.program().computeSites();
        if (!RankKernels.needed(sites)) {
            return;
        }
        // busy: an abort interrupts the start (an interpreter's start or a module's import can take seconds)
        rank.monitor().busyStart();
        try {
            rank.kernels().start(sites);
        } catch (RankKernels.SiteFailure e) {
            throw Faults.of(Executor.name(e.site()), e.site().at(), e.getMessage());
        } catch (InterruptedIOException e) {
            rank.kernels().kill();
            Thread.interrupted();
            rank.checkAborted();
            throw Faults.of("start", rank.program().process().at(), "interrupted while the kernel workers started");
        } finally {
            rank.monitor().busyEnd();
        }
    }

    void execute(IrActivity.Compute x, Frame f) {
        RankState rank = f.rank();
        String name = Executor.name(x);
        rank.monitor().reached(name, x.at());
        if (x.className() == null) {
            store(x, f, name, callKernel(x, f, name));
            return;
        }
        // what the activity prints (its constructor too) is the rank's log, as a Python kernel's print is
        JavaKernelOutput.Call printing = rank.javaOutput().begin();
        Map<String, Object> outputs;
        try {
            outputs = executeActivity(x, f, name);
        } finally {
            printing.end();
        }
        if (Thread.interrupted()) {
            rank.checkAborted();
        }
        store(x, f, name, outputs);
    }

    /** Creates the rank's instance of a Java activity (on its first call) and calls it. */
    private static Map<String, Object> executeActivity(IrActivity.Compute x, Frame f, String name) {
        RankState rank = f.rank();
        Activity activity;
        try {
            activity = rank.activityAt(x);
        } catch (InvocationTargetException e) {
            throw Faults.of(name, x.at(), "the constructor of " + x.kernelName() + " threw " + describe(e.getCause())
                    + ActivityTrace.of(e.getCause(), x.kernelName(), "<init>"));
        } catch (ReflectiveOperationException | LinkageError e) {
            throw Faults.of(name, x.at(), "cannot create activity " + x.kernelName() + ": " + describe(e));
        }
        Map<String, Object> inputs = new LinkedHashMap<>();
        for (IrExpr.Ref in : x.inputs()) {
            inputs.put(in.name(), ExpressionEvaluator.evaluate(in, f));
        }
        Map<String, Object> outputs;
        Thread me = Thread.currentThread();
        ClassLoader previous = me.getContextClassLoader();
        me.setContextClassLoader(rank.program().libraries());
        rank.monitor().busyStart();
        long started = rank.monitor().computeStart();
        try {
            outputs = activity.execute(inputs, new Context(rank, f));
        } catch (DomainAbortedException e) {
            throw e;
        } catch (Exception | Error e) {
            // an Error too (a runaway recursion's StackOverflowError, an AssertionError, a too large array): the
            // kernel's fault, said with its frames like an exception's, not a host's failure with the JVM's whole trace
            rank.monitor().busyEnd();
            // an activity stopped by the abort's interrupt is a consequence of the abort, not a fault
            Thread.interrupted();
            rank.checkAborted();
            throw new RankFault(name, x.at(), "activity " + x.kernelName() + " failed: " + describe(e)
                    + ActivityTrace.of(e, activity.getClass().getName(), "execute")
                    + (e instanceof OutOfMemoryError oom ? "\n" + Faults.outOfMemory(oom) : ""), e);
        } finally {
            rank.monitor().busyEnd();
            rank.monitor().computed(name, x.at(), started);
            me.setContextClassLoader(previous);
        }
        return outputs;
    }

    /** A Python or executable kernel's call through the rank's worker (docs/kernel-protocol.md). */
    private static Map<String, Object> callKernel(IrActivity.Compute x, Frame f, String name) {
        RankState rank = f.rank();
        Map<String, Object> inputs = new LinkedHashMap<>();
        for (IrExpr.Ref in : x.inputs()) {
            inputs.put(in.name(), ExpressionEvaluator.evaluate(in, f));
        }
        rank.monitor().busyStart();
        long started = rank.monitor().computeStart();
        try {
            return rank.kernels().call(x, inputs);
        } catch (KernelFailure e) {
            throw Faults.kernel(name, x.at(), e);
        } catch (InterruptedIOException e) {
            // the abort's interrupt: the kernel may run on, so its worker goes now
            rank.kernels().kill();
            Thread.interrupted();
            rank.checkAborted();
            throw Faults.of(name, x.at(), "interrupted while the kernel ran");
        } finally {
            rank.monitor().busyEnd();
            rank.monitor().computed(name, x.at(), started);
        }
    }

    /** Stores the outputs a kernel returned, each checked against its variable's type. */
    private static void store(IrActivity.Compute x, Frame f, String name, Map<String, Object> outputs) {
        RankState rank = f.rank();
        if (x.outputs().isEmpty()) {
            return;
        }
        if (outputs == null) {
            throw Faults.of(name, x.at(), "activity " + x.kernelName() + " returned no outputs; expected "
                    + x.outputs().stream().map(IrTarget::variable).toList());
        }
        // a kernel may hand back an input's own array (updated in place or not), or one array for two outputs: stored as
        // it is under another variable, two variables would share one array, and an assignment to an element of one
        // would change the other (variables have value semantics, as for <assign>); such an output is stored as a copy
        Set<Object> stored = Collections.newSetFromMap(new IdentityHashMap<>());
        for (IrTarget out : x.outputs()) {
            if (!outputs.containsKey(out.variable())) {
                throw Faults.of(name, x.at(), "activity " + x.kernelName() + " did not return output '" + out.variable()
                        + "' (it returned " + outputs.keySet() + ")");
            }
            Object value = outputs.get(out.variable());
            boolean shared = out.index() == null && isArray(value)
                    && (stored.contains(value) || rank.heldByAnotherThan(out.variable(), value));
            if (!shared && isArray(value)) {
                stored.add(value);
            }
            try {
                rank.store(out, value, shared, f, "output '" + out.variable() + "' of " + x.kernelName());
            } catch (RuntimeException e) {
                throw Faults.at(name, x.at(), e);
            }
        }
    }

    private static boolean isArray(Object value) {
        return value instanceof double[] || value instanceof int[] || value instanceof long[] || value instanceof byte[];
    }

    private static String describe(Throwable e) {
        return e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    /** What an activity sees of its rank. */
    private static final class Context implements ActivityContext {
        private final RankState rank;
        private final Frame frame;

        Context(RankState rank, Frame frame) {
            this.rank = rank;
            this.frame = frame;
        }

        @Override
        public int rank() {
            return frame.worldRank();
        }

        @Override
        public int size() {
            return frame.worldSize();
        }

        @Override
        public int processRank() {
            return frame.processRank();
        }

        @Override
        public int processSize() {
            return frame.processSize();
        }

        @Override
        public Map<String, Object> params() {
            return rank.params();
        }

        @Override
        public void log(String level, String message) {
            rank.context().log(level, message);
        }
    }
}
