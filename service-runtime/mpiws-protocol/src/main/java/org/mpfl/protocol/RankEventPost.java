package org.mpfl.protocol;

import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.mpfl.protocol.digest.Sha256;

/**
 * How a rank's {@link RankEvent}s reach the engine: {@code POST <callbackUrl>/events} (the run
 * request's {@link RunRequest#callbackUrl()}), one event as a JSON object or several as an array as the
 * body ({@code application/json}), and these headers (the names are those of {@link CheckpointUpload}):
 * the domain, the SHA-256 of the body (64 lower-case hex digits) and a proof, base64url of
 * {@link DomainToken#proveEvents} over the domain and that digest. Only the holders of the domain's
 * token (its hosts and the engine) can make the proof, so knowing a run's domain ID is not enough to
 * post its results; and the proof binds the exact body, so a captured post cannot carry other events.
 * The engine admits a post from its headers before it reads one byte of the body, then checks the
 * body against the digest and every event's domain against the header's. {@link #headers} computes
 * the headers: the one implementation, for the hosts and for tests alike.
 */
public final class RankEventPost {
    /** Appended to the callback address. */
    public static final String PATH = "events";
    public static final String DOMAIN_HEADER = CheckpointUpload.DOMAIN_HEADER;
    /** SHA-256 of the body, lower-case hex. */
    public static final String SHA256_HEADER = CheckpointUpload.SHA256_HEADER;
    /** base64url (without padding) of {@link DomainToken#proveEvents}. */
    public static final String PROOF_HEADER = CheckpointUpload.PROOF_HEADER;

    private RankEventPost() {
    }

    /**
     * The headers that authorise posting {@code body} as events of domain {@code domainId}, in
     * the order {@link #DOMAIN_HEADER}, {@link #SHA256_HEADER}, {@link #PROOF_HEADER}.
     *
     * @param token the domain's token (the run request's {@link RunRequest#token()})
     */
    public static Map<String, String> headers(String token, String domainId, byte[] body) {
        return headers(new DomainToken(token), domainId, body);
    }

    /** As {@link #headers(String, String, byte[])}, with the token already made. */
    public static Map<String, String> headers(DomainToken token, String domainId, byte[] body) {
        String sha256 = Sha256.hex(body);
        Map<String, String> h = new LinkedHashMap<>();
        h.put(DOMAIN_HEADER, domainId);
        h.put(SHA256_HEADER, sha256);
        h.put(PROOF_HEADER, Base64.getUrlEncoder().withoutPadding().encodeToString(token.proveEvents(domainId, sha256)));
        return h;
    }
}
