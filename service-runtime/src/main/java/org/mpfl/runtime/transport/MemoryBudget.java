package org.mpfl.runtime.transport;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory budget of one service host: payload bytes held for messages that no receive has taken
 * yet — being read by a transport, buffered as unexpected, or waiting out of order — of all domains
 * together. The per-domain bound ({@code MessagingSettings.unexpectedLimitBytes}) keeps one run
 * from starving the others; this bound keeps all of them (and everyone who can reach the host)
 * from exhausting the heap. A message that does not fit is answered BUSY (the spec's flow
 * control), never allocated.
 *
 * <p>Transports reserve the announced length before they allocate a payload ({@link #reserve});
 * the inbox adopts that reservation when it buffers the message ({@link Reservation#take}), and
 * the transport releases what is left once the store is answered. A message that matches a posted
 * receive is not charged: the receive asked for it, and a full buffer must never block the very
 * message a rank waits for.
 */
public final class MemoryBudget {
    /** System property: the budget in bytes (default: a quarter of the max heap). */
    public static final String LIMIT_PROPERTY = RuntimeSettings.HOST_MEMORY_BUDGET_BYTES.name();
    /** System property: the largest payload one message may announce (default: the budget, at most 2 GB). */
    public static final String MESSAGE_LIMIT_PROPERTY = RuntimeSettings.HOST_MAX_MESSAGE_BYTES.name();

    private final long limitBytes;
    private final long maxMessageBytes;
    private final AtomicLong used = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();

    /**
     * @param limitBytes      most bytes held at once
     * @param maxMessageBytes largest payload of one message; a larger announced length is refused
     *                        before anything is read
     */
    public MemoryBudget(long limitBytes, long maxMessageBytes) {
        if (limitBytes <= 0 || maxMessageBytes <= 0) {
            throw new IllegalArgumentException("memory budget and message limit must be positive");
        }
        this.limitBytes = limitBytes;
        this.maxMessageBytes = maxMessageBytes;
    }

    /** The budget from {@code mpfl.host.memoryBudgetBytes} and {@code mpfl.host.maxMessageBytes}, defaults from the heap. */
    public static MemoryBudget fromSystemProperties() {
        long limit = RuntimeSettings.HOST_MEMORY_BUDGET_BYTES.get(Runtime.getRuntime().maxMemory() / 4);
        // Java arrays end at about 2^31 elements; a payload is one array
        long message = RuntimeSettings.HOST_MAX_MESSAGE_BYTES.get(Math.min(limit, Integer.MAX_VALUE - 64L));
        return new MemoryBudget(limit, message);
    }

    public long limitBytes() {
        return limitBytes;
    }

    public long maxMessageBytes() {
        return maxMessageBytes;
    }

    /** Bytes held now. */
    public long usedBytes() {
        return used.get();
    }

    /** The most bytes ever held at once (never above {@link #limitBytes()}). */
    public long peakBytes() {
        return peak.get();
    }

    /** Accounts {@code bytes} if they fit; zero bytes always fit. */
    public boolean tryReserve(long bytes) {
        if (bytes <= 0) {
            return true;
        }
        while (true) {
            long current = used.get();
            long next = current + bytes;
            if (next > limitBytes || next < 0) {
                return false;
            }
            if (used.compareAndSet(current, next)) {
                peak.accumulateAndGet(next, Math::max);
                return true;
            }
        }
    }

    public void release(long bytes) {
        if (bytes > 0) {
            used.addAndGet(-bytes);
        }
    }

    /** A reservation of {@code bytes}, or {@code null} if they do not fit now. */
    public Reservation reserve(long bytes) {
        return tryReserve(bytes) ? new Reservation(Math.max(0, bytes)) : null;
    }

    /**
     * Bytes reserved for one message being read. Whoever buffers the message takes them over
     * ({@link #take}); {@link #release} returns the rest (idempotent, safe in a {@code finally}).
     */
    public final class Reservation {
        private long held;

        private Reservation(long held) {
            this.held = held;
        }

        /**
         * Transfers up to {@code bytes} of this reservation to the caller, who then owns them in the
         * budget (and releases them with {@link MemoryBudget#release}); returns how many it got.
         */
        public synchronized long take(long bytes) {
            long n = Math.min(Math.max(0, bytes), held);
            held -= n;
            return n;
        }

        /** Hands back bytes obtained with {@link #take} that the caller did not use after all. */
        public synchronized void giveBack(long bytes) {
            held += bytes;
        }

        /** The budget this reservation is part of. */
        public MemoryBudget budget() {
            return MemoryBudget.this;
        }

        /** Returns what is still held to the budget. */
        public synchronized void release() {
            MemoryBudget.this.release(held);
            held = 0;
        }
    }
}
