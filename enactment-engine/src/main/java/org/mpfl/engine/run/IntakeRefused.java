package org.mpfl.engine.run;

import java.util.Optional;
import org.mpfl.protocol.EngineRefusal;

/**
 * A rank's post refused from its headers or its body ({@link CheckpointIntake}, {@link RankEventIntake}):
 * the HTTP status to answer and why, and, when the refusal is the engine's word that the domain is over for
 * it or that the engine will never take the post, the {@link EngineRefusal} mark the answer carries (a host stops the
 * domain's ranks on the first alone, and drops a batch of events on the second alone).
 */
public final class IntakeRefused extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final EngineRefusal mark;

    /**
     * A refusal that says nothing the host acts on for good: the engine failed to store a post (500), which may be sent
     * again; {@code cause} is for the engine's log, never for the answer.
     */
    IntakeRefused(String message, Throwable cause) {
        super(message, cause);
        this.status = 500;
        this.mark = null;
    }

    /** A refusal that ends the domain for the engine: answered with the mark's status and the mark. */
    IntakeRefused(EngineRefusal mark, String message) {
        super(message);
        this.status = mark.status();
        this.mark = mark;
    }

    /** A refusal with a mark that goes with several statuses ({@link EngineRefusal#BATCH_REJECTED}): answered with {@code status} and the mark. */
    IntakeRefused(int status, EngineRefusal mark, String message) {
        super(message);
        if (!mark.goesWith(status)) {
            throw new IllegalArgumentException(mark.value() + " does not go with HTTP " + status);
        }
        this.status = status;
        this.mark = mark;
    }

    /**
     * The engine's refusal of a rank's post that it will never take as it is (HTTP 400, 401 or 413: a batch of rank
     * events or a checkpoint part, malformed, not matching its digest, too large), marked
     * {@link EngineRefusal#BATCH_REJECTED}: the host gives that post up on the mark alone (the same status unmarked is
     * a proxy's, and the post is sent again).
     */
    public static IntakeRefused rejected(int status, String message) {
        return new IntakeRefused(status, EngineRefusal.BATCH_REJECTED, message);
    }

    public int status() {
        return status;
    }

    /** The mark the answer carries in {@link EngineRefusal#HEADER}; empty for a refusal that says nothing about the domain. */
    public Optional<EngineRefusal> mark() {
        return Optional.ofNullable(mark);
    }
}
