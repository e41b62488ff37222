package org.mpfl.runtime.p2p;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.api.DeliveryException;
import org.mpfl.runtime.api.MpiwsException;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Inbox;
import org.mpfl.runtime.transport.Inbox.Outcome;
import org.mpfl.runtime.transport.MemoryBudget;
import org.mpfl.runtime.transport.ObjectTypes;
import org.mpfl.runtime.transport.Payload;

/**
 * One rank of one domain living in this service host (the paper's WS-Resource): its mailbox, its
 * ordered outbound lanes to every other world rank, its counters, and its failure state.
 *
 * <p>Created by {@link RankRegistry#open}; communicators over it are {@link P2PCommunicator}s. When
 * the rank's program returns, the host calls {@link #finish()} (flushes what is still queued, then
 * drops the rank's state); after a failure or abort it calls {@link #close()}.
 */
public final class RankInstance {
    private record SyncKey(int context, int peer, long seq) {
    }

    private final RankRegistry registry;
    private final Domain domain;
    private final int rank;
    private final List<Endpoint> endpoints;
    private final String transportMode;
    private final Mailbox mailbox;
    private final OutboundLane[] lanes;
    private final TrafficCounters counters;
    /** When this rank was opened here ({@link System#nanoTime()}): its peers open within the run's fan-out of it. */
    private final long openedNanos = System.nanoTime();
    private final ConcurrentHashMap<SyncKey, CompletableFuture<Void>> syncAcks = new ConcurrentHashMap<>();
    private volatile MpiwsException failure;
    private volatile boolean ended;
    /** What object values this rank sends and accepts; set by the host from the rank's program. */
    private volatile ObjectTypes objectTypes = ObjectTypes.none();

    /** Nanoseconds since this rank was opened here. */
    long ageNanos() {
        return System.nanoTime() - openedNanos;
    }

    public RankInstance(RankRegistry registry, Domain domain, int rank, List<Endpoint> endpoints,
                        String transportMode) {
        this.registry = registry;
        this.domain = domain;
        this.rank = rank;
        this.endpoints = endpoints;
        this.transportMode = transportMode;
        this.mailbox = new Mailbox(this, domain);
        this.lanes = new OutboundLane[3 * endpoints.size()];
        this.counters = new TrafficCounters(endpoints.size());
    }

    public int rank() {
        return rank;
    }

    /** World size. */
    public int size() {
        return endpoints.size();
    }

    public String domainId() {
        return domain.id();
    }

    public Domain domain() {
        return domain;
    }

    public List<Endpoint> endpoints() {
        return endpoints;
    }

    public TrafficCounters counters() {
        return counters;
    }

    /** Messages buffered here, not yet received (unexpected or out of order). */
    public int bufferedMessages() {
        return mailbox.bufferedMessages();
    }

    /** The allow-list of this rank's {@code object} values (JDK value kinds only until the host sets it). */
    public ObjectTypes objectTypes() {
        return objectTypes;
    }

    /**
     * Sets which classes this rank's {@code object} values may be (sent and received); the host sets
     * its program's ({@link ObjectTypes#forProgram}) before the program starts.
     */
    public void allowObjectTypes(ObjectTypes types) {
        this.objectTypes = java.util.Objects.requireNonNull(types);
    }

    /** The failure that ended this rank's messaging ({@code null} if none). */
    public MpiwsException failure() {
        return failure;
    }

    /**
     * Name of the transport ({@code local}, {@code binary}, {@code soap}) that carries this rank's
     * messages to world rank {@code peer}; selects it now if no message went there yet (e.g. to
     * check the domain's set-up early, or to report it).
     *
     * @throws org.mpfl.runtime.transport.TransportException if no allowed transport reaches the peer
     */
    public String transportTo(int peer) throws org.mpfl.runtime.transport.TransportException {
        return lane(peer).selectedTransport().name();
    }

