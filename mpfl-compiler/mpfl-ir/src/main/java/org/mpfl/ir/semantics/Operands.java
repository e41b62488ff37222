package org.mpfl.ir.semantics;

import org.mpfl.ir.IrExpr;
import org.mpfl.ir.eval.EvaluationEnvironment;
import org.mpfl.ir.eval.ExpressionEvaluator;

/**
 * How the executor of an activity evaluates the activity's operand expressions. The interpreter
 * evaluates them plainly ({@link #in(EvaluationEnvironment)}); the static check evaluates them over
 * symbolic values and, when one depends on run-time data, stops with a message that names the
 * operand — which is why every call says the operand's {@code role} ("root", "color", "dims"...).
 * A plain evaluation ignores the role.
 */
public interface Operands {

    /** The value of {@code expr}, in the Java representation of its type. */
    Object value(IrExpr expr, String role);

    /** The value of an {@code int} expression. */
    int intValue(IrExpr expr, String role);

    /** The value of a {@code boolean} expression. */
    boolean test(IrExpr expr, String role);

    /** Plain evaluation in {@code env}: whatever the evaluator throws goes to the caller unchanged. */
    static Operands in(EvaluationEnvironment env) {
        return new Operands() {
            @Override
            public Object value(IrExpr expr, String role) {
                return ExpressionEvaluator.evaluate(expr, env);
            }

            @Override
            public int intValue(IrExpr expr, String role) {
                return ExpressionEvaluator.evaluateInt(expr, env);
            }

            @Override
            public boolean test(IrExpr expr, String role) {
                return ExpressionEvaluator.test(expr, env);
            }
        };
    }
}
