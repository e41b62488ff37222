package org.mpfl.engine.run;

/** Life cycle of a run. The last three are final. */
public enum RunState {
    /** Accepted; ranks are being placed, deployed and started. */
    PENDING,
    /** Every rank accepted {@code run}. */
    RUNNING,
    /** Every rank finished without error. */
    SUCCEEDED,
    /** A rank failed, a host was lost, a deadlock was found, or the engine restarted under it. */
    FAILED,
    /** A user cancelled it. */
    CANCELLED;

    public boolean isFinal() {
        return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }
}
