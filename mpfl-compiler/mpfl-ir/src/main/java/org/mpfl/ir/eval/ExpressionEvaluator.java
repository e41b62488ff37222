package org.mpfl.ir.eval;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.Builtin;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.MpflType;

/**
 * Evaluates typed IR expressions over run-time values (see {@link MpflType} for the representation).
 * Stateless and thread-safe. Faults of the program ({@link RuntimeFault}) carry the source location
 * of the failing node; exceptions thrown by the environment pass through unchanged.
 *
 * <pre>{@code
 *   Object v = ExpressionEvaluator.evaluate(expr, environment);
 *   ExpressionEvaluator.storeElement(array, index, value, target.at()); // for x[i] targets
 * }</pre>
 */
public final class ExpressionEvaluator {
    private ExpressionEvaluator() {
    }

    /** Evaluates {@code expr}; the result has the Java representation of {@code expr.type()}. */
    public static Object evaluate(IrExpr expr, EvaluationEnvironment env) {
        if (expr instanceof IrExpr.Const c) {
            return c.value();
        } else if (expr instanceof IrExpr.Ref r) {
            return reference(r, env);
        } else if (expr instanceof IrExpr.Unary u) {
            return unary(u, env);
        } else if (expr instanceof IrExpr.Binary b) {
            return Arithmetic.binary(b, env);
        } else if (expr instanceof IrExpr.Conditional c) {
            return asBoolean(evaluate(c.test(), env)) ? evaluate(c.ifTrue(), env) : evaluate(c.ifFalse(), env);
        } else if (expr instanceof IrExpr.Index i) {
            return index(evaluate(i.array(), env), asInt(evaluate(i.index(), env)), i.at());
        } else if (expr instanceof IrExpr.Slice s) {
            return slice(evaluate(s.array(), env), asInt(evaluate(s.from(), env)), asInt(evaluate(s.to(), env)), s.at());
        } else if (expr instanceof IrExpr.Call c) {
            return Functions.call(c, env);
        } else if (expr instanceof IrExpr.ArrayOf a) {
            return arrayOf(a, env);
        } else if (expr instanceof IrExpr.Convert c) {
            return Values.widen(evaluate(c.operand(), env), c.type());
        }
        throw new IllegalStateException("unknown expression node " + expr);
    }

    /** Evaluates a boolean expression. */
    public static boolean test(IrExpr expr, EvaluationEnvironment env) {
        return asBoolean(evaluate(expr, env));
    }

    /** Evaluates an int expression (ranks, tags, indices). */
    public static int evaluateInt(IrExpr expr, EvaluationEnvironment env) {
        return asInt(evaluate(expr, env));
    }

    /** The index of an element target {@code x[i]} (null for a whole-variable target). */
    public static Integer targetIndex(IrTarget target, EvaluationEnvironment env) {
        return target.index() == null ? null : asInt(evaluate(target.index(), env));
    }

    /**
     * Stores {@code value} (already of the element type, or a widenable number) into element
     * {@code index} of {@code array} in place; faults if the index is out of range.
     */
    public static void storeElement(Object array, int index, Object value, SourceLocation at) {
        int length = Values.length(array);
        if (index < 0 || index >= length) {
            throw new RuntimeFault(at, "index " + index + " out of range for length " + length);
        }
        if (array instanceof int[] a) {
            a[index] = ((Number) value).intValue();
        } else if (array instanceof long[] a) {
            a[index] = ((Number) value).longValue();
        } else if (array instanceof double[] a) {
            a[index] = ((Number) value).doubleValue();
        } else if (array instanceof byte[] a) {
            int v = ((Number) value).intValue();
            if (v < Byte.MIN_VALUE || v > 255) {
                throw new RuntimeFault(at, "value " + v + " does not fit in a byte");
            }
            a[index] = (byte) v;
        } else {
            throw new RuntimeFault(at, "cannot index a value of type " + Values.typeOf(array));
        }
    }

    private static Object reference(IrExpr.Ref r, EvaluationEnvironment env) {
        if (r.ref() == IrExpr.RefKind.BUILTIN) {
            return switch (r.name()) {
                case "rank" -> env.worldRank();
                case "size" -> env.worldSize();
                case "prank" -> env.processRank();
                case "psize" -> env.processSize();
                default -> throw new IllegalStateException("unknown built-in identifier " + r.name());
            };
        }
        return env.variable(r.name());
    }

    private static Object unary(IrExpr.Unary u, EvaluationEnvironment env) {
        Object v = evaluate(u.operand(), env);
        return switch (u.op()) {
            case NOT -> !asBoolean(v);
            case NEGATE -> switch (u.type()) {
                case INT -> -(Integer) v;
                case LONG -> -(Long) v;
                case DOUBLE -> -(Double) v;
                default -> throw new IllegalStateException("negate on " + u.type());
            };
        };
    }

    static Object index(Object array, int i, SourceLocation at) {
        int length = Values.length(array);
        if (i < 0 || i >= length) {
            throw new RuntimeFault(at, "index " + i + " out of range for length " + length);
        }
        if (array instanceof int[] a) {
            return a[i];
        } else if (array instanceof long[] a) {
            return a[i];
        } else if (array instanceof double[] a) {
            return a[i];
        } else if (array instanceof byte[] a) {
            return (int) a[i];
        }
        throw new RuntimeFault(at, "cannot index a value of type " + Values.typeOf(array));
    }

    static Object slice(Object value, int from, int to, SourceLocation at) {
        int length = Values.length(value);
        if (from < 0 || to > length || from > to) {
            throw new RuntimeFault(at, "slice [" + from + ":" + to + "] out of range for length " + length);
        }
        if (value instanceof int[] a) {
            return java.util.Arrays.copyOfRange(a, from, to);
        } else if (value instanceof long[] a) {
            return java.util.Arrays.copyOfRange(a, from, to);
        } else if (value instanceof double[] a) {
            return java.util.Arrays.copyOfRange(a, from, to);
        } else if (value instanceof byte[] a) {
            return java.util.Arrays.copyOfRange(a, from, to);
        } else if (value instanceof String s) {
            int start = Values.codePointOffset(s, from);
            return s.substring(start, s.offsetByCodePoints(start, to - from));
        }
        throw new RuntimeFault(at, "cannot slice a value of type " + Values.typeOf(value));
    }

    private static Object arrayOf(IrExpr.ArrayOf a, EvaluationEnvironment env) {
        List<Object> values = new ArrayList<>(a.elements().size());
        for (IrExpr e : a.elements()) {
            values.add(evaluate(e, env));
        }
        int n = values.size();
        switch (a.type()) {
            case INT_ARRAY -> {
                int[] r = new int[n];
                for (int i = 0; i < n; i++) {
                    r[i] = ((Number) values.get(i)).intValue();
                }
                return r;
            }
            case LONG_ARRAY -> {
                long[] r = new long[n];
                for (int i = 0; i < n; i++) {
                    r[i] = ((Number) values.get(i)).longValue();
                }
                return r;
            }
            case DOUBLE_ARRAY -> {
                double[] r = new double[n];
                for (int i = 0; i < n; i++) {
                    r[i] = ((Number) values.get(i)).doubleValue();
                }
                return r;
            }
            default -> throw new IllegalStateException("array literal of type " + a.type());
        }
    }

    static boolean asBoolean(Object v) {
        return (Boolean) v;
    }

    static int asInt(Object v) {
        return ((Number) v).intValue();
    }
}
