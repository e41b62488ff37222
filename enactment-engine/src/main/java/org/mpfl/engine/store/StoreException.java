package org.mpfl.engine.store;

/** A database failure, with what the engine was doing. */
public final class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StoreException(String message, Throwable cause) {
        super(message + ": " + cause.getMessage(), cause);
    }
}
