package org.mpfl.runtime.p2p;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.mpfl.runtime.api.CartesianCommunicator;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.Message;
import org.mpfl.runtime.api.ReduceOp;
import org.mpfl.runtime.api.Request;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;

/**
 * The point-to-point {@link Communicator} over a group of world ranks of one domain.
 *
 * <p><b>Construction</b> (for collectives/topologies): {@code new P2PCommunicator(rank, contextId,
 * memberWorldRanks, name)} — {@code rank} is this process's {@link RankInstance} (from
 * {@link RankInstance#world()} or any communicator's {@link #rankInstance()}), {@code contextId} an
 * int that every member uses for this communicator and no other live communicator of the domain
 * uses (world is 0; the caller allocates the others consistently on all members),
 * {@code memberWorldRanks[i]} the world rank of communicator rank {@code i} (must contain this
 * rank). Messages of different contexts never match each other. Collective operations, split, dup
 * and cartesian are not implemented here: they throw {@link UnsupportedOperationException} and a
 * subclass ({@code org.mpfl.runtime.topology.CollectiveCommunicator}, on top of {@code org.mpfl.runtime.collective})
 * overrides them.
 *
 * <p><b>Tags:</b> user tags are {@code >= 0}; negative tags other than {@link #ANY_TAG} are free for
 * internal protocols, and {@link #ANY_TAG} never matches them.
 *
 * <p><b>Send modes:</b> {@link #send} stores at once on the caller's thread when the path to the
 * destination is idle, else queues the message (copied when at most
 * {@code mpfl.eagerLimitBytes}, default 128 KB; a larger one is not copied and the send waits until
 * it was stored) — it never waits for the receiving program. {@link #ssend} also waits for the
 * receiver's match. Received values are always the receiver's own copies.
 */
public class P2PCommunicator implements Communicator {
    private final RankInstance rank;
    private final int context;
    private final int[] members;
    private final String name;
    private final int myRank;
    /** World rank to communicator rank, -1 for non-members. */
    private final int[] localOf;

    public P2PCommunicator(RankInstance rank, int contextId, int[] memberWorldRanks, String name) {
        this.rank = rank;
        this.context = contextId;
        this.members = memberWorldRanks.clone();
        this.name = name;
        this.localOf = new int[rank.size()];
        Arrays.fill(localOf, -1);
        for (int i = 0; i < members.length; i++) {
            int w = members[i];
            if (w < 0 || w >= rank.size() || localOf[w] != -1) {
                throw new IllegalArgumentException("communicator " + name + ": member world rank " + w
                        + " is out of range or repeated (world size " + rank.size() + ")");
            }
            localOf[w] = i;
        }
        this.myRank = localOf[rank.rank()];
        if (myRank < 0) {
            throw new IllegalArgumentException("communicator " + name + " does not contain world rank " + rank.rank());
        }
    }

    /** Copy constructor for subclasses that add collectives to an existing communicator. */
    protected P2PCommunicator(P2PCommunicator other) {
        this(other.rank, other.context, other.members, other.name);
    }

    @Override
    public int rank() {
        return myRank;
    }

    @Override
    public int size() {
        return members.length;
    }

    @Override
    public String name() {
        return name;
    }

    public RankInstance rankInstance() {
        return rank;
    }

    public int contextId() {
        return context;
    }

    /** World ranks of the members, indexed by communicator rank (a copy). */
    public int[] memberWorldRanks() {
        return members.clone();
    }

    /** World rank of communicator rank {@code r}. */
    public int worldRankOf(int r) {
        if (r < 0 || r >= members.length) {
            throw new IllegalArgumentException("rank " + r + " is outside communicator " + name + " of size "
                    + members.length);
        }
        return members[r];
    }

    // ------------------------------------------------------------------ sends

    @Override
    public void send(Object value, int dest, int tag) {
        if (dest == PROC_NULL) {
            return;
        }
        checkSendTag(tag);
        rank.lane(worldRankOf(dest)).send(context, tag, Envelope.Kind.DATA, payloadOf(value),
                OutboundLane.Mode.BLOCKING);
    }

    @Override
    public void ssend(Object value, int dest, int tag) {
        if (dest == PROC_NULL) {
            return;
        }
        checkSendTag(tag);
        int destWorld = worldRankOf(dest);
        Outgoing o = rank.lane(destWorld).send(context, tag, Envelope.Kind.SYNC_DATA, payloadOf(value),
                OutboundLane.Mode.BLOCKING);
        long seq = o.envelope.seq();
        try {
            rank.await(rank.syncAck(context, destWorld, seq), -1,
                    "ssend to rank " + dest + " tag " + tag + " on communicator " + name + " (waiting for the match)");
        } finally {
            rank.forgetSyncAck(context, destWorld, seq);
        }
    }

