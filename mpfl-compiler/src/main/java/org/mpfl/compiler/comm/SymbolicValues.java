package org.mpfl.compiler.comm;

import java.util.function.Supplier;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.ir.eval.Values;
import org.mpfl.ir.semantics.Operands;

/**
 * The values of the symbolic run: evaluating, storing and contributing them within the check's
 * bounds ({@link CheckLimits#maxValueLength()}, {@link AllocationGuard}), where a value that depends
 * on run-time data or is too large to follow becomes {@link Unknown}, and reading an activity's
 * operands so that one that is unknown stops the rank, naming it.
 */
final class SymbolicValues {
    private final CheckLimits limits;
    private final AllocationGuard guard;

    SymbolicValues(CheckLimits limits) {
        this.limits = limits;
        this.guard = new AllocationGuard(limits.maxValueLength());
    }

    /** {@code target = value}: unknown values and unknown indices make the variable unknown. */
    void store(RankThread t, IrTarget target, IrExpr value) {
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
    static Operands operands(RankThread t, IrActivity a) {
        Operands plain = Operands.in(t);
        return new Operands() {
            @Override
            public Object value(IrExpr expr, String role) {
                return decided(() -> plain.value(expr, role), role);
            }

            @Override
            public int intValue(IrExpr expr, String role) {
                return decided(() -> plain.intValue(expr, role), role);
            }

            @Override
            public boolean test(IrExpr expr, String role) {
                return decided(() -> plain.test(expr, role), role);
            }

            private <T> T decided(Supplier<T> read, String role) {
                try {
                    return read.get();
                } catch (UnknownValueException unknown) {
                    throw RankStop.undecided(a.at(), "the " + role + " of this <" + IrActivity.elementName(a)
                            + "> depends on run-time data (it uses " + unknown.explain() + ")");
                }
            }
        };
    }

    /** Evaluates data that is sent: faults count, the value itself is not followed. */
    void evaluateData(IrExpr data, RankThread t) {
        try {
            if (guard.refuse(data, t) == null) {
                ExpressionEvaluator.evaluate(data, t);
            }
        } catch (UnknownValueException ignored) {
            // sending an unknown value is fine: received values are unknown anyway
        }
    }

    /** The value a rank contributes to a collective, or {@link Unknown} (refused as too large, or run-time data). */
    Object contribution(IrExpr data, RankThread t) {
        try {
            String refused = guard.refuse(data, t);
            return refused != null ? new Unknown("data", refused) : ExpressionEvaluator.evaluate(data, t);
        } catch (UnknownValueException unknown) {
            return unknown.unknown();
        }
    }
}
