package org.mpfl.runtime.p2p;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.mpfl.runtime.api.Message;
import org.mpfl.runtime.api.Request;

/** Requests of the non-blocking operations. */
abstract class P2PRequest implements Request {

    @Override
    public Message await() {
        return await(-1);
    }

    @Override
    public Message await(Duration timeout) {
        return await(timeout.toNanos());
    }

    abstract Message await(long timeoutNanos);

    /** A request that completed at once (PROC_NULL). */
    static final class Done extends P2PRequest {
        private final Message result;

        Done(Message result) {
            this.result = result;
        }

        @Override
        Message await(long timeoutNanos) {
            return result;
        }

        @Override
        public boolean test() {
            return true;
        }
    }

    /** isend / issend: done when stored by the receiver, and (issend) when the receiver matched it. */
    static final class Send extends P2PRequest {
        private final P2PCommunicator comm;
        private final Outgoing outgoing;
        private final CompletableFuture<Void> matched;
        private final int dest;

        Send(P2PCommunicator comm, Outgoing outgoing, CompletableFuture<Void> matched, int dest) {
            this.comm = comm;
            this.outgoing = outgoing;
            this.matched = matched;
            this.dest = dest;
        }

        @Override
        Message await(long timeoutNanos) {
            String what = (matched == null ? "isend" : "issend") + " to rank " + dest + " tag "
                    + outgoing.envelope.tag() + " on communicator " + comm.name();
            long start = System.nanoTime();
            RankInstance rank = comm.rankInstance();
            rank.await(outgoing.delivered, timeoutNanos, what);
            if (matched != null) {
                long left = timeoutNanos < 0 ? -1 : Math.max(1, timeoutNanos - (System.nanoTime() - start));
                rank.await(matched, left, what);
                rank.forgetSyncAck(outgoing.envelope.context(), outgoing.envelope.to(), outgoing.envelope.seq());
            }
            return null;
        }

        @Override
        public boolean test() {
            return outgoing.delivered.isDone() && (matched == null || matched.isDone());
        }
    }

    /** irecv. */
    static final class Receive extends P2PRequest {
        private final P2PCommunicator comm;
        private final PostedReceive posted;
        private final int source;

        Receive(P2PCommunicator comm, PostedReceive posted, int source) {
            this.comm = comm;
            this.posted = posted;
            this.source = source;
        }

        @Override
        Message await(long timeoutNanos) {
            return comm.complete(posted, source, timeoutNanos, false);
        }

        @Override
        public boolean test() {
            return posted.isDone();
        }
    }
}
