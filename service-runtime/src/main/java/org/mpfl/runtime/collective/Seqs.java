package org.mpfl.runtime.collective;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;

/**
 * Sequences the data-moving collectives work on: a primitive array ({@code int[]}, {@code long[]},
 * {@code double[]}, {@code byte[]}) or an {@link ArrayList} of objects (strings and {@code object}
 * values, which travel as one serialised list). Scalars are turned into one-element sequences at
 * the start of a collective and back at the end ({@link Contribution}).
 */
final class Seqs {
    private Seqs() {
    }

    static boolean isPrimitiveArray(Object v) {
        return v instanceof int[] || v instanceof long[] || v instanceof double[] || v instanceof byte[];
    }

    static boolean isSeq(Object v) {
        return isPrimitiveArray(v) || v instanceof List;
    }

    static int length(Object seq) {
        if (seq instanceof List<?> l) {
            return l.size();
        }
        return Array.getLength(seq);
    }

    /** Bytes a primitive array occupies on the wire (0 for lists: they are never chosen by size). */
    static long byteSize(Object seq) {
        if (seq instanceof double[] a) {
            return 8L * a.length;
        } else if (seq instanceof long[] a) {
            return 8L * a.length;
        } else if (seq instanceof int[] a) {
            return 4L * a.length;
        } else if (seq instanceof byte[] a) {
            return a.length;
        }
        return 0;
    }

    /** A new sequence of the same kind as {@code like}, {@code n} elements long. */
    static Object newLike(Object like, int n) {
        if (like instanceof List) {
            ArrayList<Object> l = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                l.add(null);
            }
            return l;
        }
        return Array.newInstance(like.getClass().getComponentType(), n);
    }

    @SuppressWarnings("unchecked")
    static void copy(Object src, int srcOff, Object dst, int dstOff, int n) {
        if (src instanceof List<?> s) {
            List<Object> d = (List<Object>) dst;
            for (int i = 0; i < n; i++) {
                d.set(dstOff + i, s.get(srcOff + i));
            }
        } else {
            System.arraycopy(src, srcOff, dst, dstOff, n);
        }
    }

    static Object slice(Object src, int from, int to) {
        if (src instanceof List<?> s) {
            return new ArrayList<Object>(s.subList(from, to));
        }
        Object out = Array.newInstance(src.getClass().getComponentType(), to - from);
        System.arraycopy(src, from, out, 0, to - from);
        return out;
    }

    /** Concatenation of {@code parts} in order (always a fresh sequence). */
    static Object concat(Object[] parts) {
        int total = 0;
        for (Object p : parts) {
            total += length(p);
        }
        Object out = newLike(parts[0], total);
        int off = 0;
        for (Object p : parts) {
            int n = length(p);
            copy(p, 0, out, off, n);
            off += n;
        }
        return out;
    }

    /** Checks that every part has the kind of the first (a mismatch is a program error, reported clearly). */
    static void checkSameKind(Object first, Object other, String op) {
        Class<?> a = first instanceof List ? List.class : first.getClass();
        Class<?> b = other instanceof List ? List.class : other.getClass();
        if (a != b) {
            throw new IllegalArgumentException(op + ": ranks contributed different types ("
                    + a.getSimpleName() + " and " + b.getSimpleName() + ")");
        }
    }
}
