package org.mpfl.ir.eval;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

/** The built-in functions of spec section 3 (see {@link org.mpfl.ir.Builtin}). */
final class Functions {
    /** Arrays built by zeros/fill/range: a guard against a typo allocating the heap away. */
    static final int MAX_ARRAY_LENGTH = 1 << 28;

    private Functions() {
    }

    static Object call(IrExpr.Call c, EvaluationEnvironment env) {
        List<IrExpr> args = c.arguments();
        SourceLocation at = c.at();
        if (c.function().takesName()) {
            String name = (String) ExpressionEvaluator.evaluate(args.get(0), env);
            return switch (c.function()) {
                case FIRST -> env.firstRank(name);
                case COUNT -> env.rankCount(name);
                case RANK -> env.commRank(name);
                case SIZE -> env.commSize(name);
                case COORDS -> env.coords(name);
                case NEIGHBOR -> env.neighbor(name, ExpressionEvaluator.evaluateInt(args.get(1), env),
                        ExpressionEvaluator.evaluateInt(args.get(2), env));
                default -> throw new IllegalStateException(c.function().name());
            };
        }
        Object[] v = new Object[args.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = ExpressionEvaluator.evaluate(args.get(i), env);
        }
        MpflType type = c.type();
        return switch (c.function()) {
            case LEN -> Values.length(v[0]);
            case MIN -> v.length == 1 ? extreme(v[0], true, at) : pick(v[0], v[1], true, type);
            case MAX -> v.length == 1 ? extreme(v[0], false, at) : pick(v[0], v[1], false, type);
            case ABS -> switch (type) {
                case INT -> Math.abs((Integer) v[0]);
                case LONG -> Math.abs((Long) v[0]);
                default -> Math.abs((Double) v[0]);
            };
            case SQRT -> Math.sqrt(d(v[0]));
            case EXP -> Math.exp(d(v[0]));
            case LOG -> Math.log(d(v[0]));
            case POW -> Math.pow(d(v[0]), d(v[1]));
            case FLOOR -> Math.floor(d(v[0]));
            case CEIL -> Math.ceil(d(v[0]));
            case TO_INT -> toInt(v[0], at);
            case TO_LONG -> toLong(v[0], at);
            case TO_DOUBLE -> toDouble(v[0], at);
            case TO_STRING -> Values.toText(v[0]);
            case ZEROS -> new double[length(v[0], at)];
            case IZEROS -> new int[length(v[0], at)];
            case FILL -> fill(length(v[0], at), v[1], type);
            case RANGE -> range((Integer) v[0], (Integer) v[1], at);
            case CONCAT -> concat(v[0], v[1]);
            case SUM -> sum(v[0]);
            case DIMS -> dims((Integer) v[0], (Integer) v[1], at);
            default -> throw new IllegalStateException(c.function().name());
        };
    }

    private static double d(Object v) {
        return ((Number) v).doubleValue();
    }

    private static int length(Object n, SourceLocation at) {
        int length = (Integer) n;
        if (length < 0 || length > MAX_ARRAY_LENGTH) {
            throw new RuntimeFault(at, "array length " + length + " out of range 0.." + MAX_ARRAY_LENGTH);
        }
        return length;
    }

    private static Object pick(Object a, Object b, boolean min, MpflType type) {
        return switch (type) {
            case INT -> min ? Math.min((Integer) a, (Integer) b) : Math.max((Integer) a, (Integer) b);
            case LONG -> min ? Math.min((Long) a, (Long) b) : Math.max((Long) a, (Long) b);
            default -> min ? Math.min(d(a), d(b)) : Math.max(d(a), d(b));
        };
    }

    private static Object extreme(Object array, boolean min, SourceLocation at) {
        if (Values.length(array) == 0) {
            throw new RuntimeFault(at, (min ? "min" : "max") + " of an empty array");
        }
        if (array instanceof int[] a) {
            return min ? Arrays.stream(a).min().getAsInt() : Arrays.stream(a).max().getAsInt();
        } else if (array instanceof long[] a) {
            return min ? Arrays.stream(a).min().getAsLong() : Arrays.stream(a).max().getAsLong();
        }
        double[] a = (double[]) array;
        double r = a[0];
        for (double x : a) {
            r = min ? Math.min(r, x) : Math.max(r, x);
        }
        return r;
    }

    private static Object toInt(Object v, SourceLocation at) {
        if (v instanceof String s) {
            try {
                return Integer.parseInt(s.trim());
            } catch (NumberFormatException e) {
                throw new RuntimeFault(at, "int('" + s + "'): not an int");
            }
        }
        if (v instanceof Integer i) {
            return i;
        }
        double x = d(v);
        if (v instanceof Long l ? (l < Integer.MIN_VALUE || l > Integer.MAX_VALUE)
                : (Double.isNaN(x) || x <= Integer.MIN_VALUE - 1.0 || x >= Integer.MAX_VALUE + 1.0)) {
            throw new RuntimeFault(at, "int(" + Values.toText(v) + "): out of int range");
        }
        return ((Number) v).intValue();
    }

