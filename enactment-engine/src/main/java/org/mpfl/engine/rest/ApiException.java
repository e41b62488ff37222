package org.mpfl.engine.rest;

import java.util.Optional;
import org.mpfl.protocol.EngineRefusal;

/**
 * A REST request that cannot be served: carries the HTTP status and a message for the client, and, for a refusal a
 * host or relay acts on for good, the engine's {@link EngineRefusal} mark the answer carries.
 */
public final class ApiException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final EngineRefusal mark;

    public ApiException(int status, String message) {
        super(message);
        this.status = status;
        this.mark = null;
    }

    /** A refusal answered with the mark's status and the mark ({@link EngineRefusal#HEADER}). */
    public ApiException(EngineRefusal mark, String message) {
        super(message);
        this.status = mark.status();
        this.mark = mark;
    }

    public int status() {
        return status;
    }

    /** The mark the answer carries; empty for most refusals. */
    public Optional<EngineRefusal> mark() {
        return Optional.ofNullable(mark);
    }
}
