package org.mpfl.runtime.collective;

import java.util.ArrayList;
import java.util.List;

/**
 * One rank's value turned into a sequence for gather/allgather/alltoall, and the rules for turning
 * the collected sequence back: scalars become arrays ({@code Integer} → {@code int[]}, {@code Long}
 * → {@code long[]}, {@code Double} → {@code double[]}, {@code Boolean} → {@code boolean[]}), arrays
 * are concatenated in rank order, and strings and other objects are collected in a
 * {@link java.util.List}.
 */
final class Contribution {
    private Contribution() {
    }

    /** The sequence a value contributes (no copy for arrays: the algorithms never modify it). */
    static Object toSeq(Object value) {
        if (Seqs.isPrimitiveArray(value)) {
            return value;
        } else if (value instanceof Integer v) {
            return new int[] {v};
        } else if (value instanceof Long v) {
            return new long[] {v};
        } else if (value instanceof Double v) {
            return new double[] {v};
        } else if (value instanceof Boolean v) {
            return new boolean[] {v};
        }
        ArrayList<Object> l = new ArrayList<>(1);
        l.add(value);
        return l;
    }

    /** Booleans travel as bytes (primitive {@code boolean[]} has no raw wire form). */
    static Object toWire(Object seq) {
        if (seq instanceof boolean[] b) {
            byte[] out = new byte[b.length];
            for (int i = 0; i < b.length; i++) {
                out[i] = (byte) (b[i] ? 1 : 0);
            }
            return out;
        }
        return seq;
    }

    /** Converts the collected sequence back for a contribution like {@code sample}. */
    static Object fromWire(Object seq, Object sample) {
        if (sample instanceof Boolean) {
            byte[] b = (byte[]) seq;
            boolean[] out = new boolean[b.length];
            for (int i = 0; i < b.length; i++) {
                out[i] = b[i] != 0;
            }
            return out;
        }
        if (seq instanceof List<?> l && !(l instanceof ArrayList)) {
            return new ArrayList<Object>(l);
        }
        return seq;
    }

    /** The wire sequence of one value. */
    static Object wire(Object value) {
        return toWire(toSeq(value));
    }

    static boolean isList(Object seq) {
        return seq instanceof List;
    }

    static List<Object> emptyList() {
        return new ArrayList<>();
    }
}
