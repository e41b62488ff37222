package org.mpfl.engine.run;

import java.util.Map;

/**
 * What monitoring tells the lifecycle: the one narrow way from watching a run to changing its course.
 * Monitoring finds out; the lifecycle decides (succeed, fail, restart) and asks placement when a run
 * needs hosts again.
 */
interface RunFaults {
    /** Every rank of the run's current domain is done. */
    void succeeded(Run run);

    /** The run failed in its workflow (or is deadlocked, or its ranks were lost for good): it ends FAILED. */
    void failed(Run run, RunError error);

    /**
     * An infrastructure fault of domain {@code domainId} (see {@link RestartPolicy}): a restart while
     * restarts are left, a failure otherwise; stale when the run moved on.
     *
     * @param lostHosts hosts known to be lost, each with the process (instance) that was lost ({@code null}: not
     *                  known): kept out of the new placement until they come back as another process
     */
    void infrastructureFault(Run run, String domainId, RunError error, Map<String, String> lostHosts);
}
