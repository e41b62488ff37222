package org.mpfl.engine.run;

/** A resume that the run's state does not allow. */
public final class ResumeRefusedException extends Exception {
    private static final long serialVersionUID = 1L;

    public ResumeRefusedException(String message) {
        super(message);
    }
}
