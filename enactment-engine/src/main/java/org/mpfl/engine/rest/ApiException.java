package org.mpfl.engine.rest;

/** A REST request that cannot be served: carries the HTTP status and a message for the client. */
public final class ApiException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;

    public ApiException(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
