package org.mpfl.ir.eval;

import java.util.Arrays;
import org.mpfl.ir.MpflType;

/**
 * Helpers on run-time values (representation: see {@link MpflType}): zero values, copies for value
 * semantics, widening, type tests and the text form used by {@code string(x)} and {@code +}.
 */
public final class Values {
    private Values() {
    }

    /** The zero value of a type: 0, 0L, 0.0, false, '', empty arrays, null for object. */
    public static Object zero(MpflType type) {
        return switch (type) {
            case INT -> 0;
            case LONG -> 0L;
            case DOUBLE -> 0.0;
            case BOOLEAN -> false;
            case STRING -> "";
            case INT_ARRAY -> new int[0];
            case LONG_ARRAY -> new long[0];
            case DOUBLE_ARRAY -> new double[0];
            case BYTES -> new byte[0];
            case OBJECT -> null;
        };
    }

    /** A copy of arrays (assignment, send and receive have value semantics); other values are immutable and returned as is. */
    public static Object copy(Object value) {
        if (value instanceof int[] a) {
            return a.clone();
        }
        if (value instanceof long[] a) {
            return a.clone();
        }
        if (value instanceof double[] a) {
            return a.clone();
        }
        if (value instanceof byte[] a) {
            return a.clone();
        }
        return value;
    }

    /** The MPFL type of a run-time value; anything that is not one of the typed representations is {@code object}. */
    public static MpflType typeOf(Object value) {
        if (value instanceof Integer) {
            return MpflType.INT;
        } else if (value instanceof Long) {
            return MpflType.LONG;
        } else if (value instanceof Double) {
            return MpflType.DOUBLE;
        } else if (value instanceof Boolean) {
            return MpflType.BOOLEAN;
        } else if (value instanceof String) {
            return MpflType.STRING;
        } else if (value instanceof int[]) {
            return MpflType.INT_ARRAY;
        } else if (value instanceof long[]) {
            return MpflType.LONG_ARRAY;
        } else if (value instanceof double[]) {
            return MpflType.DOUBLE_ARRAY;
        } else if (value instanceof byte[]) {
            return MpflType.BYTES;
        }
        return MpflType.OBJECT;
    }

    /**
     * The value converted for a slot of type {@code target}: identical types pass, numeric scalars widen
     * (int → long → double), anything goes into {@code object}. Returns null if the value does not fit
     * (the caller raises a fault with its location); a null value fits only {@code object}.
     */
    public static Object coerce(Object value, MpflType target) {
        if (target == MpflType.OBJECT) {
            return value;
        }
        if (value == null) {
            return null;
        }
        MpflType actual = typeOf(value);
        if (actual == target) {
            return value;
        }
        if (target.accepts(actual)) {
            return widen(value, target);
        }
        return null;
    }

    /** Numeric widening of a scalar to {@code target} (int, long or double). */
    public static Object widen(Object value, MpflType target) {
        Number n = (Number) value;
        return switch (target) {
            case INT -> n.intValue();
            case LONG -> n.longValue();
            case DOUBLE -> n.doubleValue();
            default -> throw new IllegalArgumentException("not a numeric type: " + target);
        };
    }

    /**
     * The text of a value as {@code string(x)} gives it: numbers as Java prints them, arrays as {@code [1, 2]}, null object as
     * {@code null}. An {@code object} may hold a {@code boolean[]} (gathered booleans) or a list (gathered strings and
     * objects), whose elements are written the same way, never as a Java object address.
     */
    public static String toText(Object value) {
        if (value instanceof int[] a) {
            return Arrays.toString(a);
        } else if (value instanceof long[] a) {
            return Arrays.toString(a);
        } else if (value instanceof double[] a) {
            return Arrays.toString(a);
        } else if (value instanceof byte[] a) {
            return Arrays.toString(a);
        } else if (value instanceof boolean[] a) {
            return Arrays.toString(a);
        } else if (value instanceof Object[] a) {
            return toText(Arrays.asList(a));
        } else if (value instanceof java.util.Collection<?> c) {
            StringBuilder text = new StringBuilder("[");
            for (Object element : c) {
                text.append(text.length() > 1 ? ", " : "").append(toText(element));
            }
            return text.append(']').toString();
        }
        return String.valueOf(value);
    }

    /**
     * Length of an array, bytes or string. A string's is its count of characters (Unicode code points), not of Java's
     * UTF-16 units: {@code len('🌡')} is 1, and slicing ({@link #codePointOffset}) counts the same way, so that no
     * slice cuts a character in half.
     */
    public static int length(Object value) {
        if (value instanceof int[] a) {
            return a.length;
        } else if (value instanceof long[] a) {
            return a.length;
        } else if (value instanceof double[] a) {
            return a.length;
        } else if (value instanceof byte[] a) {
            return a.length;
        } else if (value instanceof String s) {
            return s.codePointCount(0, s.length());
        }
        throw new IllegalArgumentException("no length: " + typeOf(value));
    }

    /** The UTF-16 index of character (code point) {@code index} of {@code s}, {@code 0 <= index <= length(s)}. */
    public static int codePointOffset(String s, int index) {
        return s.offsetByCodePoints(0, index);
    }
}
