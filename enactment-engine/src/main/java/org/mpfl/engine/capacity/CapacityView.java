package org.mpfl.engine.capacity;

import java.util.List;

/**
 * What a {@link CapacityManager} holds at one moment, as {@code GET /api/capacity} and {@code mpflc hosts} show it:
 * its jobs (also those whose host has not joined, which the registry cannot list) and why no job is being submitted.
 * Holds no secret: a job's host credential stays in the job's environment, the scheduler's JWT in its file.
 *
 * @param provider       the provider's short name ({@code slurm})
 * @param jobKind        how users read one of its jobs ({@code Slurm job})
 * @param limits         how many jobs at once, of how many CPUs
 * @param jobs           the jobs this engine holds, oldest first
 * @param nextSubmitMs   when the next job may be submitted after failed starts or submissions, or {@code null}
 *                       when nothing holds submissions back
 * @param startFailure   why the last jobs ended before their host joined (the wait before the next), or {@code null}
 * @param submitError    why the last submission failed, or {@code null}
 * @param failedSubmits  submissions that failed in a row
 * @param schedulerError why the scheduler could not be asked about the jobs (or a release failed), or {@code null}
 * @param asOfMs         when the manager took this view (at the end of its last round)
 */
public record CapacityView(String provider, String jobKind, CapacitySettings limits, List<Job> jobs, Long nextSubmitMs,
                           String startFailure, String submitError, int failedSubmits, String schedulerError, long asOfMs) {
    public CapacityView {
        jobs = List.copyOf(jobs);
    }

    /**
     * One job.
     *
     * @param jobId       the scheduler's id, or {@code null} for a job adopted from a previous engine whose id is
     *                    still being looked up by its name
     * @param jobName     its name at the scheduler ({@code mpfl-HOSTID})
     * @param hostId      the host id its host enrols as
     * @param phase       {@code PENDING}, {@code RUNNING}, {@code ENDING} (ended outside MPFL, its final state to follow) or
     *                    {@code ENDED}, or {@code null} before the scheduler was first asked
     * @param state       the scheduler's word ({@code PENDING}, {@code RUNNING}…), {@code SUBMITTED} before it was asked
     * @param reason      why it waits, as the scheduler says ({@code Resources}), or empty
     * @param node        the node it runs on, or {@code null}
     * @param submittedMs when this engine (or the previous one) submitted it
     * @param joined      whether its host has enrolled with the registry
     * @param releasing   whether the engine cancelled it (idle, or no run waits for it any more) and waits for it to end
     */
    public record Job(String jobId, String jobName, String hostId, String phase, String state, String reason, String node,
                      long submittedMs, boolean joined, boolean releasing) {
    }
}
