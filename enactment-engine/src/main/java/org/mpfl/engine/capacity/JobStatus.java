package org.mpfl.engine.capacity;

/**
 * What a scheduler says about one job.
 *
 * @param jobId  its id
 * @param phase  waiting, running or ended
 * @param state  the scheduler's own word for it ({@code PENDING}, {@code RUNNING}, {@code CANCELLED},
 *               {@code TIMEOUT}, {@code GONE} when it no longer knows the job…)
 * @param reason why it waits or ended, as the scheduler says ({@code Resources}), or empty
 * @param node   the node it runs on, or empty
 */
public record JobStatus(String jobId, Phase phase, String state, String reason, String node) {
    /** Where a job is in its life. */
    public enum Phase {
        PENDING, RUNNING, ENDED
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

    /** E.g. {@code PENDING (Resources)}, {@code RUNNING on n1}. */
    public String describe() {
        String r = reason == null || reason.isBlank() || reason.equals("None") ? ""
                : " (" + NEVER_STARTS.getOrDefault(reason, reason) + ")";
        String on = node == null || node.isBlank() || phase == Phase.PENDING ? "" : " on " + node;
        return state + r + on;
    }
}
