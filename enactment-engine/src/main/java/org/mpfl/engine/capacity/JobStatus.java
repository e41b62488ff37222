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

    /** E.g. {@code PENDING (Resources)}, {@code RUNNING on n1}. */
    public String describe() {
        String r = reason == null || reason.isBlank() || reason.equals("None") ? "" : " (" + reason + ")";
        String on = node == null || node.isBlank() || phase == Phase.PENDING ? "" : " on " + node;
        return state + r + on;
    }
}
