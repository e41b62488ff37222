package org.mpfl.runtime.transport;

import org.mpfl.protocol.DomainToken;

/**
 * One message as every transport carries it: the MPIWS {@code store} header and its payload.
 *
 * @param domainId the communication domain
 * @param context  the communicator context id (world is 0; split/dup/collectives get their own)
 * @param from     sender's world rank
 * @param to       receiver's world rank
 * @param tag      user tag (or an internal one for collectives and control messages)
 * @param seq      per (domain, context, from, to) sequence number, starting at 0
 * @param kind     what the message is for
 * @param proof    proof of the domain token for this message
 * @param payload  the value
 */
public record Envelope(String domainId, int context, int from, int to, int tag, long seq,
                       Kind kind, byte[] proof, Payload payload) {

    /** What a message is for. */
    public enum Kind {
        /** A standard-mode message. */
        DATA,
        /** A synchronous-mode message: the receiver answers with {@link #SYNC_ACK} when it matches it. */
        SYNC_DATA,
        /** The receiver matched a {@link #SYNC_DATA} message ({@code tag} and {@code seq} name it). */
        SYNC_ACK,
        /** A broadcast message that the receiver forwards down the binomial tree on arrival (bstore). */
        BSTORE
    }

    /** Whether this message carries {@code token}'s proof for its header. */
    public boolean isProvenBy(DomainToken token) {
        return token.verify(domainId, context, from, to, tag, seq, kind.ordinal(), proof);
    }
}
