package org.mpfl.protocol.guard;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What an unauthenticated connection may cost a listener (docs/security.md, "Slow and flooding
 * clients"). Every listener — the engine's REST port, a host's SOAP port and binary channel, the
 * relay — asks {@link #admit} when it accepts a connection, before the TLS handshake, and tells the
 * {@link Pass} when the connection has proved a credential ({@link Pass#prove}: the engine's key, a
 * domain token's proof, a host credential, a user's token). Until then the connection is a
 * <em>stranger</em>'s and:
 * <ul>
 * <li>must finish what it is doing — TLS handshake, request head, the proof — within
 *     {@link Limits#proofDeadline} of the moment the listener {@linkplain Pass#arm armed} it (at
 *     accept, and again at each request of a keep-alive connection): otherwise the guard runs the
 *     listener's close action;</li>
 * <li>counts against {@link Limits#perSource} (open stranger connections per source address) and
 *     {@link Limits#strangers} (open stranger connections in all), beyond which new connections are
 *     refused at once.</li>
 * </ul>
 * <p>A source address that proved a credential within {@link Limits#trustFor} (and loopback, and any
 * address {@linkplain #trust trusted} by configuration) is a <em>known</em> source: its new connections
 * do not count against the strangers' limits, so however many strangers are throttled, the engine's
 * own calls and authenticated peers still find room — the reserve is what the listener's capacity holds
 * beyond {@code strangers}. An attacker cannot borrow a known address without completing TCP
 * handshakes from it (which off-path spoofing cannot). A known source's connection has no proof
 * deadline either (the listener's own time-outs apply): an address that proved itself is trusted
 * as a whole for that time, which is what an attacker behind the same NAT address would share.
 *
 * <p>Thread-safe; one per listener. {@link #close} stops its reaper.
 */
public final class ConnectionGuard implements AutoCloseable {
    /**
     * The limits of one listener.
     *
     * @param proofDeadline how long a stranger's connection has for its TLS handshake, request head and proof
     * @param perSource     most open stranger connections from one source address
     * @param strangers     most open stranger connections in all (the listener's capacity beyond this is the reserve)
     * @param trustFor      how long an address that proved a credential counts as known
     */
    public record Limits(Duration proofDeadline, int perSource, int strangers, Duration trustFor) {
        public Limits {
            if (proofDeadline.isNegative() || proofDeadline.isZero() || perSource < 1 || strangers < perSource) {
                throw new IllegalArgumentException("connection limits need a positive deadline and 1 <= perSource <= strangers: "
                        + proofDeadline + ", " + perSource + ", " + strangers);
            }
        }
    }

    private final Limits limits;
    private final Map<InetAddress, Integer> strangersBySource = new ConcurrentHashMap<>();
    private final AtomicInteger strangers = new AtomicInteger();
    /** Address → when it last proved a credential (nanoTime); configured addresses never expire. */
    private final Map<InetAddress, Long> known = new ConcurrentHashMap<>();
    private final Map<Pass, Boolean> armed = new ConcurrentHashMap<>();
    /** Per source: {start of the current one-second window (nanoTime), connections admitted in it}. */
    private final Map<InetAddress, long[]> rates = new ConcurrentHashMap<>();
    private final long[] totalRate = new long[2];
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong expired = new AtomicLong();
    private final ScheduledExecutorService reaper;

    /** @param name names the reaper thread (e.g. "soap", "binary", "engine-http") */
    public ConnectionGuard(String name, Limits limits) {
        this.limits = limits;
        this.reaper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mpfl-guard-" + name);
            t.setDaemon(true);
            return t;
        });
        // a quarter of the deadline: a connection lives at most 1.25 deadlines unproven
        long every = Math.max(50, limits.proofDeadline().toMillis() / 4);
        reaper.scheduleWithFixedDelay(this::reap, every, every, TimeUnit.MILLISECONDS);
    }

    public Limits limits() {
        return limits;
    }

    /** Treats {@code address} as known for good (e.g. the engine's configured address). */
    public void trust(InetAddress address) {
        known.put(address, Long.MAX_VALUE);
    }

    /**
     * Treats {@code address} as known for {@link Limits#trustFor} from now, as if a connection from it
     * had proved a credential (e.g. the peers an authenticated {@code run} names).
     */
    public void remember(InetAddress address) {
        known.merge(address, System.nanoTime(), (old, now) -> old == Long.MAX_VALUE ? old : now);
    }

    /** Whether connections from {@code source} are served from the reserve. */
    public boolean known(InetAddress source) {
        if (source == null) {
            return false;
        }
        if (source.isLoopbackAddress()) {
            return true;
        }
        Long at = known.get(source);
        return at != null && (at == Long.MAX_VALUE || System.nanoTime() - at < limits.trustFor().toNanos());
    }

    /**
     * Admits a connection just accepted from {@code source}, armed with the proof deadline; or
     * refuses it (empty: the listener closes it at once, having read nothing).
     *
     * @param onExpiry what closes the connection when its deadline passes unproven (run on the
     *                 guard's thread; must not block)
     */
    public Optional<Pass> admit(InetAddress source, Runnable onExpiry) {
        java.util.Objects.requireNonNull(source, "source");
        boolean stranger = !known(source);
        if (stranger) {
            if (!withinRates(source)) {
                refused.incrementAndGet();
                return Optional.empty();
            }
            boolean[] room = new boolean[1];
            strangersBySource.compute(source, (a, n) -> {
                int open = n == null ? 0 : n;
                room[0] = open < limits.perSource();
                return room[0] ? open + 1 : n;
            });
            if (!room[0]) {
                refused.incrementAndGet();
                return Optional.empty();
            }
            if (strangers.incrementAndGet() > limits.strangers()) {
                strangers.decrementAndGet();
                release(source);
                refused.incrementAndGet();
                return Optional.empty();
            }
        }
        Pass p = new Pass(source, stranger, onExpiry);
        p.arm();
        return Optional.of(p);
    }

    private static final long SECOND = 1_000_000_000L;

    private boolean withinRates(InetAddress source) {
        long now = System.nanoTime();
        boolean[] ok = new boolean[1];
        rates.compute(source, (a, w) -> {
            if (w == null || now - w[0] >= SECOND) {
                ok[0] = true;
                return new long[] {now, 1};
            }
            ok[0] = w[1] < limits.perSource();
            if (ok[0]) {
                w[1]++;
            }
            return w;
        });
        if (!ok[0]) {
            return false;
        }
        synchronized (totalRate) {
            if (now - totalRate[0] >= SECOND) {
                totalRate[0] = now;
                totalRate[1] = 0;
            }
            return totalRate[1]++ < limits.strangers();
        }
    }

    private void release(InetAddress source) {
        strangersBySource.computeIfPresent(source, (a, n) -> n <= 1 ? null : n - 1);
    }

    /** Connections refused by the limits since start. */
    public long refused() {
        return refused.get();
    }

    /** Connections closed because their deadline passed unproven, since start. */
    public long expired() {
        return expired.get();
    }

    /** Open stranger connections now. */
    public int strangers() {
        return strangers.get();
    }

    private void reap() {
        long now = System.nanoTime();
        rates.values().removeIf(w -> now - w[0] >= SECOND);
        for (Pass p : armed.keySet()) {
            if (now - p.deadline > 0 && armed.remove(p) != null) {
                expired.incrementAndGet();
                try {
                    p.onExpiry.run();
                } catch (RuntimeException e) {
                    // the listener's close failed: the connection's own timeouts remain
                }
            }
        }
    }

    @Override
    public void close() {
        reaper.shutdownNow();
    }

    /**
     * One admitted connection. {@link #close} it when the connection closes (idempotent).
     */
    public final class Pass implements AutoCloseable {
        private final InetAddress source;
        private final Runnable onExpiry;
        private final AtomicBoolean counted;
        private final boolean stranger;
        private volatile boolean proven;
        private volatile long deadline;

        private Pass(InetAddress source, boolean stranger, Runnable onExpiry) {
            this.source = source;
            this.onExpiry = onExpiry == null ? () -> { } : onExpiry;
            this.counted = new AtomicBoolean(stranger);
            this.stranger = stranger;
        }

        /** Whether the connection came from an unknown address and has not proved a credential yet. */
        public boolean stranger() {
            return stranger && !proven;
        }

        /** The source address. */
        public InetAddress source() {
            return source;
        }

        /** How long the connection has for each step while unproven. */
        public Duration proofDeadline() {
            return limits.proofDeadline();
        }

        /** Whether the connection proved a credential. */
        public boolean proven() {
            return proven;
        }

        /**
         * Starts the proof deadline again (a keep-alive connection's next request); nothing for a
         * proven connection or one from a known address.
         */
        public void arm() {
            if (stranger()) {
                deadline = System.nanoTime() + limits.proofDeadline().toNanos();
                armed.put(this, Boolean.TRUE);
            }
        }

        /**
         * The connection proved a credential: no deadline any more, it leaves the strangers' count,
         * and its source address is known for {@link Limits#trustFor}.
         */
        public void prove() {
            if (proven) {
                return;
            }
            proven = true;
            armed.remove(this);
            uncount();
            if (source != null) {
                remember(source);
            }
        }

        private void uncount() {
            if (counted.compareAndSet(true, false)) {
                strangers.decrementAndGet();
                release(source);
            }
        }

        /** The connection closed: frees its place. */
        @Override
        public void close() {
            armed.remove(this);
            uncount();
        }
    }
}
