package org.mpfl.runtime.p2p;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.mpfl.protocol.DomainToken;
import org.mpfl.runtime.api.DomainAbortedException;

/**
 * What one service host knows of one communication domain: its token, the rank instances it hosts,
 * the abort state, and the memory account for unexpected messages, shared by all of the domain's
 * ranks in this host (the bound of the spec is per domain).
 */
public final class Domain {
    private final String id;
    private final String token;
    private final DomainToken proofs;
    private final int size;
    private final long unexpectedLimitBytes;
    private final AtomicLong bufferedBytes = new AtomicLong();
    private final AtomicLong peakBufferedBytes = new AtomicLong();
    final ConcurrentHashMap<Integer, RankInstance> ranks = new ConcurrentHashMap<>();
    final Set<Integer> endedRanks = ConcurrentHashMap.newKeySet();
    private volatile String abortReason;

    Domain(String id, String token, int size, long unexpectedLimitBytes) {
        this.id = id;
        this.token = token;
        this.proofs = new DomainToken(token);
        this.size = size;
        this.unexpectedLimitBytes = unexpectedLimitBytes;
    }

    public String id() {
        return id;
    }

    /** World size. */
    public int size() {
        return size;
    }

    public DomainToken proofs() {
        return proofs;
    }

    boolean hasToken(String candidate) {
        return java.security.MessageDigest.isEqual(token.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                candidate.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    // ------------------------------------------------------------------ memory bound

    /**
     * Accounts {@code bytes} of buffered payload if the domain stays within its limit; a message of
     * zero bytes always fits.
     */
    public boolean tryReserve(long bytes) {
        while (true) {
            long current = bufferedBytes.get();
            long next = current + bytes;
            if (bytes > 0 && next > unexpectedLimitBytes) {
                return false;
            }
            if (bufferedBytes.compareAndSet(current, next)) {
                peakBufferedBytes.accumulateAndGet(next, Math::max);
                return true;
            }
        }
    }

    public void release(long bytes) {
        bufferedBytes.addAndGet(-bytes);
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
