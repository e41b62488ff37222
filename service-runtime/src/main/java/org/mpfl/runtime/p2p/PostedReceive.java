package org.mpfl.runtime.p2p;

import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.transport.Envelope;

/** A receive waiting in a {@link Mailbox}: what it matches, and the message once matched. */
final class PostedReceive {
    final int context;
    /** World rank, or {@link Communicator#ANY_SOURCE}. */
    final int sourceWorld;
    final int tag;
    /** Set under the mailbox lock; volatile so {@code Request.test()} can read it without the lock. */
    private volatile Envelope matched;

    PostedReceive(int context, int sourceWorld, int tag) {
        this.context = context;
        this.sourceWorld = sourceWorld;
        this.tag = tag;
    }

    /** MPI matching; {@link Communicator#ANY_TAG} matches user tags only (>= 0), never internal ones. */
    boolean matches(Envelope e) {
        return e.context() == context
                && (sourceWorld == Communicator.ANY_SOURCE || e.from() == sourceWorld)
                && (tag == Communicator.ANY_TAG ? e.tag() >= 0 : e.tag() == tag);
    }

    void complete(Envelope e) {
        matched = e;
    }

    boolean isDone() {
        return matched != null;
    }

    Envelope matched() {
        return matched;
    }
}
