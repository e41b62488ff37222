package org.mpfl.runtime.transport;

import org.mpfl.protocol.Endpoint;

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
     * Which of {@code peers} this transport reaches now, found within about {@code timeoutMillis}
     * in all (a transport that probes the network probes them all at once). The default asks
     * {@link #reaches} for each.
     */
    default java.util.Set<Endpoint> reachable(java.util.Collection<Endpoint> peers, long timeoutMillis) {
        java.util.Set<Endpoint> out = new java.util.HashSet<>();
        for (Endpoint p : peers) {
            if (reaches(p)) {
                out.add(p);
            }
        }
        return out;
    }

    /**
     * As {@link #reachable(java.util.Collection, long)}, asked for domain {@code domainId}'s set-up: a
     * transport whose connections through a relay are admitted per domain probes them as that domain.
     * The default ignores the domain.
     */
    default java.util.Set<Endpoint> reachable(String domainId, java.util.Collection<Endpoint> peers, long timeoutMillis) {
        return reachable(peers, timeoutMillis);
    }

    /**
     * Delivers one envelope and returns once the receiving side has stored (or recognised as
     * duplicate) it.
     *
     * @throws TransportException on a failure worth retrying (connection refused, I/O error,
     *                            receiver busy), or a {@link TransportException#isFinal() final} one
     *                            (bad token, unknown domain)
     */
    void store(Endpoint endpoint, Envelope envelope) throws TransportException;

    /** Whether {@link #storeAsync} takes (small) envelopes; callers then copy what they pass to it. */
    default boolean answersAsynchronously() {
        return false;
    }

    /**
     * Starts delivering one envelope without waiting for the receiver's answer, which arrives later
     * through {@code done} (possibly on another thread, possibly before this returns). Returns
     * {@code false} if this transport does not do that for this envelope (the caller then uses
     * {@link #store}); the default never does.
     */
    default boolean storeAsync(Endpoint endpoint, Envelope envelope, StoreCallback done) {
        return false;
    }

    /**
     * Delivers several envelopes for one destination, in this order, possibly several in flight at
     * once (the receiver re-orders by sequence number and drops duplicates). Returns one entry per
     * envelope: {@code null} if it was stored (or recognised as duplicate), else what {@link #store}
     * would have thrown for it; an envelope after a transport failure may carry that failure without
     * having been tried (or after having been stored: a retry is then dropped as a duplicate).
     * The default stores one after the other and stops at the first failure that is not BUSY.
     */
    default TransportException[] storeAll(Endpoint endpoint, java.util.List<Envelope> envelopes) {
        TransportException[] out = new TransportException[envelopes.size()];
        for (int i = 0; i < out.length; i++) {
            try {
                store(endpoint, envelopes.get(i));
            } catch (ReceiverBusyException busy) {
                out[i] = busy;
            } catch (TransportException ex) {
                java.util.Arrays.fill(out, i, out.length, ex);
                break;
            }
        }
        return out;
    }

    /**
     * Whether {@link #storeAll} carries several envelopes in one exchange (SOAP: one HTTP request),
     * so that a sender gains by queueing small messages behind one in flight rather than storing
     * each on its caller's thread. The default: no.
     */
    default boolean batchesStores() {
        return false;
    }

    /** Asks the rank's host to abort the domain (best effort, bounded time). */
    void abort(Endpoint endpoint, String domainId, byte[] proof) throws TransportException;

    @Override
    void close();
}
