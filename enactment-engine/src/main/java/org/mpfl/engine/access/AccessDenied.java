package org.mpfl.engine.access;

/**
 * A request the access layer refuses: 401 (no or an invalid credential), 403 (a credential whose role
 * does not allow it), 404 (a run or workflow outside the caller's projects: its existence is not
 * told), 503 (the issuer cannot be reached to verify a token).
 */
public final class AccessDenied extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final transient Caller who;

    public AccessDenied(int status, String message) {
        this(status, message, null);
    }

    private AccessDenied(int status, String message, Caller who) {
        super(message);
        this.status = status;
        this.who = who;
    }

    /** The same refusal, naming the authenticated caller it was for. */
    AccessDenied of(Caller c) {
        return new AccessDenied(status, getMessage(), c);
    }

    /** The authenticated caller refused, {@code null} when authentication itself failed. */
    public Caller who() {
        return who;
    }

    public int status() {
        return status;
    }
}
