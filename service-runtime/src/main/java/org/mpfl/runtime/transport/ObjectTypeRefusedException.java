package org.mpfl.runtime.transport;

/**
 * An {@code object} payload named a class that the receiving rank does not accept (see
 * {@link ObjectTypes}). Thrown before the class is loaded, so nothing of it ran; the receive that
 * matched the message fails with this message.
 */
public final class ObjectTypeRefusedException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String className;

    public ObjectTypeRefusedException(String className, String message) {
        super(message);
        this.className = className;
    }

    /** The class name the payload gave. */
    public String className() {
        return className;
    }
}
