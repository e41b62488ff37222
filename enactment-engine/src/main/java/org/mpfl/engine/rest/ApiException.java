package org.mpfl.engine.rest;

import java.util.Optional;
import org.mpfl.engine.access.AccessDenied;
import org.mpfl.protocol.EngineRefusal;

/**
 * A REST request that cannot be served: carries the HTTP status and a message for the client, and, for a refusal a
 * host or relay acts on for good, the engine's {@link EngineRefusal} mark the answer carries; for a role too low, the
 * {@code WWW-Authenticate} challenge of RFC 6750 that the access filter's 403s carry too.
 */
public final class ApiException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final EngineRefusal mark;
    /** The {@code WWW-Authenticate} challenge the answer carries, or {@code null}. */
    private final String challenge;

    public ApiException(int status, String message) {
        this(status, message, null, null);
    }

    /** A refusal answered with the mark's status and the mark ({@link EngineRefusal#HEADER}). */
    public ApiException(EngineRefusal mark, String message) {
        this(mark.status(), message, mark, null);
    }

    private ApiException(int status, String message, EngineRefusal mark, String challenge) {
        super(message);
        this.status = status;
        this.mark = mark;
        this.challenge = challenge;
    }

    /**
     * 403 for a valid credential whose role does not allow what the request's body asks (archives: code for the hosts),
     * with {@code error="insufficient_scope"} as the access filter's refusals of a role too low have (RFC 6750, 3.1).
     */
    static ApiException roleTooLow(String message) {
        return new ApiException(403, message, null, AccessDenied.challenge(AccessDenied.INSUFFICIENT_SCOPE, message));
    }

    /** The {@code WWW-Authenticate} challenge the answer carries; empty for most refusals. */
    public Optional<String> challenge() {
        return Optional.ofNullable(challenge);
    }

    public int status() {
        return status;
    }

    /** The mark the answer carries; empty for most refusals. */
    public Optional<EngineRefusal> mark() {
        return Optional.ofNullable(mark);
    }
}
