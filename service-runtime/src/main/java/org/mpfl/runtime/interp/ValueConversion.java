package org.mpfl.runtime.interp;

import org.mpfl.ir.MpflType;
import org.mpfl.ir.eval.Values;

/**
 * Fits a value that comes from outside the type checker (a received message, a collective's result,
 * an activity's output) into a slot of a declared type, as the language reference decides for
 * receives: identical types pass, numeric scalars widen (int → long → double), anything fits
 * {@code object}. Everything else — an {@code int[]} arriving for a {@code double[]} too — is a
 * mismatch, which the caller reports as a fault at its activity.
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
