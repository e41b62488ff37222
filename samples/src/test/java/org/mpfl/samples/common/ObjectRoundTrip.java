package org.mpfl.samples.common;

import java.util.List;
import org.mpfl.runtime.transport.ObjectTypes;
import org.mpfl.runtime.transport.Payload;

/**
 * Sends a sample's {@code object} value through its wire form and back, with the allow-list the
 * sample's ranks have: the packages of the workflow's activity classes.
 */
public final class ObjectRoundTrip {
    private ObjectRoundTrip() {
    }

    /** {@code value} encoded and decoded as an object payload of a workflow whose activities include {@code activity}. */
    @SuppressWarnings("unchecked")
    public static <T> T of(T value, Class<?> activity) {
        ObjectTypes types = ObjectTypes.forWorkflow(activity.getClassLoader(), List.of(activity.getName()));
        byte[] wire = Payload.ofObject(value, types).encode();
        Object back = Payload.decode(Payload.Type.OBJECT, wire).value(types);
        if (back == value || back.getClass() != value.getClass()) {
            throw new AssertionError("expected a fresh " + value.getClass().getName() + ", got " + back);
        }
        return (T) back;
    }
}
