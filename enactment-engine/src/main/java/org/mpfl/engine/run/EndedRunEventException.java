package org.mpfl.engine.run;

/**
 * Events of a run that has already ended FAILED or CANCELLED (REST: 410 Gone). The events are still
 * applied — a late log or the failing rank's own state explains the end — but the answer tells the
 * host that nobody waits for the domain's ranks any more: it aborts those still running there, rather
 * than leaving them to run on unobserved (an abort the engine sent may not have reached them).
 */
public final class EndedRunEventException extends Exception {
    private static final long serialVersionUID = 1L;

    public EndedRunEventException(String message) {
        super(message);
    }
}
