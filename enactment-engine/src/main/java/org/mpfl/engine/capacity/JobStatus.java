package org.mpfl.engine.capacity;

/**
 * What a scheduler says about one job.
 *
 * @param jobId  its id
 * @param phase  waiting, running, ending or ended
 * @param state  the scheduler's own word for it ({@code PENDING}, {@code RUNNING}, {@code COMPLETING}, {@code CANCELLED},
 *               {@code TIMEOUT}, {@code GONE} when it no longer knows the job…)
 * @param reason why it waits or ended, as the scheduler says ({@code Resources}), or empty
 * @param node   the node it runs on, or empty
 */
public record JobStatus(String jobId, Phase phase, String state, String reason, String node) {
    /** Where a job is in its life. */
    public enum Phase {
        PENDING, RUNNING,
        /**
         * Its processes are being stopped and its final state is not said yet (Slurm's {@code COMPLETING}, which hides
         * whether the job was cancelled, timed out or lost its node): a later answer says how it ended.
         */
        ENDING,
        ENDED
    }

    /** A job the scheduler does not know (any more). */
    public static JobStatus gone(String jobId) {
        return new JobStatus(jobId, Phase.ENDED, "GONE", "", "");
    }

    /**
     * Slurm's reasons for waiting that mean the job will never start as asked, with what to change: the words alone
     * ({@code PartitionConfig}) do not say it.
     */
    private static final java.util.Map<String, String> NEVER_STARTS = java.util.Map.of(
            "PartitionConfig", "PartitionConfig: the partition refuses the job as asked, e.g. more CPUs than its nodes have"
                    + " (--cpus-per-node) or a longer --walltime than it allows",
            "PartitionNodeLimit", "PartitionNodeLimit: the partition allows fewer nodes",
            "PartitionTimeLimit", "PartitionTimeLimit: --walltime is longer than the partition allows");

    /** What Slurm's final states of a job that MPFL did not end mean for its host, said after the state. */
    private static final java.util.Map<String, String> ENDINGS = java.util.Map.of(
            "TIMEOUT", "its time limit ran out (--walltime, or the partition's)",
            "NODE_FAIL", "its node failed",
            "BOOT_FAIL", "its node failed to boot",
            "PREEMPTED", "preempted by another job",
            "OUT_OF_MEMORY", "out of memory",
            "DEADLINE", "its deadline passed",
            "GONE", "the scheduler no longer lists it");

    /** What the state means, e.g. {@code ": its node failed"} for {@code NODE_FAIL}, or empty. */
    public String meaning() {
        String m = ENDINGS.get(state);
        return m == null ? "" : ": " + m;
    }

    /** E.g. {@code PENDING (Resources)}, {@code RUNNING on n1}. */
    public String describe() {
        String r = reason == null || reason.isBlank() || reason.equals("None") ? ""
                : " (" + NEVER_STARTS.getOrDefault(reason, reason) + ")";
        String on = node == null || node.isBlank() || phase == Phase.PENDING ? "" : " on " + node;
        return state + r + on;
    }
}
