package org.mpfl.runtime.transport;

/**
 * Carries envelopes to ranks in other places. Implementations: local (same JVM), binary (TCP between
 * MPFL hosts), soap (Axis2 HTTP, always available). Callers keep per-destination order themselves:
 * they call {@link #store} for one destination from one thread at a time.
 */
public interface Transport extends AutoCloseable {
    /** {@code local}, {@code binary} or {@code soap}. */
    String name();

    /** Whether this transport can carry messages to that endpoint from here. */
    boolean reaches(Endpoint endpoint);

    /**
     * Delivers one envelope and returns once the receiving side has stored (or recognised as
     * duplicate) it.
     *
     * @throws TransportException on a failure worth retrying (connection refused, I/O error,
     *                            receiver busy), or a {@link TransportException#isFinal() final} one
     *                            (bad token, unknown domain)
     */
    void store(Endpoint endpoint, Envelope envelope) throws TransportException;

    /** Asks the rank's host to abort the domain (best effort, bounded time). */
    void abort(Endpoint endpoint, String domainId, byte[] proof) throws TransportException;

    @Override
    void close();
}
