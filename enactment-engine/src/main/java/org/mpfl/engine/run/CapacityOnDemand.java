package org.mpfl.engine.run;

/**
 * What a capacity provider's manager tells the run queue ({@link RunService#capacityOnDemand}): with one, a run that
 * no host can run yet waits for the hosts it brings instead of failing, unless it could never fit what it may bring.
 * Both methods are called under the queue's lock: they must not wait for the manager's own lock.
 */
public interface CapacityOnDemand {
    /**
     * The hosts on their way, as a queued run's reason leads with them (e.g. "waiting for a host from Slurm job 1234
     * PENDING (Resources)"), or empty when no job of the provider is pending or starting its host.
     */
    String coming();

    /**
     * What else holds the provider's hosts back (e.g. "at --max-nodes 2 (2 Slurm jobs of this engine)", a submission that
     * failed), or empty.
     */
    String note();

    /**
     * Why a run of {@code ranks} ranks (not allowed to oversubscribe) can never be placed, even with all the capacity
     * the provider may bring on top of the other hosts, naming the limit and the need; {@code null} when it may fit.
     *
     * @param restored whether the run was queued again after an engine restart (or is the restart of a run re-attached
     *                 to): the other hosts of the previous engine may not have announced themselves again yet
     */
    String neverFits(int ranks, boolean restored);
}
