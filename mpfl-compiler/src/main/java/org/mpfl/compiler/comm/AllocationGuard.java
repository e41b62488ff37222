package org.mpfl.compiler.comm;

import java.util.IdentityHashMap;
import java.util.Map;
import org.mpfl.ir.Builtin;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrWalk;
import org.mpfl.ir.eval.EvaluationEnvironment;
import org.mpfl.ir.eval.ExpressionEvaluator;

/**
 * Keeps the check from allocating what a real rank would: before an expression that builds arrays
 * ({@code zeros}, {@code izeros}, {@code fill}, {@code range}) is evaluated, the requested lengths
 * are computed, and a length above {@link CheckLimits#maxValueLength()} makes the value unknown
 * instead. Expressions are side-effect free, so evaluating a length twice changes nothing.
 */
final class AllocationGuard {
    private final int maxLength;
    private final Map<IrExpr, Boolean> allocates = new IdentityHashMap<>();

    AllocationGuard(int maxLength) {
        this.maxLength = maxLength;
    }

    /** @return null if {@code expr} may be evaluated, otherwise why its value is not followed */
    String refuse(IrExpr expr, EvaluationEnvironment env) {
        if (!allocates.computeIfAbsent(expr, AllocationGuard::buildsArrays)) {
            return null;
        }
        return scan(expr, env);
    }

    private String scan(IrExpr expr, EvaluationEnvironment env) {
        if (expr instanceof IrExpr.Call c) {
            long length = -1;
            try {
                switch (c.function()) {
                    case ZEROS, IZEROS, FILL -> length = ExpressionEvaluator.evaluateInt(c.arguments().get(0), env);
                    case RANGE -> length = (long) ExpressionEvaluator.evaluateInt(c.arguments().get(1), env)
                            - ExpressionEvaluator.evaluateInt(c.arguments().get(0), env);
                    default -> {
                    }
                }
            } catch (RuntimeException e) {
                length = -1; // the real evaluation will report (or not reach) the problem
            }
            if (length > maxLength) {
                return "an array of " + length + " elements, more than the check follows (" + maxLength + ")";
            }
        }
        for (IrExpr child : IrWalk.children(expr)) {
            String refused = scan(child, env);
            if (refused != null) {
                return refused;
            }
        }
        return null;
    }

    private static boolean buildsArrays(IrExpr expr) {
        if (expr instanceof IrExpr.Call c && (c.function() == Builtin.ZEROS || c.function() == Builtin.IZEROS
                || c.function() == Builtin.FILL || c.function() == Builtin.RANGE)) {
            return true;
        }
        for (IrExpr child : IrWalk.children(expr)) {
            if (buildsArrays(child)) {
                return true;
            }
        }
        return false;
    }
}
