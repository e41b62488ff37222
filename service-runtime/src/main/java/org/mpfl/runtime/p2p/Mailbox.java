package org.mpfl.runtime.p2p;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.mpfl.runtime.api.MpiwsException;
import org.mpfl.runtime.api.ReceiveTimeoutException;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Inbox.Outcome;
import org.mpfl.runtime.transport.MemoryBudget;
import org.mpfl.runtime.transport.Payload;

/**
 * The receiving side of one rank instance: per-sender ordering, duplicate drop, matching against
 * posted receives, and the buffer of unexpected messages under the domain's memory bound.
 *
 * <p>Ordering: each stream (context, sender) has a next expected sequence number. An arrival with
 * that number is delivered (to the first matching posted receive, else appended to the unexpected
 * list), then any buffered successors follow; an arrival ahead of it waits in the stream's
 * out-of-order buffer; one below it, or already buffered, is a duplicate.
 *
 * <p>Memory: an in-order arrival that matches a posted receive is always admitted (it is not
 * buffered), so a full buffer can never block the message a receive is waiting for. Anything that
 * must be buffered is admitted only if the domain's account stays within its limit; otherwise the
 * answer is BUSY and the sender retries later. A message larger than the whole limit therefore
 * waits at the sender until its receive is posted (a rendezvous).
 */
final class Mailbox {
    private record Buffered(Envelope envelope, long bytes) {
    }

    private static final class Stream {
        long next;
        /**
         * The message {@code next} was answered BUSY and has not been admitted since: later ones are
         * answered BUSY too, so a sender with several stores in flight cannot fill the buffer with
         * successors of a message that then never finds room (they could not be delivered before it).
         */
        boolean nextRefused;
        final TreeMap<Long, Buffered> early = new TreeMap<>();
    }

    /** How long a receive spins before parking: {@code mpfl.receiveSpinMicros}, default 0 (2-core machines lose by spinning). */
    private static final long SPIN_NANOS = RuntimeSettings.RECEIVE_SPIN_MICROS.get() * 1000;

    private final RankInstance owner;
    private final Domain domain;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final HashMap<Long, Stream> streams = new HashMap<>();
    private final ArrayList<Buffered> unexpected = new ArrayList<>();
    private final ArrayList<PostedReceive> posted = new ArrayList<>();

    Mailbox(RankInstance owner, Domain domain) {
        this.owner = owner;
        this.domain = domain;
    }

    private void countArrival(Envelope e, boolean counted) {
        if (counted) {
            owner.counters().dataArrived(e.from());
        }
    }

    /**
     * Handles one arriving data message. Messages to acknowledge (synchronous sends matched here)
     * are added to {@code matchedSync}; the caller sends the acks after this returns, never under
     * the lock.
     */
    Outcome accept(Envelope e, boolean copyOnAdmit, List<Envelope> matchedSync) {
        return accept(e, copyOnAdmit, matchedSync, null);
    }

    /**
     * Like {@link #accept(Envelope, boolean, List)}; a message that gets buffered takes its host-budget
     * bytes from {@code prepaid} (what the transport reserved before reading it; may be {@code null}).
     */
    Outcome accept(Envelope e, boolean copyOnAdmit, List<Envelope> matchedSync, MemoryBudget.Reservation prepaid) {
        return accept(e, copyOnAdmit, matchedSync, prepaid, true);
    }

    /**
     * Like {@link #accept(Envelope, boolean, List, MemoryBudget.Reservation)}; {@code countArrival}: whether a stored
     * message counts as arrived from its sender ({@link TrafficCounters#dataArrived}), under the lock and before any
     * receive can take it — not for a forwarded broadcast part, which its sender does not count as sent.
     */
    Outcome accept(Envelope e, boolean copyOnAdmit, List<Envelope> matchedSync, MemoryBudget.Reservation prepaid,
                   boolean countArrival) {
        if (copyOnAdmit && e.payload().type() == Payload.Type.OBJECT) {
            // copying an object value (serialise + deserialise) can fail: do it before any accounting
            e = own(e, true);
            copyOnAdmit = false;
        }
        lock.lock();
        try {
            Stream s = streams.computeIfAbsent(streamKey(e.context(), e.from()), k -> new Stream());
            if (e.seq() < s.next || s.early.containsKey(e.seq())) {
                return Outcome.DUPLICATE;
            }
            long bytes = bufferedSize(e.payload());
            if (e.seq() == s.next) {
                PostedReceive r = takeMatchingPosted(e);
                if (r == null) {
                    if (!domain.tryReserve(bytes, prepaid)) {
                        s.nextRefused = true;
                        return Outcome.BUSY;
                    }
                    unexpected.add(new Buffered(own(e, copyOnAdmit), bytes));
                    countArrival(e, countArrival);
                } else {
                    Envelope owned = own(e, copyOnAdmit);
                    countArrival(e, countArrival);
                    deliver(r, owned, matchedSync);
                }
                s.next++;
                s.nextRefused = false;
                for (Buffered b = s.early.remove(s.next); b != null; b = s.early.remove(s.next)) {
                    PostedReceive waiting = takeMatchingPosted(b.envelope());
                    if (waiting == null) {
                        unexpected.add(b);
                    } else {
                        domain.release(b.bytes());
                        deliver(waiting, b.envelope(), matchedSync);
                    }
                    s.next++;
                }
            } else {
                if (s.nextRefused || !domain.tryReserve(bytes, prepaid)) {
                    return Outcome.BUSY;
                }
                s.early.put(e.seq(), new Buffered(own(e, copyOnAdmit), bytes));
                countArrival(e, countArrival);
            }
            changed.signalAll();
            return Outcome.STORED;
        } finally {
            lock.unlock();
        }
    }

