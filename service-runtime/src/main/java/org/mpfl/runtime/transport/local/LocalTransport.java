package org.mpfl.runtime.transport.local;

import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Inbox;
import org.mpfl.runtime.transport.ReceiverBusyException;
import org.mpfl.runtime.transport.Transport;
import org.mpfl.runtime.transport.TransportException;

/**
 * In-JVM hand-over between ranks of one service host: the envelope goes straight to this host's
 * {@link LocalInbox} (its rank registry) on the sender's thread, no encoding; the payload is deep-copied once, and only when the
 * receiver admits the message (a BUSY answer costs no copy) — not at all when the sender handed it
 * over ({@link org.mpfl.runtime.transport.Payload#isHandedOver()}).
 */
public final class LocalTransport implements Transport {
    private final String hostId;
    private final LocalInbox inbox;

    public LocalTransport(String hostId, LocalInbox inbox) {
        this.hostId = hostId;
        this.inbox = inbox;
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public boolean reaches(Endpoint endpoint) {
        return hostId.equals(endpoint.hostId());
    }

    @Override
    public void store(Endpoint endpoint, Envelope envelope) throws TransportException {
        Inbox.Outcome outcome = inbox.store(envelope, !envelope.payload().isHandedOver());
        switch (outcome) {
            case STORED, DUPLICATE -> { }
            case BUSY -> throw new ReceiverBusyException("rank " + envelope.to() + " is busy");
            case REJECTED -> throw new TransportException("rank " + envelope.to() + " of host " + hostId
                    + " rejected the message (bad token proof, or the domain was aborted)", true, null);
        }
    }

    @Override
    public void abort(Endpoint endpoint, String domainId, byte[] proof) {
        inbox.abort(domainId, proof);
    }

    @Override
    public void close() {
        // nothing held
    }
}
