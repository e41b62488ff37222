package org.mpfl.samples.common;

import java.util.Map;

/**
 * Typed access to the inputs of a compute activity, with an error message that names the missing
 * or mistyped variable (the runtime turns the exception into a rank fault with the activity's
 * source location).
 */
public final class Inputs {
    private Inputs() {
    }

    public static int intValue(Map<String, Object> inputs, String name) {
        return get(inputs, name, Number.class).intValue();
    }

    public static long longValue(Map<String, Object> inputs, String name) {
        return get(inputs, name, Number.class).longValue();
    }

    public static double doubleValue(Map<String, Object> inputs, String name) {
        return get(inputs, name, Number.class).doubleValue();
    }

    public static double[] doubles(Map<String, Object> inputs, String name) {
        return get(inputs, name, double[].class);
    }

    public static int[] ints(Map<String, Object> inputs, String name) {
        return get(inputs, name, int[].class);
    }

    /** A value of an MPFL {@code object} variable, produced earlier by an activity of this sample. */
    public static <T> T get(Map<String, Object> inputs, String name, Class<T> type) {
        Object value = inputs.get(name);
        if (value == null) {
            throw new IllegalArgumentException("input '" + name + "' is missing (name it in the in=\"…\" list)");
        }
        if (!type.isInstance(value)) {
            throw new IllegalArgumentException("input '" + name + "' should be a " + type.getSimpleName()
                    + " but is a " + value.getClass().getSimpleName());
        }
        return type.cast(value);
    }
}
