package org.mpfl.runtime.interp.kernel;

import java.util.HashMap;
import java.util.Map;

/**
 * The Java arrays that receive a worker's new output arrays, allocated while the worker computes.
 *
 * <p>A new output array costs the rank a fresh {@code double[]} (the JVM zeroes it: for 1,000,000
 * doubles 0.4-0.9 ms on the 2-core benchmark machine, more than a copy of it) and one copy out of the
 * shared memory. The allocation need not wait for the answer: a call site's outputs usually keep their
 * type and length from call to call, so the arrays are allocated for the lengths of the site's previous
 * new outputs between sending the request and receiving the answer, in parallel with the worker's
 * work. An output that came back in place (an input's region) or of another length is simply not
 * prepared next time / allocated when its answer arrives; a prepared array that is not used is garbage
 * like any other.
 */
final class OutputSlots {
    /** A new output array of a site: its wire type and element count. */
    private record Shape(String type, int count) {
    }

    /**
     * Call target, then output name, to the shape of its last new array (two lookups of the site's own
     * strings, whose hashes are cached, rather than a key concatenated and hashed anew for every output of
     * every call).
     */
    private final Map<String, Map<String, Shape>> last = new HashMap<>();
    /** The arrays prepared for the call under way, by output name. */
    private final Map<String, Object> prepared = new HashMap<>();

    /** Allocates the arrays that {@code target}'s outputs are expected to need (while the worker computes). */
    void prepare(String target, Iterable<String> outputs) {
        prepared.clear();
        Map<String, Shape> shapes = last.get(target);
        if (shapes == null) {
            return;
        }
        for (String name : outputs) {
            Shape shape = shapes.get(name);
            if (shape != null) {
                prepared.put(name, allocate(shape.type(), shape.count()));
            }
        }
    }

    /**
     * The array to copy a new output into: the prepared one if it has the type and length, else a fresh one;
     * remembers the shape for the site's next call.
     */
    Object take(String target, String name, String type, int count) {
        Shape shape = new Shape(type, count);
        Shape before = last.computeIfAbsent(target, t -> new HashMap<>()).put(name, shape);
        Object array = prepared.remove(name);
        return array != null && shape.equals(before) ? array : allocate(type, count);
    }

    /** Forgets an output that came back in place (no new array is needed for it next time). */
    void inPlace(String target, String name) {
        Map<String, Shape> shapes = last.get(target);
        if (shapes != null) {
            shapes.remove(name);
        }
        prepared.remove(name);
    }

    /** Drops what was prepared and not taken (a failed call's, say). */
    void release() {
        prepared.clear();
    }

    static Object allocate(String type, int count) {
        return switch (type) {
            case "int[]" -> new int[count];
            case "long[]" -> new long[count];
            case "double[]" -> new double[count];
            case "bytes" -> new byte[count];
            default -> throw new IllegalArgumentException("not an array type: " + type);
        };
    }
}
