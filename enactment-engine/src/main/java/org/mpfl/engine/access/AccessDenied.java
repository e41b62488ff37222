package org.mpfl.engine.access;

/**
 * A request the access layer refuses: 401 (no or an invalid credential), 403 (a credential whose role
 * does not allow it), 404 (a run or workflow outside the caller's projects: its existence is not
 * told), 503 (the issuer cannot be reached to verify a token).
 */
public final class AccessDenied extends Exception {
    /** The error code of RFC 6750 (section 3.1) for a credential that was sent and proves nothing. */
    public static final String INVALID_TOKEN = "invalid_token";
    /** The error code of RFC 6750 (section 3.1) for a valid credential whose role does not allow the request. */
    public static final String INSUFFICIENT_SCOPE = "insufficient_scope";

    private static final long serialVersionUID = 1L;
    private final int status;
    private final transient Caller who;
    private final String bearerError;

    public AccessDenied(int status, String message) {
        this(status, message, null, null);
    }

    private AccessDenied(int status, String message, Caller who, String bearerError) {
        super(message);
        this.status = status;
        this.who = who;
        this.bearerError = bearerError;
    }

    /** 401 for a credential that was sent and proves nothing (expired, another issuer's, garbled …): why, in words. */
    static AccessDenied invalidToken(String reason) {
        return new AccessDenied(401, reason, null, INVALID_TOKEN);
    }

    /** 403 for a valid credential whose role does not allow the request: which role it needs. */
    static AccessDenied roleTooLow(String reason) {
        return new AccessDenied(403, reason, null, INSUFFICIENT_SCOPE);
    }

    /** The same refusal, naming the authenticated caller it was for. */
    AccessDenied of(Caller c) {
        return new AccessDenied(status, getMessage(), c, bearerError);
    }

    /**
     * The {@code WWW-Authenticate} challenge of RFC 6750 (section 3) for this refusal, if it has one: every 401, and a
     * 403 for a role too low. A request that carried no credential gets the realm alone (no error code: it was not told
     * anything wrong, only that it needs one); a refused credential also the error code and the reason, which a client
     * can show without parsing the body.
     */
    public java.util.Optional<String> challenge() {
        if (status != 401 && bearerError == null) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(challenge(bearerError, bearerError == null ? null : getMessage()));
    }

    /**
     * A {@code Bearer} challenge with {@code error} and {@code error_description} when given; the description keeps
     * only what RFC 6750 allows in it (printable ASCII but {@code "} and {@code \}), the rest written as {@code ?}.
     */
    public static String challenge(String error, String description) {
        StringBuilder b = new StringBuilder("Bearer realm=\"mpfl-engine\"");
        if (error != null) {
            b.append(", error=\"").append(error).append('"');
        }
        if (description != null) {
            b.append(", error_description=\"");
            description.codePoints().limit(300).forEach(c -> b.append(c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' ? (char) c : '?'));
            b.append('"');
        }
        return b.toString();
    }

    /** The authenticated caller refused, {@code null} when authentication itself failed. */
    public Caller who() {
        return who;
    }

    public int status() {
        return status;
    }
}
