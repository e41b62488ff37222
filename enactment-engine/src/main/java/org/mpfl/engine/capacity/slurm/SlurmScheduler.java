package org.mpfl.engine.capacity.slurm;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.engine.capacity.CapacityException;
import org.mpfl.engine.capacity.CapacityProvider;
import org.mpfl.engine.capacity.JobStatus;
import org.mpfl.engine.capacity.JobsAtOnce;

/**
 * What Slurm's two transports share: the names, and polling and finding jobs from one listing of the
 * user's jobs (asking per id fails on an id Slurm has forgotten; forgotten is {@code GONE}).
 */
abstract class SlurmScheduler implements CapacityProvider {
    @Override
    public final String jobKind() {
        return "Slurm job";
    }

    @Override
    public final String name() {
        return "slurm";
    }

    /** {@code scancel ID}: the same where Slurm's command line runs, whichever transport the engine uses. */
    @Override
    public final String cancelByHand(String jobId) {
        return "scancel " + jobId;
    }

    /** {@code scancel ID…} for the ids, {@code scancel --name=NAME} for each job known by its name only. */
    @Override
    public final String cancelByHand(Collection<String> jobIds, Collection<String> jobNames) {
        List<String> commands = new java.util.ArrayList<>();
        if (!jobIds.isEmpty()) {
            commands.add("scancel " + String.join(" ", jobIds));
        }
        jobNames.forEach(n -> commands.add("scancel --name=" + n));
        return String.join("; ", commands);
    }

    /** What the jobs ask for, where their output goes. */
    abstract SlurmSettings settings();

    /** {@code --job-log-dir}: each job's {@code JOBNAME.log} (sbatch's {@code --output}, slurmrestd's {@code standard_output}). */
    @Override
    public final java.nio.file.Path jobLogDir() {
        return settings().logDir();
    }

    /** The jobs Slurm lists for this user, ended ones it still remembers too; only those named so when {@code name} is given. */
    abstract List<JobStatus> jobs(String name) throws CapacityException;

    @Override
    public final Map<String, JobStatus> poll(Collection<String> jobIds) throws CapacityException {
        Map<String, JobStatus> out = new HashMap<>();
        if (jobIds.isEmpty()) {
            return out;
        }
        for (JobStatus s : jobs(null)) {
            if (jobIds.contains(s.jobId())) {
                out.put(s.jobId(), s);
            }
        }
        jobIds.forEach(id -> out.putIfAbsent(id, JobStatus.gone(id)));
        return out;
    }

    @Override
    public final List<JobStatus> find(String jobName) throws CapacityException {
        return jobs(jobName).stream().filter(s -> s.phase() != JobStatus.Phase.ENDED).toList();
    }

    /**
     * How many jobs of {@code cpus} CPUs the partition's nodes hold at once at most: on each node as many as its CPUs
     * (no more than the partition's MaxCPUsPerNode) hold, one on a partition that gives whole nodes
     * ({@code OverSubscribe=EXCLUSIVE}); {@code null} when no node is listed. An upper bound: a cluster that gives
     * every job a whole node ({@code select/linear}) holds fewer, which the check then misses, never the other way.
     *
     * @param nodeCpus        CPUs per node of the partition, by node name
     * @param maxCpusPerNode  the partition's MaxCPUsPerNode, or {@code null} (unlimited)
     * @param source          where the numbers come from ({@code sinfo}, {@code slurmrestd})
     */
    static JobsAtOnce jobsAtOnce(String partition, Map<String, Integer> nodeCpus, Integer maxCpusPerNode, boolean exclusive,
                                 int cpus, String source) {
        if (nodeCpus.isEmpty()) {
            return null;
        }
        int jobs = 0;
        for (int c : nodeCpus.values()) {
            int usable = maxCpusPerNode == null ? c : Math.min(c, maxCpusPerNode);
            jobs += exclusive ? Math.min(1, usable / cpus) : usable / cpus;
        }
        java.util.TreeMap<String, Integer> sorted = new java.util.TreeMap<>(nodeCpus);
        String nodes = sorted.size() <= 4 ? ": " + String.join(", ", sorted.entrySet().stream().map(e -> e.getKey() + " "
                + e.getValue() + " CPUs").toList()) : " of " + sorted.values().stream().mapToInt(Integer::intValue).sum() + " CPUs";
        return new JobsAtOnce(jobs, "partition '" + partition + "' has " + nodeCpus.size() + " node" + (nodeCpus.size() == 1 ? "" : "s")
                + nodes + (maxCpusPerNode == null ? "" : " (MaxCPUsPerNode=" + maxCpusPerNode + ")")
                + (exclusive ? " (OverSubscribe=EXCLUSIVE: one job per node)" : "") + " (" + source + "), room for at most " + jobs
                + " job" + (jobs == 1 ? "" : "s") + " of " + cpus + " CPUs at once");
    }

    /**
     * Refuses a {@code --walltime} longer than the partition's MaxTime (given in Slurm's notation, or
     * {@code UNLIMITED}/{@code INFINITE}/{@code null}): every job would pend for ever ({@code PartitionTimeLimit}).
     */
    static void checkWalltime(SlurmSettings s, String maxTime, String source) throws CapacityException {
        if (s.walltime() == null || maxTime == null || !maxTime.matches("(\\d+-)?\\d+(:\\d{1,2}){0,2}")) {
            return;
        }
        if (SlurmRest.minutes(s.walltime()) > SlurmRest.minutes(maxTime)) {
            throw new CapacityException("--walltime " + s.walltime() + " is longer than partition '" + s.partition() + "' allows (MaxTime="
                    + maxTime + ", " + source + "): every job would pend for ever (PartitionTimeLimit); give --walltime " + maxTime
                    + " or less, or another --partition");
        }
    }

    /** Slurm's job states ({@code squeue --states}; slurmrestd's {@code job_state}) by phase. */
    static JobStatus.Phase phase(String state) {
        return switch (state) {
            case "PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "RESIZING" -> JobStatus.Phase.PENDING;
            case "RUNNING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT" -> JobStatus.Phase.RUNNING;
            // a flag over the final state, which squeue, scontrol and slurmrestd 22.05 all hide behind it until the
            // job's processes are gone (seconds, up to KillWait): the next poll reads CANCELLED, TIMEOUT, NODE_FAIL…
            case "COMPLETING" -> JobStatus.Phase.ENDING;
            default -> JobStatus.Phase.ENDED;
        };
    }
}
