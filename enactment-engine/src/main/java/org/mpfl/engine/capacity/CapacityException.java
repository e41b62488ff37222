package org.mpfl.engine.capacity;

/**
 * A scheduler refused or did not answer a request of a {@link CapacityProvider}; the message says which and why, and
 * {@link #isTransient()} whether asking again later may succeed (the scheduler did not answer) or not (it refused).
 */
public final class CapacityException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean transientFailure;
    private final boolean outcomeUnknown;

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
        this(message, cause, transientFailure, false);
    }

    private CapacityException(String message, Throwable cause, boolean transientFailure, boolean outcomeUnknown) {
        super(message, cause);
        this.transientFailure = transientFailure;
        this.outcomeUnknown = outcomeUnknown;
    }

    /**
     * A request that was sent but got no answer (it timed out, or the engine stopping interrupted it): the scheduler
     * may have carried it out (a submission: the job may exist). Transient.
     */
    public static CapacityException outcomeUnknown(String message, Throwable cause) {
        return new CapacityException(message, cause, true, true);
    }

    /** Whether the request may have been carried out though no answer came ({@link #outcomeUnknown(String, Throwable)}). */
    public boolean isOutcomeUnknown() {
        return outcomeUnknown;
    }

    /** Whether the scheduler did not answer (asking again may succeed), rather than refused. */
    public boolean isTransient() {
        return transientFailure;
    }
}
