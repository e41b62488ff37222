package org.mpfl.engine.run;

import java.util.Map;
import java.util.Optional;
import org.mpfl.protocol.FaultKind;

/**
 * Which faults a run may restart after, and how many restarts it has.
 *
 * <p>Infrastructure faults are those the workflow did not raise: a host lost (the registry missed its
 * heartbeats, or it stopped answering {@code status}), a rank killed from outside (its host says
 * {@code unknown} for a rank that was running, or every rank of the domain was aborted without any rank
 * reporting a failure) — which the engine finds itself — and a rank that failed with a fault its host
 * says is the infrastructure's ({@link FaultKind#INFRASTRUCTURE} on the rank's FAILED state): a transport
 * failure between ranks (its peer is unreachable), or its kernel worker killed from outside (SIGKILL, the
 * OOM killer, docs/kernel-protocol.md). The failure's text never decides: a workflow may write any. A
 * fault raised by the workflow's own activities (a {@code fault} activity, a runtime error in the
 * document, a program's or a kernel's exception, a receive timeout the workflow set, a deadlock) is not an
 * infrastructure fault: it fails the run as before.
 */
final class RestartPolicy {
    /** How long a transport failure waits for a workflow fault of another rank to arrive and win. */
    static final long SETTLE_MS = 500;

    private RestartPolicy() {
    }

    /**
     * Whether a rank's failure of kind {@code fault} (as its host said it) is an infrastructure fault: only
     * {@link FaultKind#INFRASTRUCTURE}; a failure whose host said no kind ({@code null}) is the workflow's.
     */
    static boolean infrastructure(FaultKind fault) {
        return fault == FaultKind.INFRASTRUCTURE;
    }

    /**
     * What a rank's infrastructure fault {@code error} of domain {@code domainId} does, once a workflow fault of
     * another rank (which may have caused it, by aborting the domain) had {@link #SETTLE_MS} to arrive and win: the
     * run fails with that workflow fault, else the infrastructure fault is reported (a restart while restarts are
     * left). Sleeps on the caller's thread: run it on a worker.
     */
    static void settleThenDecide(Run run, RunFaults faults, String domainId, RunError error) {
        try {
            Thread.sleep(SETTLE_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Optional<RunError> own = run.workflowFailure(RestartPolicy::infrastructure);
        if (own.isPresent()) {
            faults.failed(run, own.get());
        } else {
            faults.infrastructureFault(run, domainId, error, Map.of());
        }
    }

    /**
     * The restarts a run may make: the run's own value ({@code mpflc run --restarts N}, REST
     * {@code restarts}) wins over the plan's ({@code <workflow restarts="N">}); neither: 0.
     */
    static int allowed(Integer runValue, Integer planValue) {
        int n = runValue != null ? runValue : planValue != null ? planValue : 0;
        if (n < 0) {
            throw new IllegalArgumentException("restarts must be at least 0, not " + n);
        }
        return n;
    }
}
