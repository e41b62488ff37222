package org.mpfl.engine.capacity;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.mpfl.engine.EngineConfig;

/**
 * A scheduler in memory for the {@link CapacityManager}'s tests: jobs it is given wait PENDING until a test changes
 * them; submissions and cancels fail while a test says so. Whatever the manager asked is recorded. Public for the
 * tests of what shows the jobs elsewhere (CliTest: {@code mpflc hosts}).
 */
public final class FakeScheduler implements CapacityProvider {
    final Map<String, JobStatus> states = new ConcurrentHashMap<>();
    public final List<HostJob> submitted = new CopyOnWriteArrayList<>();
    /** When each submission was asked for (failed ones too), System.nanoTime(). */
    final List<Long> submitTimes = new CopyOnWriteArrayList<>();
    final List<String> cancelled = new CopyOnWriteArrayList<>();
    volatile String submitFails;
    /**
     * While set, a submission reaches the scheduler (the job exists, PENDING, findable by its name) and then gets no
     * answer until this latch opens or the caller is interrupted: an sbatch interrupted or timed out after slurmctld
     * took the job ({@link CapacityException#outcomeUnknown}).
     */
    volatile java.util.concurrent.CountDownLatch submitHangs;
    /** Opened when a hanging submission (see {@link #submitHangs}) has reached the scheduler. */
    final java.util.concurrent.CountDownLatch submitReached = new java.util.concurrent.CountDownLatch(1);
    volatile String cancelFails;
    /** While set, a cancel gets no answer until this latch opens or the caller is interrupted (slurmctld hangs). */
    volatile java.util.concurrent.CountDownLatch cancelHangs;
    /** The cancels asked for, answered or not, System.nanoTime() each. */
    final List<Long> cancelTimes = new CopyOnWriteArrayList<>();
    /** Called with each job cancelled, as its host would hear of it (SIGTERM: the host says goodbye), or {@code null}. */
    volatile java.util.function.Consumer<HostJob> onCancel;
    /** The job each id stands for. */
    final Map<String, HostJob> jobs = new ConcurrentHashMap<>();
    /** What {@link #find} answers by job name (job ids of jobs not ended); a name not in it: none. */
    final Map<String, String> named = new ConcurrentHashMap<>();
    /** Thrown by {@link #find} while set, its count of failures left going down (a negative count: for ever). */
    volatile CapacityException findFails;
    final java.util.concurrent.atomic.AtomicInteger findFailures = new java.util.concurrent.atomic.AtomicInteger(-1);
    /** How often {@link #find} was asked. */
    final java.util.concurrent.atomic.AtomicInteger finds = new java.util.concurrent.atomic.AtomicInteger();
    /** What {@link #jobsAtOnce} answers (the scheduler's own limit), or {@code null}: it cannot tell. */
    volatile JobsAtOnce limit;
    /** Where the jobs' output goes, or {@code null}: the provider keeps none. */
    volatile Path logDir;
    private int next = 100;

    /**
     * An engine on {@code dataDir} whose capacity is this scheduler: at most {@code maxNodes} jobs of {@code cpusPerNode}
     * CPUs, an idle host's job released after 5 min, the scheduler asked every 100 ms; hosts kept 5 min without a
     * heartbeat.
     */
    public EngineConfig engineConfig(Path dataDir, int maxNodes, int cpusPerNode) {
        return new EngineConfig().port(0).dataDir(dataDir).heartbeatTimeout(Duration.ofMinutes(5))
                .capacity(this, new CapacitySettings(maxNodes, cpusPerNode, Duration.ofSeconds(300), Duration.ofMillis(100)));
    }

    @Override
    public String jobKind() {
        return "Slurm job";
    }

    @Override
    public String name() {
        return "slurm";
    }

    @Override
    public void check() {
    }

    @Override
    public String submit(HostJob job) throws CapacityException {
        String id;
        synchronized (this) {
            submitTimes.add(System.nanoTime());
            if (submitFails != null) {
                throw new CapacityException(submitFails);
            }
            id = String.valueOf(next++);
            submitted.add(job);
            jobs.put(id, job);
            states.put(id, new JobStatus(id, JobStatus.Phase.PENDING, "PENDING", "Resources", ""));
        }
        java.util.concurrent.CountDownLatch hangs = submitHangs;
        if (hangs != null) {
            named.put(job.name(), id);
            submitReached.countDown();
            try {
                hangs.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw CapacityException.outcomeUnknown("interrupted while submitting " + job.name(), e);
            }
            throw CapacityException.outcomeUnknown("sbatch did not answer within 30 s (is slurmctld up?)", null);
        }
        return id;
    }

    @Override
    public Map<String, JobStatus> poll(Collection<String> jobIds) {
        Map<String, JobStatus> out = new HashMap<>();
        jobIds.forEach(id -> out.put(id, states.getOrDefault(id, JobStatus.gone(id))));
        return out;
    }

    @Override
    public void cancel(String jobId) throws CapacityException {
        cancelTimes.add(System.nanoTime());
        java.util.concurrent.CountDownLatch hangs = cancelHangs;
        if (hangs != null) {
            try {
                hangs.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CapacityException("interrupted while cancelling Slurm job " + jobId, e);
            }
        }
        if (cancelFails != null) {
            throw new CapacityException(cancelFails);
        }
        cancelled.add(jobId);
        states.computeIfPresent(jobId, (k, s) -> new JobStatus(k, JobStatus.Phase.ENDED, "CANCELLED", "", s.node()));
        java.util.function.Consumer<HostJob> hook = onCancel;
        HostJob job = jobs.get(jobId);
        if (hook != null && job != null) {
            hook.accept(job);
        }
    }

    @Override
    public JobsAtOnce jobsAtOnce(int cpus) {
        return limit;
    }

    @Override
    public Path jobLogDir() {
        return logDir;
    }

    @Override
    public String cancelByHand(String jobId) {
        return "scancel " + jobId;
    }

    @Override
    public String cancelByHand(Collection<String> jobIds, Collection<String> jobNames) {
        List<String> commands = new ArrayList<>();
        if (!jobIds.isEmpty()) {
            commands.add("scancel " + String.join(" ", jobIds));
        }
        jobNames.forEach(n -> commands.add("scancel --name=" + n));
        return String.join("; ", commands);
    }

    @Override
    public List<JobStatus> find(String jobName) throws CapacityException {
        finds.incrementAndGet();
        CapacityException fails = findFails;
        if (fails != null && findFailures.getAndDecrement() != 0) {
            throw fails;
        }
        List<JobStatus> out = new ArrayList<>();
        String id = named.get(jobName);
        if (id != null) {
            out.add(states.get(id));
        }
        return out;
    }

    /** A job of the test's choosing is in this phase and state on this node, as the scheduler would say. */
    public void set(String jobId, JobStatus.Phase phase, String state, String reason, String node) {
        states.put(jobId, new JobStatus(jobId, phase, state, reason, node));
    }

    /** A job of the test's choosing ends with this state, as the scheduler would say. */
    public void end(String jobId, String state, String reason) {
        states.put(jobId, new JobStatus(jobId, JobStatus.Phase.ENDED, state, reason, ""));
    }
}
