package org.mpfl.protocol;

/**
 * Whose fault a rank's failure is, as the host that ran the rank knows it: the engine restarts a run after an
 * {@link #INFRASTRUCTURE} fault while restarts are left ({@code mpflc run --restarts N}, {@code <workflow restarts>}),
 * and never after a {@link #WORKFLOW} fault. It is said with the rank's FAILED state ({@link RankEvent#fault()},
 * {@link RankStatus#fault()}), never read from the failure's text, which the workflow may write (a kernel's exception
 * says what it likes).
 */
public enum FaultKind {
    /**
     * The workflow's own: a {@code <fail>}, a run-time error of the document, a receive timeout it set, an activity's
     * or a kernel's exception, a kernel worker that exited or was killed by any signal but SIGKILL. Also what a
     * failure that says no kind is taken for.
     */
    WORKFLOW,
    /**
     * Not the workflow's: a peer unreachable (a delivery between ranks failed past its deadline: a
     * {@code DeliveryException} or {@code TransportException} of a rank program, the interpreter's
     * {@code peer unreachable: …}), or the rank's kernel worker killed from outside by SIGKILL (the OOM killer,
     * {@code kill -9}: {@code kernel worker lost: …}).
     */
    INFRASTRUCTURE
}
