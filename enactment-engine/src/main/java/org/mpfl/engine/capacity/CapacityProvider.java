package org.mpfl.engine.capacity;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A cluster scheduler that lends the engine service hosts on demand (Slurm today; Kubernetes with
 * Volcano/Kueue, PBS or Flux could follow): each job it runs starts one {@code mpflc host} that enrols
 * with the engine with the credential the job carries. The {@link CapacityManager} decides when to
 * submit, release and adopt jobs; a provider only talks to its scheduler. Every method waits a bounded
 * time and says what went wrong in a {@link CapacityException} a user can act on (e.g. a refused token).
 * See {@code docs/architecture.md}, "Capacity providers".
 */
public interface CapacityProvider {
    /** How users read one of its jobs, e.g. {@code "Slurm job"}. */
    String jobKind();

    /** Short name stored with its jobs, e.g. {@code "slurm"}. */
    String name();

    /**
     * Whether the scheduler answers and accepts the engine's credentials (e.g. its JWT); checked when the
     * engine starts, so that a wrong one stops it with a clear error instead of queueing runs forever.
     */
    void check() throws CapacityException;

    /**
     * Whether a node of the scheduler can hold a job of {@code cpus} CPUs at all (checked at start, as {@link #check}):
     * otherwise every job would wait for ever ({@code PENDING (PartitionConfig)}). A provider that cannot tell accepts.
     */
    default void checkJobSize(int cpus) throws CapacityException {
    }

    /**
     * How many jobs of {@code cpus} CPUs the scheduler's own limits let run at once at most (a partition's nodes, as
     * many jobs on each as its CPUs hold), or {@code null} when it cannot tell: a run needing more than that many jobs
     * bring can never fit, whatever {@link CapacitySettings#maxNodes} says. Read when the engine starts and every few
     * minutes (an administrator may change the partition).
     */
    default JobsAtOnce jobsAtOnce(int cpus) throws CapacityException {
        return null;
    }

    /**
     * Submits a job that starts one service host; returns the scheduler's id for it. The credential
     * reaches the host in the job's environment, never in the job's script, its name or a command line.
     */
    String submit(HostJob job) throws CapacityException;

    /**
     * The state of these jobs; a job the scheduler no longer knows is {@linkplain JobStatus.Phase#ENDED ended}
     * (with state {@code GONE}).
     */
    Map<String, JobStatus> poll(Collection<String> jobIds) throws CapacityException;

    /** Ends a job (its host stops); a job already ended is not an error. */
    void cancel(String jobId) throws CapacityException;

    /**
     * The command an administrator runs to end a job by hand when {@link #cancel} failed (e.g. {@code scancel 1234}),
     * or {@code null} when the provider knows none.
     */
    default String cancelByHand(String jobId) {
        return null;
    }

    /**
     * The command (or commands, {@code ; } between them) an administrator runs to end by hand the jobs with these ids
     * and the jobs submitted under these names whose id is not known (e.g. {@code scancel 1234 1235; scancel
     * --name=mpfl-slurm-ab12}), or {@code null} when the provider knows none.
     */
    default String cancelByHand(java.util.Collection<String> jobIds, java.util.Collection<String> jobNames) {
        return null;
    }

    /**
     * Where the engine finds the output of the job submitted as {@code jobName} (as this machine sees it), or
     * {@code null} when the scheduler keeps it elsewhere.
     */
    default java.nio.file.Path jobLog(String jobName) {
        java.nio.file.Path dir = jobLogDir();
        return dir == null ? null : dir.resolve(jobName + ".log");
    }

    /**
     * The directory the jobs' output files go to ({@code JOBNAME.log}), which the engine prunes ({@link JobLogs}), or
     * {@code null} when the scheduler keeps them elsewhere.
     */
    default java.nio.file.Path jobLogDir() {
        return null;
    }

    /**
     * The jobs not yet ended that carry this name (after an engine stopped between submitting a job and
     * recording its id, the job is found again by the name it was submitted under).
     */
    List<JobStatus> find(String jobName) throws CapacityException;
}
