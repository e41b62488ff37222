package org.mpfl.engine.capacity;

/** A scheduler refused or did not answer a request of a {@link CapacityProvider}; the message says which and why. */
public final class CapacityException extends Exception {
    private static final long serialVersionUID = 1L;

    public CapacityException(String message) {
        super(message);
    }

    public CapacityException(String message, Throwable cause) {
        super(message, cause);
    }
}