    private static Object toLong(Object v, SourceLocation at) {
        if (v instanceof String s) {
            try {
                String t = s.trim();
                return Long.parseLong(t.endsWith("L") || t.endsWith("l") ? t.substring(0, t.length() - 1) : t);
            } catch (NumberFormatException e) {
                throw new RuntimeFault(at, "long('" + s + "'): not a long");
            }
        }
        if (v instanceof Double x && (x.isNaN() || x <= -9.223372036854778E18 || x >= 9.223372036854776E18)) {
            throw new RuntimeFault(at, "long(" + x + "): out of long range");
        }
        return ((Number) v).longValue();
    }

    private static Object toDouble(Object v, SourceLocation at) {
        if (v instanceof String s) {
            try {
                return Double.parseDouble(s.trim());
            } catch (NumberFormatException e) {
                throw new RuntimeFault(at, "double('" + s + "'): not a number");
            }
        }
        return d(v);
    }

    private static Object fill(int n, Object value, MpflType type) {
        switch (type) {
            case INT_ARRAY -> {
                int[] r = new int[n];
                Arrays.fill(r, (Integer) value);
                return r;
            }
            case LONG_ARRAY -> {
                long[] r = new long[n];
                Arrays.fill(r, (Long) value);
                return r;
            }
            default -> {
                double[] r = new double[n];
                Arrays.fill(r, d(value));
                return r;
            }
        }
    }

    private static int[] range(int from, int to, SourceLocation at) {
        if (to <= from) {
            return new int[0];
        }
        if ((long) to - from > MAX_ARRAY_LENGTH) {
            throw new RuntimeFault(at, "range(" + from + ", " + to + ") too long");
        }
        int[] r = new int[to - from];
        for (int i = 0; i < r.length; i++) {
            r[i] = from + i;
        }
        return r;
    }

    private static Object concat(Object a, Object b) {
        if (a instanceof String s) {
            return s + b;
        } else if (a instanceof int[] x) {
            int[] y = (int[]) b;
            int[] r = Arrays.copyOf(x, x.length + y.length);
            System.arraycopy(y, 0, r, x.length, y.length);
            return r;
        } else if (a instanceof long[] x) {
            long[] y = (long[]) b;
            long[] r = Arrays.copyOf(x, x.length + y.length);
            System.arraycopy(y, 0, r, x.length, y.length);
            return r;
        } else if (a instanceof double[] x) {
            double[] y = (double[]) b;
            double[] r = Arrays.copyOf(x, x.length + y.length);
            System.arraycopy(y, 0, r, x.length, y.length);
            return r;
        }
        byte[] x = (byte[]) a;
        byte[] y = (byte[]) b;
        byte[] r = Arrays.copyOf(x, x.length + y.length);
        System.arraycopy(y, 0, r, x.length, y.length);
        return r;
    }

    private static Object sum(Object array) {
        if (array instanceof int[] a) {
            int s = 0;
            for (int x : a) {
                s += x;
            }
            return s;
        } else if (array instanceof long[] a) {
            return Arrays.stream(a).sum();
        }
        double s = 0;
        for (double x : (double[]) array) {
            s += x;
        }
        return s;
    }

    /**
     * Balanced factorisation of {@code p} into {@code nd} factors in non-increasing order, as
     * MPI_Dims_create with all dims free: prime factors, largest first, each to the currently
     * smallest dimension.
     */
    static int[] dims(int p, int nd, SourceLocation at) {
        if (p < 1 || nd < 1 || nd > 64) {
            throw new RuntimeFault(at, "dims(" + p + ", " + nd + "): need p >= 1 and 1 <= nd <= 64");
        }
        List<Integer> factors = new ArrayList<>();
        int rest = p;
        for (int f = 2; (long) f * f <= rest; f++) {
            while (rest % f == 0) {
                factors.add(f);
                rest /= f;
            }
        }
        if (rest > 1) {
            factors.add(rest);
        }
        int[] dims = new int[nd];
        Arrays.fill(dims, 1);
        for (int i = factors.size() - 1; i >= 0; i--) {
            int smallest = 0;
            for (int k = 1; k < nd; k++) {
                if (dims[k] < dims[smallest]) {
                    smallest = k;
                }
            }
            dims[smallest] *= factors.get(i);
        }
        Arrays.sort(dims);
        for (int i = 0; i < nd / 2; i++) {
            int t = dims[i];
            dims[i] = dims[nd - 1 - i];
            dims[nd - 1 - i] = t;
        }
        return dims;
    }
}
