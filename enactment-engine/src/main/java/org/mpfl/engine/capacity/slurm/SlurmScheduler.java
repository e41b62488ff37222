package org.mpfl.engine.capacity.slurm;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.engine.capacity.CapacityException;
import org.mpfl.engine.capacity.CapacityProvider;
import org.mpfl.engine.capacity.JobStatus;

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
