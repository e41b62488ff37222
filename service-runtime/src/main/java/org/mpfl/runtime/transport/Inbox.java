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
     * Like {@link #store(Envelope)}, for a payload read after {@link #admit}: the inbox takes over
     * what it needs of {@code reservation} (may be {@code null}) if it buffers the message; the
     * caller releases the rest afterwards.
     */
    default Outcome store(Envelope envelope, MemoryBudget.Reservation reservation) {
        return store(envelope);
    }

    /**
     * The answer to a header whose payload has not been read yet.
     *
     * @param outcome     {@code STORED}: read the payload and {@link #store(Envelope, MemoryBudget.Reservation)
     *                    store} it; anything else is the answer, and no payload byte is to be allocated
     * @param proven      whether the header carried a valid proof of a domain known here (a transport
     *                    may then drain a refused payload to keep its connection; a stranger's it does not)
     * @param reservation the host-budget bytes reserved for the payload ({@code null}: none needed,
     *                    e.g. a posted receive waits for it); the caller releases it in any case
     */
    record Admission(Outcome outcome, boolean proven, MemoryBudget.Reservation reservation) {
        /** Releases the reservation, if any. */
        public void release() {
            if (reservation != null) {
                reservation.release();
            }
        }
    }

    /**
     * Admission before allocation: decides from the header alone — domain known, token proof valid,
     * rank there, room in the domain's bound and in the host's {@link MemoryBudget} — whether a
     * payload of {@code payloadBytes} may be read now. Unlike {@link #probe} it reserves the bytes
     * in the host budget when the message would be buffered. The default admits everything.
     */
    default Admission admit(Envelope header, long payloadBytes) {
        return new Admission(probe(header, payloadBytes), false, null);
    }

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

    /**
     * The binary channel's handshake: whether the peer proved, with {@code proof} over this
     * connection's {@code challenge}, that it holds the token of {@code domainId}. {@code STORED}:
     * yes; {@code BUSY}: the domain is not known here yet; {@code DUPLICATE}: it has ended here;
     * {@code REJECTED}: wrong proof or aborted domain. The default rejects (no domains, no channel).
     */
    default Outcome authenticateChannel(String domainId, byte[] challenge, byte[] proof) {
        return Outcome.REJECTED;
    }

    /** The largest payload one message may announce here; a larger one is refused before it is read. */
    default long maxMessageBytes() {
        return Long.MAX_VALUE;
    }

    /** Aborts the domain if the proof is valid; returns whether it was accepted. */
    boolean abort(String domainId, byte[] proof);
}
