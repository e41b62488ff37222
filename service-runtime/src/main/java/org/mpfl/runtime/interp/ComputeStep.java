package org.mpfl.runtime.interp;

import java.lang.reflect.InvocationTargetException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;
import org.mpfl.runtime.api.DomainAbortedException;

/**
 * {@code compute}: calls the user's {@link Activity} — one instance per rank and compute site, kept
 * for the rank's life so it can hold state between iterations — with the named inputs (arrays are
 * the rank's own, so the activity may update them in place), and stores the named outputs after
 * checking them against the declared types. Outputs are stored as returned, without a copy.
 */
final class ComputeStep {

    void execute(IrActivity.Compute x, Frame f) {
        RankState rank = f.rank();
        String name = Executor.name(x);
        rank.monitor().reached(name, x.at());
        Activity activity;
        try {
            activity = rank.activityAt(x);
        } catch (InvocationTargetException e) {
            throw Faults.of(name, x.at(), "the constructor of " + x.className() + " threw " + describe(e.getCause()));
        } catch (ReflectiveOperationException | LinkageError e) {
            throw Faults.of(name, x.at(), "cannot create activity " + x.className() + ": " + describe(e));
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
        } catch (Exception | LinkageError e) {
            rank.monitor().busyEnd();
            // an activity stopped by the abort's interrupt is a consequence of the abort, not a fault
            Thread.interrupted();
            rank.checkAborted();
            throw new RankFault(name, x.at(), "activity " + x.className() + " failed: " + describe(e), e);
        } finally {
            rank.monitor().busyEnd();
            rank.monitor().computed(name, x.at(), started);
            me.setContextClassLoader(previous);
        }
        if (Thread.interrupted()) {
            rank.checkAborted();
        }
        if (x.outputs().isEmpty()) {
            return;
        }
        if (outputs == null) {
            throw Faults.of(name, x.at(), "activity " + x.className() + " returned no outputs; expected "
                    + x.outputs().stream().map(IrTarget::variable).toList());
        }
        for (IrTarget out : x.outputs()) {
            if (!outputs.containsKey(out.variable())) {
                throw Faults.of(name, x.at(), "activity " + x.className() + " did not return output '" + out.variable()
                        + "' (it returned " + outputs.keySet() + ")");
            }
            Object value = outputs.get(out.variable());
            try {
                rank.store(out, value, false, f, "output '" + out.variable() + "' of " + x.className());
            } catch (RuntimeException e) {
                throw Faults.at(name, x.at(), e);
            }
        }
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
