package org.mpfl.engine.run;

/** Life cycle of a run. The last three are final. */
public enum RunState {
    /** Accepted; ranks are being placed, deployed and started. */
    PENDING,
    /**
     * Waiting in the run queue: its ranks do not fit in the free capacity of the hosts now (placement
     * is all-or-nothing, so it holds no host meanwhile); the run's {@code queue} says why and where.
     */
    QUEUED,
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
