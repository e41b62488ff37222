package org.mpfl.runtime.interp;

import org.mpfl.compiler.ir.MpflType;
import org.mpfl.compiler.ir.eval.Values;

/**
 * Fits a value that comes from outside the type checker (a received message, a collective's result,
 * an activity's output) into a slot of a declared type: identical types pass, numbers widen
 * (int → long → double), numeric arrays widen element-wise the same way (e.g. an {@code int[]}
 * received into a {@code double[]}), and anything fits {@code object}. Everything else is a mismatch.
 */
final class ValueConversion {
    private ValueConversion() {
    }

    /** Sentinel for "does not fit" ({@code null} is a legal value of {@code object}). */
    static final Object MISMATCH = new Object();

    static Object fit(Object value, MpflType type) {
        if (type == MpflType.OBJECT) {
            return value;
        }
        if (value == null) {
            return MISMATCH;
        }
        Object v = Values.coerce(value, type);
        if (v != null) {
            return v;
        }
        if (type == MpflType.LONG_ARRAY && value instanceof int[] a) {
            long[] r = new long[a.length];
            for (int i = 0; i < a.length; i++) {
                r[i] = a[i];
            }
            return r;
        }
        if (type == MpflType.DOUBLE_ARRAY && value instanceof int[] a) {
            double[] r = new double[a.length];
            for (int i = 0; i < a.length; i++) {
                r[i] = a[i];
            }
            return r;
        }
        if (type == MpflType.DOUBLE_ARRAY && value instanceof long[] a) {
            double[] r = new double[a.length];
            for (int i = 0; i < a.length; i++) {
                r[i] = a[i];
            }
            return r;
        }
        return MISMATCH;
    }

    /** The MPFL name of a value's type, for messages. */
    static String typeName(Object value) {
        if (value == null) {
            return "null";
        }
        MpflType t = Values.typeOf(value);
        return t == MpflType.OBJECT ? "object (" + value.getClass().getName() + ")" : t.spelling();
    }
}
