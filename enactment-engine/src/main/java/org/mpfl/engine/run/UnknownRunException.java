package org.mpfl.engine.run;

/** No run with that id. */
public final class UnknownRunException extends Exception {
    private static final long serialVersionUID = 1L;

    public UnknownRunException(String runId) {
        super("no run '" + runId + "'");
    }
}
