package org.mpfl.protocol;

import java.util.Optional;

/**
 * The engine's own mark on a refusal that a host or relay acts on for good: the response header {@value #HEADER},
 * whose value says why. The engine sets it on its answers to a rank's posts ({@link RankEventPost}, and
 * {@link CheckpointUpload}'s parts alike) when it refuses them because the domain is over for it
 * ({@link #endsDomain()}), on its refusals of a rank's post it will never take however often it is sent
 * ({@link #rejectsBatch()}: a malformed post, a body that does not match its digest, a body too large), and on its
 * registry's refusals of a host's or relay's credential ({@link #refusesCredential()}), and on no other answer. A host
 * stops a domain's ranks when its events are refused with a domain-ending mark, and only then; it stops sending a
 * post (drops a batch of events, gives up a checkpoint part) on any mark of a refusal of that post; a host or relay
 * stops announcing itself on a marked refusal of its credential only. The same status without the mark was written by
 * something between them and the engine (a reverse proxy or load balancer answering while it reloads, a wrong path
 * prefix during an upgrade, a captive portal), which says nothing about the domain, the post or the credential: the
 * events and checkpoint parts are sent again as to an engine out of reach, the announcements go on. The same holds for
 * any other status a rank's post gets without the mark (a proxy's 405 under a wrong path prefix, its 413 body limit,
 * its 401): only the engine's marks end a post before its retry window does.
 *
 * <p>The mark is not a proof: whoever answers at the callback address can write it, as it could write any
 * status before the mark existed. It tells the engine's word apart from a stranger's mistake, not from a
 * stranger's intent.
 */
public enum EngineRefusal {
    /** 404: the engine has no run of that id (it never had, or has forgotten it). */
    DOMAIN_UNKNOWN("domain-unknown", 404),
    /** 403: the domain is not the run's current one (the run gave it up when it placed its ranks again, or never had it). */
    DOMAIN_FOREIGN("domain-foreign", 403),
    /**
     * 410: the run ended FAILED or CANCELLED (for a checkpoint part: ended in any state, it takes no checkpoints);
     * its domain's ranks are to stop.
     */
    DOMAIN_ENDED("domain-ended", 410),
    /** 403: the post's proof does not verify with the token of the domain it names (the sender does not hold the run's token). */
    FORBIDDEN("forbidden", 403),
    /** 401: the registry does not take this credential (none, unknown, revoked or a wrong secret); waiting does not mend it. */
    CREDENTIAL_REFUSED("credential-refused", 401),
    /** 409: the credential is of the other kind (a relay's where a host's is needed, or the reverse). */
    CREDENTIAL_KIND("credential-kind", 409),
    /**
     * 403: the credential speaks for another host than the one the request names (its announcement, heartbeat, leave
     * or registry entry); asking again with it does not mend that.
     */
    CREDENTIAL_FOREIGN("credential-foreign", 403),
    /**
     * 409: another process holding this host's credential is registered and alive (it heartbeated after this one first
     * asked): two live processes cannot be one host, so this one is to stop (the one registered first goes on).
     */
    INSTANCE_LIVE("instance-live", 409),
    /**
     * 503: another process of this host is registered and heartbeated recently; the engine cannot tell yet whether it
     * still runs (a second process) or was killed (a restart): ask again in a second or two. Its entry is replaced once
     * it misses its heartbeats, and this announcement refused for good ({@link #INSTANCE_LIVE}) once it heartbeats again.
     */
    INSTANCE_PENDING("instance-pending", 503),
    /**
     * 400, 401 or 413: the engine read this post of a rank — a batch of rank events or a checkpoint part — and will
     * never take it as it is (malformed headers or body, a rank or checkpoint number out of range, a body that does not
     * match its SHA-256, missing headers, too large); the batch is dropped or the part given up, the domain goes on.
     */
    BATCH_REJECTED("batch-rejected", 400, 401, 413);

    /** The response header that carries the mark. */
    public static final String HEADER = "X-MPFL-Refusal";

    private final String value;
    /** The statuses the engine answers with this mark, the first the usual one. */
    private final int[] statuses;

    EngineRefusal(String value, int... statuses) {
        this.value = value;
        this.statuses = statuses;
    }

    /** The header's value. */
    public String value() {
        return value;
    }

    /** The HTTP status the engine answers with this mark (for {@link #BATCH_REJECTED}, the usual one of several: 400). */
    public int status() {
        return statuses[0];
    }

    /** Whether the engine answers HTTP {@code status} with this mark (and so a mark with another status is not its). */
    public boolean goesWith(int status) {
        for (int s : statuses) {
            if (s == status) {
                return true;
            }
        }
        return false;
    }

    /** Whether the mark says that a domain is over for the engine (a refusal of a rank's post): its ranks are to stop. */
    public boolean endsDomain() {
        return this == DOMAIN_UNKNOWN || this == DOMAIN_FOREIGN || this == DOMAIN_ENDED || this == FORBIDDEN;
    }

    /** Whether the mark says that the engine will never take this post (a batch of rank events, a checkpoint part): the domain goes on. */
    public boolean rejectsBatch() {
        return this == BATCH_REJECTED;
    }

    /**
     * Whether the mark says that the registry refuses the caller's credential (refused, of the other kind, another
     * host's, or in use by another live process of its host): its announcements are to stop.
     */
    public boolean refusesCredential() {
        return this == CREDENTIAL_REFUSED || this == CREDENTIAL_KIND || this == CREDENTIAL_FOREIGN || this == INSTANCE_LIVE;
    }

    /**
     * The mark of an answer with HTTP {@code status} whose {@value #HEADER} header is {@code headerValue}
     * ({@code null}: none): empty when there is no mark, an unknown one, or one that goes with another status.
     */
    public static Optional<EngineRefusal> of(int status, String headerValue) {
        if (headerValue == null) {
            return Optional.empty();
        }
        String v = headerValue.strip();
        for (EngineRefusal r : values()) {
            if (r.value.equals(v) && r.goesWith(status)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }
}