    @Override
    public Request isend(Object value, int dest, int tag) {
        return isend(value, dest, tag, false);
    }

    /**
     * Like {@link #isend}, for a fresh primitive array the caller never touches again and sends to this
     * one rank only (a collective's temporary buffer): a rank of the same host receives it without a copy.
     */
    public Request isendHandedOver(Object value, int dest, int tag) {
        return isend(value, dest, tag, true);
    }

    private Request isend(Object value, int dest, int tag, boolean handedOver) {
        if (dest == PROC_NULL) {
            return new P2PRequest.Done(null);
        }
        checkSendTag(tag);
        Outgoing o = rank.lane(worldRankOf(dest)).send(context, tag, Envelope.Kind.DATA, payloadOf(value, handedOver),
                OutboundLane.Mode.NON_BLOCKING);
        return new P2PRequest.Send(this, o, null, dest);
    }

    @Override
    public Request issend(Object value, int dest, int tag) {
        if (dest == PROC_NULL) {
            return new P2PRequest.Done(null);
        }
        checkSendTag(tag);
        int destWorld = worldRankOf(dest);
        Outgoing o = rank.lane(destWorld).send(context, tag, Envelope.Kind.SYNC_DATA, payloadOf(value),
                OutboundLane.Mode.NON_BLOCKING);
        return new P2PRequest.Send(this, o, rank.syncAck(context, destWorld, o.envelope.seq()), dest);
    }

    // ------------------------------------------------------------------ receives

    @Override
    public Message recv(int source, int tag) {
        return recv(source, tag, -1);
    }

    @Override
    public Message recv(int source, int tag, Duration timeout) {
        return recv(source, tag, timeout.toNanos());
    }

    private Message recv(int source, int tag, long timeoutNanos) {
        if (source == PROC_NULL) {
            return new Message(PROC_NULL, ANY_TAG, null);
        }
        rank.checkUsable();
        PostedReceive r = post(source, tag);
        return complete(r, source, timeoutNanos, true);
    }

    @Override
    public Request irecv(int source, int tag) {
        if (source == PROC_NULL) {
            return new P2PRequest.Done(new Message(PROC_NULL, ANY_TAG, null));
        }
        rank.checkUsable();
        return new P2PRequest.Receive(this, post(source, tag), source);
    }

    @Override
    public Message sendrecv(Object value, int dest, int sendTag, int source, int recvTag) {
        // the receive is posted first, so each side's message matches a posted receive and is
        // admitted even when buffers are full: no deadlock on a ring
        Request in = irecv(source, recvTag);
        send(value, dest, sendTag);
        return in.await();
    }

    private PostedReceive post(int source, int tag) {
        int sourceWorld = source == ANY_SOURCE ? ANY_SOURCE : worldRankOf(source);
        List<Envelope> matchedSync = new ArrayList<>(0);
        PostedReceive r = rank.mailbox().post(context, sourceWorld, tag, matchedSync);
        acknowledge(matchedSync);
        return r;
    }

    /** Waits for a posted receive and turns its envelope into a Message of this communicator. */
    Message complete(PostedReceive r, int source, long timeoutNanos, boolean withdrawOnTimeout) {
        Envelope e = rank.mailbox().await(r, timeoutNanos, withdrawOnTimeout, () -> "no message from "
                + (source == ANY_SOURCE ? "any rank" : "rank " + source) + " with "
                + (r.tag == ANY_TAG ? "any tag" : "tag " + r.tag) + " arrived on communicator " + name
                + " within " + Durations.text(timeoutNanos) + " (receiver: rank " + myRank + ", domain "
                + Domain.shortId(rank.domainId()) + ")");
        return new Message(localOf[e.from()], e.tag(), valueOf(e));
    }

    private void acknowledge(List<Envelope> matchedSync) {
        for (Envelope m : matchedSync) {
            rank.acknowledge(m);
        }
    }

    private static void checkSendTag(int tag) {
        if (tag == ANY_TAG) {
            throw new IllegalArgumentException("ANY_TAG (-1) is for receives; a send needs a concrete tag");
        }
    }

