package org.mpfl.runtime.p2p;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.ListIterator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.api.DeliveryException;
import org.mpfl.runtime.api.DomainAbortedException;
import org.mpfl.runtime.api.MpiwsException;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.runtime.transport.ReceiverBusyException;
import org.mpfl.runtime.transport.Transport;
import org.mpfl.runtime.transport.TransportException;

/**
 * The ordered path from one rank instance to one destination world rank. Sequence numbers are
 * assigned here, in the order messages enter the lane, and messages leave in that order: at most
 * one store (or one pipelined batch of stores, {@link Transport#storeAll}) to the destination is in
 * progress at a time; the receiver orders by sequence number and drops duplicates.
 *
 * <p>When the lane is idle a blocking send stores on the caller's thread (no thread hand-over, no
 * copy for remote transports), and so does a small isend over a transport that answers
 * asynchronously (written without a copy, its answer read later). Otherwise — or when that first
 * attempt answers BUSY or fails — the message joins the queue, served by one background sender per lane while it has work, which
 * retries with backoff: BUSY answers indefinitely (flow control; only an abort ends it), transport
 * failures until the delivery deadline, after which the rank fails with a
 * {@link DeliveryException}.
 */
final class OutboundLane {
    private static final long MAX_SLEEP_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /**
     * BUSY answers are retried with a backoff doubling from 50 µs up to {@link #MAX_BUSY_BACKOFF_NANOS};
     * during a rank's first {@link #START_PHASE_NANOS} only up to {@link #START_BUSY_BACKOFF_NANOS}: a
     * BUSY then almost always means the peer's {@code run} has not arrived yet (the engine starts the
     * ranks in parallel, within milliseconds of each other), and a 6-12 ms sleep taken just before it
     * did made the first barrier of every run take ~15 ms. Later, a BUSY is a full receive buffer, and
     * a long backoff keeps a large eager message from being resent every millisecond.
     */
    private static final long MAX_BUSY_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long START_BUSY_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long START_PHASE_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** At most this many messages, and about this many payload bytes, go in one {@link Transport#storeAll} batch. */
    private static final int MAX_BATCH = 64;
    private static final long MAX_BATCH_BYTES = 1L << 20;

    private final RankInstance owner;
    private final int dest;
    private final Endpoint endpoint;
    private final LinkedList<Outgoing> queue = new LinkedList<>();
    /** Written by {@link Transport#storeAsync}, answer not yet in (each holds its own copy). */
    private final ArrayList<Outgoing> inFlight = new ArrayList<>();
    /** Orders records the way they entered the lane (a resent one goes back to its place). */
    private long entered;
    private final HashMap<Integer, long[]> nextSeq = new HashMap<>();
    /** True while a store runs on a caller's thread or the background sender has work. */
    private boolean active;
    private long queuedBytes;
    private Transport transport;

    OutboundLane(RankInstance owner, int dest, Endpoint endpoint) {
        this.owner = owner;
        this.dest = dest;
        this.endpoint = endpoint;
    }

    /** How a message enters the lane. */
    enum Mode {
        /** Standard/synchronous blocking send: inline when idle; small ones copied when queued, large ones waited for. */
        BLOCKING,
        /**
         * isend/issend: never copied, never waited for here; written on the caller's thread when the
         * lane is idle and the message small over the binary channel, else queued.
         */
        NON_BLOCKING
    }

    /** Reserves the next sequence number of a context without sending (bstore root: a forwarder uses it). */
    synchronized long reserveSeq(int context) {
        return nextSeq.computeIfAbsent(context, c -> new long[1])[0]++;
    }

    /** Sends a new message; returns its outgoing record (with the assigned sequence number). */
    Outgoing send(int context, int tag, Envelope.Kind kind, Payload payload, Mode mode) {
        Outgoing o;
        boolean inline;
        synchronized (this) {
            owner.checkUsable();
            if (mode == Mode.BLOCKING && Mailbox.bufferedSize(payload) <= owner.settings().eagerLimitBytes()) {
                // before taking a sequence number: another thread must not slip in ahead of it
                waitForQueueRoom(Mailbox.bufferedSize(payload));
            }
            long seq = nextSeq.computeIfAbsent(context, c -> new long[1])[0]++;
            o = new Outgoing(owner.envelope(context, dest, tag, seq, kind, payload));
            o.order = entered++;
            inline = !active && queue.isEmpty()
                    && (mode == Mode.BLOCKING ? !queuesForBatching(payload) : writesWithoutWaiting(payload));
            if (inline) {
                active = true;
            } else {
                enqueue(o, mode);
            }
        }
        owner.counters().count(dest, Mailbox.bufferedSize(payload));
        owner.counters().dataSent(dest);
        if (inline) {
            storeInline(o, mode);
        }
        if (mode == Mode.BLOCKING && !o.delivered.isDone() && o.queuedBytes == 0) {
            // a large message was queued without a copy: the caller may reuse its array only after this
            owner.awaitDelivered(o, "send to rank " + dest);
        }
        return o;
    }

    /** Queues an already built envelope (acks, bstore forwarding): never blocks, never inline. */
    void submit(Envelope envelope) {
        Outgoing o = new Outgoing(envelope);
        synchronized (this) {
            o.order = entered++;
            queue.addLast(o);
            startSenderIfIdle();
        }
        if (envelope.kind() == Envelope.Kind.BSTORE) {
            owner.counters().count(dest, envelope.payload().encodedLength());
        }
    }

    /** Sends a bstore from the root with a sequence number reserved earlier. */
    Outgoing sendReserved(Envelope envelope) {
        Outgoing o = new Outgoing(envelope);
        synchronized (this) {
            owner.checkUsable();
            o.order = entered++;
            queue.addLast(o);
            startSenderIfIdle();
        }
        owner.counters().count(dest, envelope.payload().encodedLength());
        return o;
    }

    /** Waits until everything queued has left (rank end); bounded by abort and the delivery deadline. */
    void awaitIdle() {
        synchronized (this) {
            while (active || !queue.isEmpty() || !inFlight.isEmpty()) {
                owner.checkUsable();
                try {
                    wait(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new MpiwsException("interrupted while flushing messages to rank " + dest, e);
                }
            }
        }
    }

    synchronized void wake() {
        notifyAll();
    }

    // ------------------------------------------------------------------ internals

    /** Caller holds the lock. */
    private void enqueue(Outgoing o, Mode mode) {
        long bytes = Mailbox.bufferedSize(o.envelope.payload());
        if (mode == Mode.BLOCKING && bytes <= owner.settings().eagerLimitBytes()) {
            copyForQueue(o, bytes);
        }
        queuedBytes += o.queuedBytes;
        queue.addLast(o);
        startSenderIfIdle();
    }

    private void copyForQueue(Outgoing o, long bytes) {
        Envelope e = o.envelope;
        o.envelope = new Envelope(e.domainId(), e.context(), e.from(), e.to(), e.tag(), e.seq(), e.kind(), e.proof(),
                e.payload().copy());
        o.queuedBytes = Math.max(bytes, 1);
    }

    /**
     * Whether a small blocking send goes through the queue (copied; the caller returns at once)
     * although the lane is idle: over a transport that batches stores (SOAP), so that messages
     * sent back to back while one is in flight leave together in one request instead of one HTTP
     * exchange each. Objects stay inline (an unencodable value fails the send itself).
     */
    private boolean queuesForBatching(Payload payload) {
        Transport t = transport;
        return t != null && t.batchesStores() && payload.type() != Payload.Type.OBJECT
                && Mailbox.bufferedSize(payload) <= owner.settings().eagerLimitBytes();
    }

    /** Caller holds the lock. */
    private void waitForQueueRoom(long bytes) {
        while (queuedBytes > 0 && queuedBytes + bytes > owner.settings().outboundLimitBytes()) {
            owner.checkUsable();
            try {
                wait(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MpiwsException("interrupted while waiting for room to send to rank " + dest, e);
            }
        }
    }

    /** Caller holds the lock. */
    private void startSenderIfIdle() {
        if (!active) {
            active = true;
            owner.registry().outboundThreads().execute(this::drain);
        }
    }

    private void storeInline(Outgoing o, Mode mode) {
        if (storeInlineAsync(o, mode)) {
            return;
        }
        try {
            transport().store(endpoint, o.envelope);
            o.delivered.complete(null);
            synchronized (this) {
                if (queue.isEmpty()) {
                    active = false;
                    notifyAll();
                } else {
                    owner.registry().outboundThreads().execute(this::drain);
                }
            }
        } catch (TransportException ex) {
            if (ex.isFinal()) {
                MpiwsException failure = rejection(o.envelope, ex);
                failAll(o, failure);
                throw failure;
            }
            // busy or transient: the background sender takes over with retries, first in line
            synchronized (this) {
                long bytes = Mailbox.bufferedSize(o.envelope.payload());
                if (bytes <= owner.settings().eagerLimitBytes()) {
                    copyForQueue(o, bytes);
                    queuedBytes += o.queuedBytes;
                }
                insertInOrder(o);
                owner.registry().outboundThreads().execute(this::drain);
            }
        } catch (MpiwsException ex) {
            failAll(o, ex);
            throw ex;
        } catch (RuntimeException ex) {
            // a bug or an unencodable value: fail loudly rather than leave the lane stuck
            DeliveryException failure = new DeliveryException(describe(o.envelope) + " failed: " + ex, ex);
            failAll(o, failure);
            throw failure;
        }
    }

    /**
     * A small standard send over a transport that answers asynchronously (the binary channel): the
     * message is copied (a resend must not see the caller's later changes), written on the caller's
     * thread, and the caller returns without waiting for the answer, so back-to-back sends are
     * pipelined. The answer arrives in {@link #answered}. Returns false if not applicable.
     */
    private boolean storeInlineAsync(Outgoing o, Mode mode) {
        long bytes = Mailbox.bufferedSize(o.envelope.payload());
        if (!writesWithoutWaiting(o.envelope.payload())) {
            return false;
        }
        Transport t = transport;
        synchronized (this) {
            if (mode == Mode.BLOCKING) {
                copyForQueue(o, bytes); // the caller returns now and may change its array before the answer
            }
            queuedBytes += o.queuedBytes;
            inFlight.add(o);
        }
        boolean taken;
        try {
            taken = t.storeAsync(endpoint, o.envelope, failure -> answered(o, failure));
        } catch (RuntimeException ex) {
            taken = false;
        }
        synchronized (this) {
            if (!taken && inFlight.remove(o)) {
                // not taken after all: it goes through the background sender (already copied)
                insertInOrder(o);
            }
            if (queue.isEmpty()) {
                active = false;
                notifyAll();
            } else {
                owner.registry().outboundThreads().execute(this::drain);
            }
        }
        return true;
    }

    /**
     * Whether a small message can be written on the sender's own thread without waiting for its
     * answer: over a transport that answers asynchronously (the binary channel), not an object
     * value (encoding one can fail; that belongs to the send itself). A blocking send then copies
     * the value first; an isend does not need to (its array is the caller's until the request
     * completes), and is written at once instead of handing it to the lane's background sender, a
     * thread hand-over that measured ~20 µs per message on a 2-vCPU guest (a barrier's signals are isends).
     */
    private boolean writesWithoutWaiting(Payload payload) {
        Transport t = transport;
        return t != null && t.answersAsynchronously() && payload.type() != Payload.Type.OBJECT
                && Mailbox.bufferedSize(payload) <= owner.settings().eagerLimitBytes();
    }

    /** The answer to a {@link #storeInlineAsync} store (on the transport's reader thread). */
    private void answered(Outgoing o, TransportException failure) {
        if (failure == null) {
            synchronized (this) {
                if (!inFlight.remove(o)) {
                    return; // the lane failed meanwhile
                }
                queuedBytes -= o.queuedBytes;
                notifyAll();
            }
            o.delivered.complete(null);
            return;
        }
        if (failure.isFinal()) {
            synchronized (this) {
                if (!inFlight.remove(o)) {
                    return;
                }
            }
            failAll(o, new DeliveryException(describe(o.envelope) + " was rejected: " + failure.getMessage(), failure));
            return;
        }
        // busy or transient: the background sender resends it, in its place, with backoff
        synchronized (this) {
            if (!inFlight.remove(o)) {
                return;
            }
            insertInOrder(o);
            startSenderIfIdle();
        }
    }

    /** Caller holds the lock: puts a record back into the queue before every later one. */
    private void insertInOrder(Outgoing o) {
        ListIterator<Outgoing> it = queue.listIterator();
        while (it.hasNext()) {
            if (it.next().order > o.order) {
                it.previous();
                break;
            }
        }
        it.add(o);
    }

    /**
     * The background sender: delivers the queue until it is empty. When several messages wait, they
     * go as one batch ({@link Transport#storeAll}: pipelined on the binary channel); whatever a batch
     * did not deliver stays at the head of the queue, in order, and the first of it is retried alone
     * with backoff before batching resumes.
     */
    private void drain() {
        ArrayList<Outgoing> batch = new ArrayList<>();
        ArrayList<Envelope> envelopes = new ArrayList<>();
        while (true) {
            Outgoing o;
            batch.clear();
            synchronized (this) {
                o = queue.peekFirst();
                if (o == null) {
                    active = false;
                    notifyAll();
                    return;
                }
                if (queue.size() > 1) {
                    long bytes = 0;
                    for (Outgoing q : queue) {
                        if (batch.size() == MAX_BATCH || (bytes >= MAX_BATCH_BYTES && !batch.isEmpty())) {
                            break;
                        }
                        batch.add(q);
                        bytes += q.envelope.payload().encodedLength();
                    }
                }
            }
            try {
                if (batch.size() > 1) {
                    try {
                        if (deliverBatch(batch, envelopes)) {
                            continue;
                        }
                    } catch (TransportException noTransportYet) {
                        // selecting the transport failed: the single delivery below retries it
                    }
                    // the head was not delivered: it goes alone, with retries and backoff
                }
                deliverWithRetry(o);
            } catch (MpiwsException ex) {
                failAll(null, ex);
                return;
            } catch (RuntimeException ex) {
                failAll(null, new DeliveryException(describe(o.envelope) + " failed: " + ex, ex));
                return;
            }
            synchronized (this) {
                removeExactly(o);
                queuedBytes -= o.queuedBytes;
                notifyAll();
            }
            o.delivered.complete(null);
        }
    }

    /**
     * Stores a batch taken from the head of the queue; removes and completes what was delivered.
     * Returns whether the head was delivered. A final rejection fails the lane (as a single store).
     */
    private boolean deliverBatch(List<Outgoing> batch, ArrayList<Envelope> envelopes) throws TransportException {
        owner.domain().checkNotAborted();
        envelopes.clear();
        for (Outgoing q : batch) {
            envelopes.add(q.envelope);
        }
        TransportException[] results = transport().storeAll(endpoint, envelopes);
        for (int i = 0; i < results.length; i++) {
            if (results[i] != null && results[i].isFinal()) {
                throw rejection(batch.get(i).envelope, results[i]);
            }
        }
        int delivered = 0;
        synchronized (this) {
            for (int i = 0; i < results.length; i++) {
                if (results[i] == null) {
                    delivered++;
                    Outgoing q = batch.get(i);
                    removeExactly(q);
                    queuedBytes -= q.queuedBytes;
                }
            }
            notifyAll();
        }
        for (int i = 0; i < results.length; i++) {
            if (results[i] == null) {
                batch.get(i).delivered.complete(null);
            }
        }
        return results[0] == null && delivered > 0;
    }

    /** Caller holds the lock. Usually the head (a batch is taken from the head). */
    private void removeExactly(Outgoing o) {
        if (queue.peekFirst() == o) {
            queue.pollFirst();
            return;
        }
        for (Iterator<Outgoing> it = queue.iterator(); it.hasNext(); ) {
            if (it.next() == o) {
                it.remove();
                return;
            }
        }
    }

    private void deliverWithRetry(Outgoing o) {
        long deadline = System.nanoTime() + owner.settings().deliveryDeadline().toNanos();
        long busyBackoff = TimeUnit.MICROSECONDS.toNanos(50);
        long failBackoff = TimeUnit.MILLISECONDS.toNanos(5);
        while (true) {
            owner.domain().checkNotAborted();
            try {
                transport().store(endpoint, o.envelope);
                return;
            } catch (ReceiverBusyException busy) {
                sleep(busyBackoff);
                long cap = owner.ageNanos() < START_PHASE_NANOS ? START_BUSY_BACKOFF_NANOS : MAX_BUSY_BACKOFF_NANOS;
                busyBackoff = Math.min(busyBackoff * 2, cap);
            } catch (TransportException ex) {
                if (ex.isFinal()) {
                    throw rejection(o.envelope, ex);
                }
                if (System.nanoTime() > deadline) {
                    throw new DeliveryException(describe(o.envelope) + " could not be delivered within "
                            + owner.settings().deliveryDeadline() + " over " + transportName() + ": "
                            + ex.getMessage(), ex);
                }
                sleep(failBackoff);
                failBackoff = Math.min(failBackoff * 2, TimeUnit.SECONDS.toNanos(1));
            }
        }
    }

    /** Fails {@code first} and everything queued; the rank fails too (the messages are lost). */
    private void failAll(Outgoing first, MpiwsException ex) {
        if (!(ex instanceof DomainAbortedException)) {
            owner.fail(ex);
        }
        if (first != null) {
            first.delivered.completeExceptionally(ex);
        }
        synchronized (this) {
            for (Outgoing o : queue) {
                o.delivered.completeExceptionally(ex);
            }
            queue.clear();
            for (Outgoing o : inFlight) {
                o.delivered.completeExceptionally(ex);
            }
            inFlight.clear();
            queuedBytes = 0;
            active = false;
            notifyAll();
        }
    }

    /** The failure for a final rejection, or the abort that explains it ({@link Domain#explain}). */
    private MpiwsException rejection(Envelope e, TransportException ex) {
        return owner.domain().explain(new DeliveryException(describe(e) + " was rejected: " + ex.getMessage(), ex));
    }

    private void sleep(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = end - System.nanoTime()) {
            owner.domain().checkNotAborted();
            LockSupport.parkNanos(Math.min(left, MAX_SLEEP_SLICE_NANOS));
        }
    }

    /** The transport that carries this lane's messages (selected now if not yet). */
    Transport selectedTransport() throws TransportException {
        return transport();
    }

    private Transport transport() throws TransportException {
        Transport t = transport;
        if (t == null) {
            t = owner.domain().transports().select(endpoint, owner.transportMode());
            transport = t;
        }
        return t;
    }

    private String transportName() {
        Transport t = transport;
        return t == null ? "no transport" : t.name();
    }

    private String describe(Envelope e) {
        return "message " + e.kind() + " from rank " + e.from() + " to rank " + e.to() + " (tag " + e.tag()
                + ", seq " + e.seq() + ", domain " + Domain.shortId(e.domainId()) + ")";
    }
}
