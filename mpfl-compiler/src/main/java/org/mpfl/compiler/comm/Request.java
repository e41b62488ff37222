package org.mpfl.compiler.comm;

import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrActivity;

/**
 * One point-to-point operation in flight: a message (send side) or a posted receive. Blocking
 * operations are a request plus a wait, as in MPI. A standard send is complete as soon as it is
 * posted (buffered); a synchronous send and a receive complete when matched.
 */
final class Request {
    enum Kind { SEND, RECEIVE }

    final Kind kind;
    final SymbolicRank owner;
    final Communicator comm;
    /** Destination (send) or source (receive) as a rank of {@link #comm}; {@link Communicator#ANY_SOURCE} for any. */
    final int peer;
    /** {@link Communicator#ANY_TAG} for a receive of any tag. */
    final int tag;
    final boolean synchronous;
    final IrActivity origin;
    final SourceLocation at;
    boolean complete;
    boolean matched;

    Request(Kind kind, SymbolicRank owner, Communicator comm, int peer, int tag, boolean synchronous, IrActivity origin,
            SourceLocation at) {
        this.kind = kind;
        this.owner = owner;
        this.comm = comm;
        this.peer = peer;
        this.tag = tag;
        this.synchronous = synchronous;
        this.origin = origin;
        this.at = at;
    }

    /** World rank of the peer, or −2 for any source. */
    int peerWorldRank() {
        return peer == Communicator.ANY_SOURCE ? Communicator.ANY_SOURCE : comm.world(peer);
    }

    /** E.g. {@code "rank 3"} or {@code "any rank"}; ranks are world ranks, with the communicator rank if different. */
    String describePeer() {
        if (peer == Communicator.ANY_SOURCE) {
            return "any rank";
        }
        int world = comm.world(peer);
        return world == peer ? "rank " + world : "rank " + world + " (rank " + peer + " of comm " + comm.name() + ")";
    }

    String describeTag() {
        return tag == Communicator.ANY_TAG ? "any tag" : "tag " + tag;
    }
}
