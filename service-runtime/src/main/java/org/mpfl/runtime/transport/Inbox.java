package org.mpfl.runtime.transport;

/**
 * The receiving side every transport hands arriving envelopes to (in a service host: the registry
 * of rank instances keyed by (domain ID, rank)). It checks the token proof, drops duplicates by
 * sequence number, buffers, and answers at once: it never waits for the rank to receive.
 */
public interface Inbox {
    /** Outcome of one store. */
    enum Outcome {
        /** Buffered (or handed to a waiting receive). */
        STORED,
        /**
         * Dropped, nothing more to do: already seen (a retry), or addressed to a rank that has
         * ended normally (as MPI drops messages nobody received before finalize).
         */
        DUPLICATE,
        /**
         * Not now: over the domain's memory bound, or the domain/rank is not known here yet (its
         * {@code run} may still be on its way). The sender backs off and retries; this does not
         * count against its delivery deadline.
         */
        BUSY,
        /** Bad token proof, or an aborted domain: the sender must not retry. */
        REJECTED
    }

    Outcome store(Envelope envelope);

    /**
     * A non-binding look at whether a store of {@code payloadBytes} with this header would be
     * admitted now, so a transport can skip sending (or reading) a large payload that would only be
     * answered BUSY, REJECTED or DUPLICATE. {@code STORED} means "go ahead"; the store itself
     * decides. The header's payload may be {@code null}. The default says "go ahead".
     *
     * <p>The registry's implementation checks the token proof: {@code REJECTED} then means a bad
     * proof (or an ended/aborted domain or rank), so a transport calls this before deserialising an
     * {@code object} payload, and never deserialises one from a sender without the token.
     */
    default Outcome probe(Envelope header, long payloadBytes) {
        return Outcome.STORED;
    }

    /** Aborts the domain if the proof is valid; returns whether it was accepted. */
    boolean abort(String domainId, byte[] proof);
}
