package org.mpfl.engine.run;

/**
 * A rank's post refused from its headers or its body ({@link CheckpointIntake}, {@link RankEventIntake}):
 * the HTTP status to answer and why.
 */
public final class IntakeRefused extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;

    IntakeRefused(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
