package org.mpfl.engine.capacity;

/**
 * A scheduler refused or did not answer a request of a {@link CapacityProvider}; the message says which and why, and
 * {@link #isTransient()} whether asking again later may succeed (the scheduler did not answer) or not (it refused).
 */
public final class CapacityException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean transientFailure;

    public CapacityException(String message) {
        this(message, null, false);
    }

    public CapacityException(String message, Throwable cause) {
        this(message, cause, false);
    }

    /**
     * @param transientFailure the scheduler did not answer (a timeout, its controller out of reach, a 5xx), so that
     *                         the same request may succeed later; {@code false} for a refusal (a refused token, a bad
     *                         partition) or a failure that asking again does not mend
     */
    public CapacityException(String message, Throwable cause, boolean transientFailure) {
        super(message, cause);
        this.transientFailure = transientFailure;
    }

    /** Whether the scheduler did not answer (asking again may succeed), rather than refused. */
    public boolean isTransient() {
        return transientFailure;
    }
}
