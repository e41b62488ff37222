package org.mpfl.runtime.p2p;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.mpfl.protocol.DomainToken;
import org.mpfl.runtime.api.DomainAbortedException;
import org.mpfl.runtime.api.MpiwsException;
import org.mpfl.runtime.transport.DomainTransports;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.MemoryBudget;

/**
 * What one service host knows of one communication domain: its token, the rank instances it hosts,
 * the abort state, and the memory account for unexpected messages, shared by all of the domain's
 * ranks in this host (the bound of the spec is per domain). Every byte charged here is charged to the
 * host's {@link MemoryBudget} too, which bounds all domains together.
 */
public final class Domain {
    private final String id;
    private final String token;
    private final DomainToken proofs;
    private final boolean inJvmOnly;
    private final int size;
    private final long unexpectedLimitBytes;
    private final MemoryBudget hostBudget;
    private final AtomicLong bufferedBytes = new AtomicLong();
    private final AtomicLong peakBufferedBytes = new AtomicLong();
    final ConcurrentHashMap<Integer, RankInstance> ranks = new ConcurrentHashMap<>();
    final Set<Integer> endedRanks = ConcurrentHashMap.newKeySet();
    private volatile String abortReason;
    private final DomainTransports transports;

    /**
     * @param inJvmOnly its registry has no network entry: every message comes from a rank instance of this
     *                  JVM, which holds the token anyway, so none is proven ({@link #proof}, {@link #admits})
     */
    Domain(String id, String token, int size, long unexpectedLimitBytes, MemoryBudget hostBudget,
           DomainTransports transports, boolean inJvmOnly) {
        this.id = id;
        this.inJvmOnly = inJvmOnly;
        this.transports = transports;
        this.token = token;
        this.proofs = new DomainToken(token);
        this.size = size;
        this.unexpectedLimitBytes = unexpectedLimitBytes;
        this.hostBudget = hostBudget;
    }

    public String id() {
        return id;
    }

    /** World size. */
    public int size() {
        return size;
    }

    /** The transports to this domain's peers, settled per peer host when the domain was set up here. */
    public DomainTransports transports() {
        return transports;
    }

    public DomainToken proofs() {
        return proofs;
    }

    /**
     * The token's proof for a message header ({@link DomainToken#prove}); none ({@code null}) in a registry
     * of this JVM only, where the HMAC would be checked by the same JVM that made it: the run then needs no
     * JCA {@code Mac} at all (its provider look-up is most of a first run's cryptography).
     */
    byte[] proof(int context, int from, int to, int tag, long seq, Envelope.Kind kind) {
        return inJvmOnly ? null : proofs.prove(id, context, from, to, tag, seq, kind.ordinal());
    }

    /** Whether a message may enter: it carries the token's proof, or no network entry leads to this domain. */
    boolean admits(Envelope envelope) {
        return inJvmOnly || envelope.isProvenBy(proofs);
    }

    boolean hasToken(String candidate) {
        return java.security.MessageDigest.isEqual(token.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                candidate.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    // ------------------------------------------------------------------ memory bound

    /**
     * Accounts {@code bytes} of buffered payload if the domain stays within its limit and the host
     * within its budget; a message of zero bytes always fits.
     */
    public boolean tryReserve(long bytes) {
        return tryReserve(bytes, null);
    }

    /**
     * Like {@link #tryReserve(long)}, taking the host-budget part from {@code prepaid} (the bytes a
     * transport reserved before it read the payload; may be {@code null}) as far as it goes.
     */
    public boolean tryReserve(long bytes, MemoryBudget.Reservation prepaid) {
        long fromPrepaid = prepaid == null ? 0 : prepaid.take(bytes);
        long extra = bytes - fromPrepaid;
        if (!hostBudget.tryReserve(extra)) {
            if (prepaid != null) {
                prepaid.giveBack(fromPrepaid);
            }
            return false;
        }
        while (true) {
            long current = bufferedBytes.get();
            long next = current + bytes;
            if (bytes > 0 && next > unexpectedLimitBytes) {
                hostBudget.release(extra);
                if (prepaid != null) {
                    prepaid.giveBack(fromPrepaid);
                }
                return false;
            }
            if (bufferedBytes.compareAndSet(current, next)) {
                peakBufferedBytes.accumulateAndGet(next, Math::max);
                return true;
            }
        }
    }

    /** Returns bytes charged with {@link #tryReserve} to the domain's account and the host's budget. */
    public void release(long bytes) {
        bufferedBytes.addAndGet(-bytes);
        hostBudget.release(bytes);
    }

    /** Whether {@code bytes} more would fit in the domain's bound and the host's budget now (non-binding). */
    boolean wouldFit(long bytes) {
        return bufferedBytes.get() + bytes <= unexpectedLimitBytes
                && hostBudget.usedBytes() + bytes <= hostBudget.limitBytes();
    }

    /** The host's budget this domain's account is part of. */
    public MemoryBudget hostBudget() {
        return hostBudget;
    }

    /** Payload bytes now held for unmatched or out-of-order messages of this domain in this host. */
    public long bufferedBytes() {
        return bufferedBytes.get();
    }

    /** The highest {@link #bufferedBytes()} ever reached (never above {@link #unexpectedLimitBytes()}). */
    public long peakBufferedBytes() {
        return peakBufferedBytes.get();
    }

    public long unexpectedLimitBytes() {
        return unexpectedLimitBytes;
    }

    // ------------------------------------------------------------------ abort

    public boolean isAborted() {
        return abortReason != null;
    }

    /** Throws {@link DomainAbortedException} if the domain was aborted. */
    public void checkNotAborted() {
        String reason = abortReason;
        if (reason != null) {
            throw new DomainAbortedException("domain " + shortId(id) + " was aborted: " + reason);
        }
    }

    /** How long a rank whose send failed waits for this host to learn of an abort that may explain the failure. */
    static final long ABORT_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    /**
     * What a rank reports for a send that failed. An abort reaches a domain's hosts one after another, and a
     * peer that has already dropped the domain rejects what is still sent to it: if this host learns of the
     * abort within a short grace, the failure was the abort, and the rank fails with
     * {@link DomainAbortedException} as its peers do (on one host both ranks share this domain, so the abort
     * is already visible); otherwise {@code failure} stands. Call it on a rank's or a sender's thread, never
     * on a transport's reader thread (it may wait {@link #ABORT_GRACE_NANOS}).
     */
    public MpiwsException explain(MpiwsException failure) {
        long end = System.nanoTime() + ABORT_GRACE_NANOS;
        while (!isAborted() && System.nanoTime() < end) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        String reason = abortReason;
        return reason != null ? new DomainAbortedException("domain " + shortId(id) + " was aborted: " + reason) : failure;
    }

    /** Marks the domain aborted and wakes every blocked operation of its ranks in this host. */
    void abort(String reason) {
        synchronized (this) {
            if (abortReason != null) {
                return;
            }
            abortReason = reason;
        }
        for (RankInstance rank : ranks.values()) {
            rank.wakeAll();
        }
    }

    /** The first characters of a domain ID, enough to tell domains apart in messages and logs. */
    public static String shortId(String domainId) {
        return domainId.length() <= 8 ? domainId : domainId.substring(0, 8) + "…";
    }
}