    /** Whether {@link #accept} would admit such a message now (non-binding; the header's payload is ignored). */
    Outcome probe(Envelope header, long bytes) {
        lock.lock();
        try {
            Stream s = streams.get(streamKey(header.context(), header.from()));
            long next = s == null ? 0 : s.next;
            if (header.seq() < next || (s != null && s.early.containsKey(header.seq()))) {
                return Outcome.DUPLICATE;
            }
            if (header.seq() == next) {
                for (PostedReceive r : posted) {
                    if (r.matches(header)) {
                        return Outcome.STORED;
                    }
                }
            } else if (s != null && s.nextRefused) {
                return Outcome.BUSY;
            }
            return domain.wouldFit(bytes) ? Outcome.STORED : Outcome.BUSY;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether a message with this header would go straight to a posted receive now (in order, and a
     * receive matches it), so it need not be charged to any buffer bound.
     */
    boolean wouldMatchPosted(Envelope header) {
        lock.lock();
        try {
            Stream s = streams.get(streamKey(header.context(), header.from()));
            long next = s == null ? 0 : s.next;
            if (header.seq() != next) {
                return false;
            }
            for (PostedReceive r : posted) {
                if (r.matches(header)) {
                    return true;
                }
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Posts a receive: matched at once against the unexpected list (earliest first), or queued.
     */
    PostedReceive post(int context, int sourceWorld, int tag, List<Envelope> matchedSync) {
        PostedReceive r = new PostedReceive(context, sourceWorld, tag);
        lock.lock();
        try {
            for (Iterator<Buffered> it = unexpected.iterator(); it.hasNext(); ) {
                Buffered b = it.next();
                if (r.matches(b.envelope())) {
                    it.remove();
                    domain.release(b.bytes());
                    deliver(r, b.envelope(), matchedSync);
                    return r;
                }
            }
            posted.add(r);
            return r;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until {@code r} matched. Fails with {@link ReceiveTimeoutException} after
     * {@code timeoutNanos} (negative: no limit), withdrawing the receive if {@code withdrawOnTimeout};
     * fails at once when the domain is aborted or the rank has failed.
     */
    Envelope await(PostedReceive r, long timeoutNanos, boolean withdrawOnTimeout, Supplier<String> describe) {
        if (!r.isDone() && SPIN_NANOS > 0) {
            // a short spin catches a reply that is already on its way without a park/unpark
            long spinEnd = System.nanoTime() + SPIN_NANOS;
            while (!r.isDone() && System.nanoTime() < spinEnd) {
                Thread.onSpinWait();
            }
        }
        if (r.isDone()) {
            return r.matched();
        }
        long deadline = timeoutNanos < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutNanos;
        lock.lock();
        try {
            while (!r.isDone()) {
                try {
                    owner.checkUsable();
                } catch (MpiwsException ex) {
                    posted.remove(r);
                    throw ex;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    if (withdrawOnTimeout) {
                        posted.remove(r);
                    }
                    throw new ReceiveTimeoutException(describe.get());
                }
                try {
                    // slices: a missed wake-up can delay an abort by at most this much
                    changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)));
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    posted.remove(r);
                    throw new MpiwsException("interrupted while waiting: " + describe.get(), ex);
                }
            }
            return r.matched();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes every waiting receive (abort, rank failure). */
    void wakeAll() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Drops everything buffered and returns its bytes to the domain's account (rank end). */
    void clear() {
        lock.lock();
        try {
            for (Buffered b : unexpected) {
                domain.release(b.bytes());
            }
            unexpected.clear();
            for (Stream s : streams.values()) {
                for (Buffered b : s.early.values()) {
                    domain.release(b.bytes());
                }
            }
            streams.clear();
            posted.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Number of messages buffered (unexpected + out of order), for status and tests. */
    int bufferedMessages() {
        lock.lock();
        try {
            int n = unexpected.size();
            for (Stream s : streams.values()) {
                n += s.early.size();
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    private PostedReceive takeMatchingPosted(Envelope e) {
        for (Iterator<PostedReceive> it = posted.iterator(); it.hasNext(); ) {
            PostedReceive r = it.next();
            if (r.matches(e)) {
                it.remove();
                return r;
            }
        }
        return null;
    }

    private static void deliver(PostedReceive r, Envelope e, List<Envelope> matchedSync) {
        r.complete(e);
        if (e.kind() == Envelope.Kind.SYNC_DATA) {
            matchedSync.add(e);
        }
    }

    private static Envelope own(Envelope e, boolean copy) {
        if (!copy) {
            return e;
        }
        return new Envelope(e.domainId(), e.context(), e.from(), e.to(), e.tag(), e.seq(), e.kind(), e.proof(),
                e.payload().copy());
    }

    private static long streamKey(int context, int from) {
        return ((long) context << 32) | (from & 0xffffffffL);
    }

    /** The bytes a buffered payload is charged: its wire length (strings: two bytes a character). */
    static long bufferedSize(Payload p) {
        return switch (p.type()) {
            case STRING -> 2L * ((String) p.value()).length();
            case NULL -> 0;
            default -> p.encodedLength();
        };
    }
}