    /**
     * The value of a received message: an object value is decoded here with this rank's allow-list
     * ({@link RankInstance#objectTypes()}), after the receive matched (so after the proof was checked).
     */
    private Object valueOf(Envelope e) {
        try {
            return e.payload().value(rank.objectTypes());
        } catch (IllegalArgumentException refused) {
            throw new IllegalArgumentException("message from rank " + localOf[e.from()] + " with tag " + e.tag()
                    + " on communicator " + name + ": " + refused.getMessage(), refused);
        }
    }

    /**
     * The value as a payload; an object value is encoded now, and every class in it must be on this
     * rank's allow-list (checked here, before anything is sent: its receivers apply the same list).
     */
    private Payload payloadOf(Object value) {
        return payloadOf(value, false);
    }

    /** The payload of a value to send; {@code handedOver}: see {@link Payload#handedOver}. */
    private Payload payloadOf(Object value, boolean handedOver) {
        // an object value is never handed over (its graph may be shared): it is encoded and checked
        return handedOver && Payload.typeOf(value) != Payload.Type.OBJECT ? Payload.handedOver(value)
                : Payload.ofObject(value, rank.objectTypes());
    }

    // ------------------------------------------------------------------ bstore

    /**
     * Broadcast by bstore: the root sends the value to its children in the binomial tree, and every
     * receiving host forwards it on arrival, without waiting for its rank's program (the paper's
     * bStore). Every rank of the communicator calls it with the same {@code root} and {@code tag}.
     * At the root it returns {@code value} once its own stores to its children were taken; at other
     * ranks it receives the message from the root with {@code tag} and returns its value (a fresh
     * copy). Order: the message takes the root's next sequence number towards every rank, so it is
     * received in order with the root's other messages on this communicator.
     */
    public Object bstoreBroadcast(Object value, int root, int tag) {
        int rootWorld = worldRankOf(root);
        if (myRank != root) {
            return recv(root, tag).value();
        }
        rank.checkUsable();
        int n = members.length;
        if (n == 1) {
            return value;
        }
        long[] seqs = new long[n];
        for (int i = 0; i < n; i++) {
            if (i != root) {
                seqs[i] = rank.lane(members[i]).reserveSeq(context);
            }
        }
        Payload bytes = Payload.of(BroadcastTree.encode(payloadOf(value), root, members, seqs));
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (int child : BroadcastTree.children(root, root, n)) {
            Envelope e = rank.envelope(context, members[child], tag, seqs[child], Envelope.Kind.BSTORE, bytes);
            sent.add(rank.lane(members[child]).sendReserved(e).delivered);
        }
        for (CompletableFuture<Void> f : sent) {
            rank.await(f, -1, "bstore broadcast from rank " + root + " on communicator " + name);
        }
        assert rootWorld == rank.rank();
        return value;
    }

    // ------------------------------------------------------------------ provided by the subclass in org.mpfl.runtime.topology

    private UnsupportedOperationException collectivesElsewhere(String op) {
        return new UnsupportedOperationException(op + " on communicator " + name
                + ": collective operations are provided by org.mpfl.runtime.collective, not by the point-to-point core");
    }

    @Override
    public void barrier() {
        throw collectivesElsewhere("barrier");
    }

    @Override
    public Object bcast(Object value, int root, String algorithm) {
        throw collectivesElsewhere("bcast");
    }

    @Override
    public Object scatter(Object array, int root, String algorithm) {
        throw collectivesElsewhere("scatter");
    }

    @Override
    public Object gather(Object value, int root, String algorithm) {
        throw collectivesElsewhere("gather");
    }

    @Override
    public Object allgather(Object value, String algorithm) {
        throw collectivesElsewhere("allgather");
    }

    @Override
    public Object reduce(Object value, ReduceOp op, int root, String algorithm) {
        throw collectivesElsewhere("reduce");
    }

    @Override
    public Object allreduce(Object value, ReduceOp op, String algorithm) {
        throw collectivesElsewhere("allreduce");
    }

    @Override
    public Object alltoall(Object array, String algorithm) {
        throw collectivesElsewhere("alltoall");
    }

    @Override
    public Object scan(Object value, ReduceOp op, String algorithm) {
        throw collectivesElsewhere("scan");
    }

    @Override
    public Communicator split(String name, int color, int key) {
        throw collectivesElsewhere("split");
    }

    @Override
    public Communicator dup(String name) {
        throw collectivesElsewhere("dup");
    }

    @Override
    public CartesianCommunicator cartesian(String name, int[] dims, boolean[] periodic) {
        throw collectivesElsewhere("cartesian");
    }

    @Override
    public String toString() {
        return "communicator " + name + " (rank " + myRank + " of " + members.length + ", context " + context + ")";
    }
}
