package org.mpfl.runtime.collective;

import org.mpfl.runtime.api.ReduceOp;

/**
 * The reduction operators on {@code int[]}, {@code long[]} and {@code double[]}, element-wise and in
 * place ({@code acc[i] = acc[i] op in[i]}), so reductions never allocate per step. Scalars are
 * reduced as one-element arrays ({@link #operand}/{@link #result}); booleans as {@code int} 0/1,
 * for which only {@code land}, {@code lor}, {@code band} and {@code bor} are defined. All operators
 * are commutative and associative on integers; on doubles {@code sum} and {@code prod} depend on
 * the order of evaluation, which the algorithms fix so that every rank gets the same bits.
 */
public final class Reductions {
    private Reductions() {
    }

    /**
     * The array a value is reduced as. Arrays are returned as they are (callers copy before reducing
     * into them); scalars are wrapped into fresh one-element arrays.
     */
    public static Object operand(Object value, ReduceOp op) {
        if (value instanceof int[] || value instanceof long[] || value instanceof double[]) {
            checkDefined(value, op);
            return value;
        } else if (value instanceof Integer v) {
            return new int[] {v};
        } else if (value instanceof Long v) {
            return new long[] {v};
        } else if (value instanceof Double v) {
            checkDefined(new double[0], op);
            return new double[] {v};
        } else if (value instanceof Boolean v) {
            if (op != ReduceOp.LAND && op != ReduceOp.LOR && op != ReduceOp.BAND && op != ReduceOp.BOR) {
                throw new IllegalArgumentException("reduction " + op + " is not defined for boolean values");
            }
            return new int[] {v ? 1 : 0};
        }
        throw new IllegalArgumentException("cannot reduce a value of type "
                + (value == null ? "null" : value.getClass().getSimpleName())
                + " (int, long, double, boolean and their arrays can be reduced)");
    }

    /** Turns a reduced operand back into the type of {@code sample} (the rank's own value). */
    public static Object result(Object reduced, Object sample) {
        if (sample instanceof Integer) {
            return ((int[]) reduced)[0];
        } else if (sample instanceof Long) {
            return ((long[]) reduced)[0];
        } else if (sample instanceof Double) {
            return ((double[]) reduced)[0];
        } else if (sample instanceof Boolean) {
            return ((int[]) reduced)[0] != 0;
        }
        return reduced;
    }

    private static void checkDefined(Object array, ReduceOp op) {
        if (array instanceof double[] && (op == ReduceOp.BAND || op == ReduceOp.BOR)) {
            throw new IllegalArgumentException("reduction " + op + " is not defined for double values");
        }
    }

    /** A fresh copy of an operand (the accumulator of a rank that must not modify its input). */
    public static Object copy(Object operand) {
        if (operand instanceof double[] a) {
            return a.clone();
        } else if (operand instanceof long[] a) {
            return a.clone();
        }
        return ((int[]) operand).clone();
    }

    /** {@code acc[accOff + i] = acc[accOff + i] op in[inOff + i]} for {@code i < n}. */
    public static void combine(ReduceOp op, Object acc, int accOff, Object in, int inOff, int n) {
        if (acc instanceof double[] a) {
            combineDouble(op, a, accOff, (double[]) checkType(in, a), inOff, n);
        } else if (acc instanceof long[] a) {
            combineLong(op, a, accOff, (long[]) checkType(in, a), inOff, n);
        } else {
            int[] a = (int[]) acc;
            combineInt(op, a, accOff, (int[]) checkType(in, a), inOff, n);
        }
    }

    /** Whole-array form of {@link #combine(ReduceOp, Object, int, Object, int, int)}; lengths must agree. */
    public static void combine(ReduceOp op, Object acc, Object in) {
        int n = java.lang.reflect.Array.getLength(acc);
        int m = java.lang.reflect.Array.getLength(in);
        if (n != m) {
            throw new IllegalArgumentException("reduction over arrays of different lengths (" + n + " and " + m + ")");
        }
        combine(op, acc, 0, in, 0, n);
    }

    private static Object checkType(Object in, Object acc) {
        if (in.getClass() != acc.getClass()) {
            throw new IllegalArgumentException("reduction over different types ("
                    + acc.getClass().getSimpleName() + " and " + in.getClass().getSimpleName() + ")");
        }
        return in;
    }

    private static void combineDouble(ReduceOp op, double[] a, int ao, double[] b, int bo, int n) {
        switch (op) {
            case SUM -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] += b[bo + i];
                }
            }
            case PROD -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] *= b[bo + i];
                }
            }
            case MIN -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] = Math.min(a[ao + i], b[bo + i]);
                }
            }
            case MAX -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] = Math.max(a[ao + i], b[bo + i]);
                }
            }
            case LAND -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] = (a[ao + i] != 0 && b[bo + i] != 0) ? 1 : 0;
                }
            }
            case LOR -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] = (a[ao + i] != 0 || b[bo + i] != 0) ? 1 : 0;
                }
            }
            default -> throw new IllegalArgumentException("reduction " + op + " is not defined for double values");
        }
    }

    private static void combineLong(ReduceOp op, long[] a, int ao, long[] b, int bo, int n) {
        switch (op) {
            case SUM -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] += b[bo + i];
                }
            }
            case PROD -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] *= b[bo + i];
                }
            }
            case MIN -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] = Math.min(a[ao + i], b[bo + i]);
                }
            }
            case MAX -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] = Math.max(a[ao + i], b[bo + i]);
                }
            }
            case LAND -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] = (a[ao + i] != 0 && b[bo + i] != 0) ? 1 : 0;
                }
            }
            case LOR -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] = (a[ao + i] != 0 || b[bo + i] != 0) ? 1 : 0;
                }
            }
            case BAND -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] &= b[bo + i];
                }
            }
            case BOR -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] |= b[bo + i];
                }
            }
        }
    }

    private static void combineInt(ReduceOp op, int[] a, int ao, int[] b, int bo, int n) {
        switch (op) {
            case SUM -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] += b[bo + i];
                }
            }
            case PROD -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] *= b[bo + i];
                }
            }
            case MIN -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] = Math.min(a[ao + i], b[bo + i]);
                }
            }
            case MAX -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] = Math.max(a[ao + i], b[bo + i]);
                }
            }
            case LAND -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] = (a[ao + i] != 0 && b[bo + i] != 0) ? 1 : 0;
                }
            }
            case LOR -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] = (a[ao + i] != 0 || b[bo + i] != 0) ? 1 : 0;
                }
            }
            case BAND -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] &= b[bo + i];
                }
            }
            case BOR -> {
                for (int i = 0; i < n; i++) {
                    a[ao + i] |= b[bo + i];
                }
            }
        }
    }
}