    /** The world communicator of this rank (context 0). */
    public P2PCommunicator world() {
        int[] all = new int[size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        return new P2PCommunicator(this, 0, all, "world");
    }

    // ------------------------------------------------------------------ receiving side (inbox)

    /** Handles an envelope addressed to this rank whose proof the registry has checked. */
    public Outcome accept(Envelope e, boolean copyOnAdmit) {
        return accept(e, copyOnAdmit, null);
    }

    /** Like {@link #accept(Envelope, boolean)}; a buffered message takes its host-budget bytes from {@code prepaid}. */
    public Outcome accept(Envelope e, boolean copyOnAdmit, MemoryBudget.Reservation prepaid) {
        if (ended) {
            return domain.isAborted() ? Outcome.REJECTED : Outcome.DUPLICATE; // ended: dropped
        }
        List<Envelope> matchedSync = new ArrayList<>(0);
        Outcome outcome;
        switch (e.kind()) {
            case SYNC_ACK -> {
                CompletableFuture<Void> receipt = syncAck(e.context(), e.from(), e.seq());
                if (!receipt.isDone()) {
                    // counted before the sender is woken: a sender past its wait has its receipt counted
                    counters.receiptReceived(e.from());
                    receipt.complete(null);
                }
                return Outcome.STORED;
            }
            case BSTORE -> {
                outcome = acceptBstore(e, matchedSync, prepaid);
            }
            default -> outcome = mailbox.accept(e, copyOnAdmit, matchedSync, prepaid);
        }
        for (Envelope m : matchedSync) {
            acknowledge(m);
        }
        return outcome;
    }

    /** See {@link org.mpfl.runtime.transport.Inbox#probe}. */
    public Outcome probe(Envelope header, long payloadBytes) {
        if (ended) {
            return domain.isAborted() ? Outcome.REJECTED : Outcome.DUPLICATE;
        }
        if (header.kind() == Envelope.Kind.SYNC_ACK) {
            return Outcome.STORED;
        }
        return mailbox.probe(header, payloadBytes);
    }

    /**
     * See {@link Inbox#admit}: the probe, and a host-budget reservation of {@code payloadBytes}
     * unless a posted receive waits for the message (BUSY if the budget has no room).
     */
    public Inbox.Admission admit(Envelope header, long payloadBytes) {
        Outcome outcome = probe(header, payloadBytes);
        if (outcome != Outcome.STORED || header.kind() == Envelope.Kind.SYNC_ACK
                || mailbox.wouldMatchPosted(header)) {
            return new Inbox.Admission(outcome, true, null);
        }
        MemoryBudget.Reservation r = domain.hostBudget().reserve(payloadBytes);
        return r == null ? new Inbox.Admission(Outcome.BUSY, true, null) : new Inbox.Admission(Outcome.STORED, true, r);
    }

    private Outcome acceptBstore(Envelope e, List<Envelope> matchedSync, MemoryBudget.Reservation prepaid) {
        byte[] bytes = (byte[]) e.payload().value();
        BroadcastTree.Header h;
        Payload value;
        try {
            h = BroadcastTree.header(bytes);
            value = BroadcastTree.value(h, bytes);
        } catch (RuntimeException ex) {
            return Outcome.REJECTED;
        }
        Envelope asData = new Envelope(e.domainId(), e.context(), e.from(), e.to(), e.tag(), e.seq(),
                Envelope.Kind.DATA, e.proof(), value);
        // not counted as arrived: its sender (the root or a forwarding rank) does not count it as sent
        Outcome outcome = mailbox.accept(asData, false, matchedSync, prepaid, false);
        if (outcome == Outcome.STORED) {
            int me = h.indexOf(rank);
            for (int child : BroadcastTree.children(me, h.root(), h.members().length)) {
                int childWorld = h.members()[child];
                relayLane(childWorld).submit(envelope(e.context(), e.from(), childWorld, e.tag(), h.seqs()[child],
                        Envelope.Kind.BSTORE, e.payload()));
            }
        }
        return outcome;
    }

    /** Tells the sender of a synchronous message that it was matched. */
    void acknowledge(Envelope syncData) {
        counters.receiptSent(syncData.from());
        controlLane(syncData.from()).submit(envelope(syncData.context(), rank, syncData.from(), syncData.tag(),
                syncData.seq(), Envelope.Kind.SYNC_ACK, Payload.of(null)));
    }

    CompletableFuture<Void> syncAck(int context, int peer, long seq) {
        return syncAcks.computeIfAbsent(new SyncKey(context, peer, seq), k -> new CompletableFuture<>());
    }

    void forgetSyncAck(int context, int peer, long seq) {
        syncAcks.remove(new SyncKey(context, peer, seq));
    }

    // ------------------------------------------------------------------ sending side

    /** The ordered lane of this rank's own messages to {@code destWorld}. */
    OutboundLane lane(int destWorld) {
        return lane(0, destWorld);
    }

    /**
     * The lane of bstore messages this rank forwards to {@code destWorld} on behalf of a root. Apart
     * from {@link #lane}: a forwarded message the receiver cannot buffer yet must not hold up this
     * rank's own messages (one of which the receiver may be waiting for), nor the other way round.
     */
    OutboundLane relayLane(int destWorld) {
        return lane(1, destWorld);
    }

    /**
     * The lane of SYNC_ACKs to {@code destWorld}: never queued behind data the peer cannot buffer
     * yet (the peer may be blocked in the very ssend the ack completes).
     */
    OutboundLane controlLane(int destWorld) {
        return lane(2, destWorld);
    }

    private OutboundLane lane(int purpose, int destWorld) {
        int index = purpose * endpoints.size() + destWorld;
        OutboundLane lane = lanes[index];
        if (lane == null) {
            synchronized (lanes) {
                lane = lanes[index];
                if (lane == null) {
                    lane = new OutboundLane(this, destWorld, endpoints.get(destWorld));
                    lanes[index] = lane;
                }
            }
        }
        return lane;
    }

    Envelope envelope(int context, int to, int tag, long seq, Envelope.Kind kind, Payload payload) {
        return envelope(context, rank, to, tag, seq, kind, payload);
    }

    private Envelope envelope(int context, int from, int to, int tag, long seq, Envelope.Kind kind, Payload payload) {
        byte[] proof = domain.proof(context, from, to, tag, seq, kind);
        return new Envelope(domain.id(), context, from, to, tag, seq, kind, proof, payload);
    }

    Mailbox mailbox() {
        return mailbox;
    }

    RankRegistry registry() {
        return registry;
    }

    MessagingSettings settings() {
        return registry.settings();
    }

    String transportMode() {
        return transportMode;
    }

    // ------------------------------------------------------------------ state

    /** Throws if the domain was aborted or this rank's messaging failed. */
    public void checkUsable() {
        domain.checkNotAborted();
        MpiwsException f = failure;
        if (f != null) {
            throw f;
        }
    }

    /** Records the rank's first messaging failure and wakes its blocked operations. */
    void fail(MpiwsException ex) {
        synchronized (this) {
            if (failure == null) {
                failure = ex;
            }
        }
        wakeAll();
    }

    /** Wakes every blocked operation (abort). */
    public void wakeAll() {
        mailbox.wakeAll();
        for (OutboundLane lane : lanes) {
            if (lane != null) {
                lane.wake();
            }
        }
    }

    /** Waits for a message to have been stored, failing on abort or on the rank's failure. */
    void awaitDelivered(Outgoing o, String what) {
        await(o.delivered, -1, what);
    }

    /** Waits for a future; {@code timeoutNanos < 0}: without limit. Abort and failure end the wait within 50 ms. */
    <T> T await(CompletableFuture<T> future, long timeoutNanos, String what) {
        long deadline = timeoutNanos < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutNanos;
        while (true) {
            try {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new org.mpfl.runtime.api.ReceiveTimeoutException(what + ": not completed within "
                            + Durations.text(timeoutNanos));
                }
                return future.get(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)), TimeUnit.NANOSECONDS);
            } catch (TimeoutException ex) {
                checkUsable();
            } catch (ExecutionException ex) {
                if (ex.getCause() instanceof DeliveryException d) {
                    // a rejection answered on a transport's reader thread, which cannot wait for the abort that may explain it
                    throw domain.explain(d);
                }
                if (ex.getCause() instanceof MpiwsException m) {
                    throw m;
                }
                throw new DeliveryException(what + " failed: " + ex.getCause(), ex.getCause());
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new MpiwsException("interrupted: " + what, ex);
            }
        }
    }

    /**
     * Ends the rank normally: waits until every message it sent has been stored by its receiver
     * (bounded by the delivery deadline and by an abort), then drops its state.
     *
     * @throws MpiwsException if a message could not be delivered or the domain was aborted
     */
    public void finish() {
        try {
            for (OutboundLane lane : lanes) {
                if (lane != null) {
                    lane.awaitIdle();
                }
            }
            checkUsable();
        } finally {
            close();
        }
    }

    /** Ends the rank without flushing (after a failure or an abort) and drops its state. */
    public void close() {
        if (ended) {
            return;
        }
        ended = true;
        mailbox.clear();
        syncAcks.clear();
        registry.ended(this);
    }

    public boolean isEnded() {
        return ended;
    }
}
