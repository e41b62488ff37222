package org.mpfl.engine.run;

import java.util.Locale;

/**
 * Which faults a run may restart after, and how many restarts it has.
 *
 * <p>Infrastructure faults are those the workflow did not raise: a host lost (the registry missed its
 * heartbeats, or it stopped answering {@code status}), a transport failure between ranks (a rank
 * fails with a delivery error: its peer is unreachable), and a rank killed from outside (its host
 * says {@code unknown} for a rank that was running, or every rank of the domain was aborted without
 * any rank reporting a failure), and a rank whose kernel worker was killed from outside (SIGKILL, the
 * OOM killer: {@code "kernel worker lost:"}, docs/kernel-protocol.md). A fault raised by the workflow's own activities (a {@code fault}
 * activity, a runtime error in the document, a program's exception, a receive timeout the workflow
 * set, a deadlock) is not an infrastructure fault: it fails the run as before.
 */
final class RestartPolicy {
    /** How long a transport failure waits for a workflow fault of another rank to arrive and win. */
    static final long SETTLE_MS = 500;

    private RestartPolicy() {
    }

    /**
     * Whether a rank's failure message reports a transport failure: a {@code DeliveryException} of a
     * rank program ({@code "DeliveryException: …"}) or the interpreter's {@code "peer unreachable: …"}.
     */
    static boolean infrastructure(String rankError) {
        if (rankError == null) {
            return false;
        }
        String m = rankError.toLowerCase(Locale.ROOT);
        return m.startsWith("deliveryexception") || m.contains("peer unreachable:") || m.startsWith("transportexception")
                || m.contains("kernel worker lost:"); // KernelFailure.LOST_MARK (the runtime is not on the compile path)
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
