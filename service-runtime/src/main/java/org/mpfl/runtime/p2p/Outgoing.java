package org.mpfl.runtime.p2p;

import java.util.concurrent.CompletableFuture;
import org.mpfl.runtime.transport.Envelope;

/** One message on its way out through an {@link OutboundLane}; {@link #delivered} completes once stored. */
final class Outgoing {
    Envelope envelope;
    /** Bytes charged to the lane's queue bound while queued (copied small messages only). */
    long queuedBytes;
    /** Order of entry into its lane (see {@code OutboundLane}). */
    long order;
    final CompletableFuture<Void> delivered = new CompletableFuture<>();

    Outgoing(Envelope envelope) {
        this.envelope = envelope;
    }
}
