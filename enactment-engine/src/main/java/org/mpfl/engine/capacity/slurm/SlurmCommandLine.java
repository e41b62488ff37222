package org.mpfl.engine.capacity.slurm;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.mpfl.engine.capacity.CapacityException;
import org.mpfl.engine.capacity.HostJob;
import org.mpfl.engine.capacity.JobStatus;
import org.mpfl.engine.capacity.JobsAtOnce;
import org.mpfl.protocol.HostCredential;

/**
 * The Slurm provider through Slurm's command line on a login node: {@code sbatch} (the job script on
 * its standard input), {@code squeue}, {@code scancel}. A job is one node, one task: {@code srun} starts
 * {@code mpflc host} there ({@link SlurmHostStart}), with the host's credential in the job's environment:
 * {@code sbatch --export=NAMES} takes it from sbatch's own environment by name, so it is on no command
 * line, not in the script, and not in {@code scontrol show job} (see {@code docs/security.md}).
 */
public final class SlurmCommandLine extends SlurmScheduler {
    /** The environment a job gets besides SLURM_*: what a host needs, and the credential (by name only). */
    static final List<String> EXPORTED = List.of("PATH", "HOME", "LANG", "JAVA_HOME", "TMPDIR", HostCredential.ENV);

    private final SlurmSettings settings;

    public SlurmCommandLine(SlurmSettings settings) {
        this.settings = settings;
    }

    @Override
    SlurmSettings settings() {
        return settings;
    }

    @Override
    public void check() throws CapacityException {
        String partitions = ask(List.of("sinfo", "--noheader", "--format=%R"), "sinfo");
        if (partitions.lines().map(String::strip).noneMatch(settings.partition()::equals)) {
            throw new CapacityException("Slurm has no partition '" + settings.partition() + "' (sinfo lists: "
                    + String.join(", ", partitions.lines().map(String::strip).toList()) + ")");
        }
    }

    /**
     * Refuses a job size no node of the partition has ({@code sinfo %c}: CPUs per node, "2+" when they differ), a
     * {@code --walltime} longer than its MaxTime and a partition that allows no node per job ({@code scontrol show
     * partition}): such jobs would pend for ever.
     */
    @Override
    public void checkJobSize(int cpus) throws CapacityException {
        String sizes = ask(List.of("sinfo", "--noheader", "--partition=" + settings.partition(), "--format=%c"), "sinfo").strip();
        if (!sizes.isEmpty() && !sizes.contains("+")) { // nodes of several sizes: the largest is not said, so a job may fit
            int largest = sizes.lines().map(String::strip).filter(s -> s.matches("\\d+")).mapToInt(Integer::parseInt).max()
                    .orElse(Integer.MAX_VALUE);
            if (cpus > largest) {
                throw new CapacityException("no node of partition '" + settings.partition() + "' has " + cpus + " CPUs (sinfo: "
                        + largest + " per node): give --cpus-per-node " + largest + " or less, or another --partition");
            }
        }
        Map<String, String> p = partition();
        checkWalltime(settings, p.get("MaxTime"), "scontrol show partition");
        if ("0".equals(p.get("MaxNodes"))) {
            throw new CapacityException("partition '" + settings.partition() + "' allows no node per job (MaxNodes=0, scontrol show"
                    + " partition): every job would pend for ever; give another --partition");
        }
    }

    /** The partition's nodes ({@code sinfo -N %N|%c}) and its MaxCPUsPerNode and OverSubscribe ({@code scontrol}). */
    @Override
    public JobsAtOnce jobsAtOnce(int cpus) throws CapacityException {
        Map<String, Integer> nodes = new HashMap<>();
        for (String line : ask(List.of("sinfo", "--noheader", "--Node", "--partition=" + settings.partition(), "--format=%N|%c"),
                "sinfo").lines().toList()) {
            String[] f = line.strip().split("\\|");
            if (f.length == 2 && f[1].matches("\\d+")) {
                nodes.put(f[0], Integer.parseInt(f[1]));
            }
        }
        Map<String, String> p = partition();
        String max = p.getOrDefault("MaxCPUsPerNode", "UNLIMITED");
        return jobsAtOnce(settings.partition(), nodes, max.matches("\\d+") ? Integer.valueOf(max) : null,
                p.getOrDefault("OverSubscribe", "").startsWith("EXCLUSIVE"), cpus, "sinfo, scontrol show partition");
    }

    /** {@code scontrol show partition -o P} as its fields ({@code MaxTime=UNLIMITED}, {@code MaxNodes=…}). */
    private Map<String, String> partition() throws CapacityException {
        Map<String, String> fields = new HashMap<>();
        String out = ask(List.of("scontrol", "show", "partition", "--oneliner", settings.partition()), "scontrol");
        for (String word : out.strip().split("\\s+")) {
            int eq = word.indexOf('=');
            if (eq > 0) {
                fields.put(word.substring(0, eq), word.substring(eq + 1));
            }
        }
        return fields;
    }

    /** Runs one of Slurm's tools that only reads ({@code tool} names it in errors). */
    private String ask(List<String> cmd, String tool) throws CapacityException {
        try {
            return SlurmTools.run(cmd, settings.toolEnv(), null);
        } catch (IOException e) {
            throw new CapacityException("Slurm's command line does not answer: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CapacityException("interrupted while asking " + tool, e);
        }
    }

    /** The job script: no secret in it (the credential is in the job's environment). */
    static String script(SlurmSettings s, HostJob job) {
        List<String> srun = new ArrayList<>(List.of("srun", "--nodes=1", "--ntasks=1", "--kill-on-bad-exit=0"));
        srun.addAll(SlurmHostStart.task(s.mpflc(), null, job.engineUrl(), s.bind()));
        srun.addAll(List.of("--capacity", String.valueOf(job.cpus())));
        srun.addAll(s.hostArgs());
        StringBuilder b = new StringBuilder("#!/bin/sh\n# MPFL service host ").append(job.hostId())
                .append(" (its credential is in the job's environment)\nexec");
        srun.forEach(w -> b.append(' ').append(SlurmTools.shellWord(w)));
        return b.append('\n').toString();
    }

    /** sbatch's options for one host job. */
    static List<String> sbatch(SlurmSettings s, HostJob job) {
        Set<String> exported = new LinkedHashSet<>(EXPORTED);
        exported.addAll(s.toolEnv().keySet());
        List<String> cmd = new ArrayList<>(List.of("sbatch", "--parsable", "--job-name=" + job.name(), "--nodes=1", "--ntasks=1",
                "--cpus-per-task=" + job.cpus(), "--partition=" + s.partition(), "--export=" + String.join(",", exported),
                "--output=" + s.logDir().resolve(job.name() + ".log")));
        if (s.account() != null) {
            cmd.add("--account=" + s.account());
        }
        if (s.walltime() != null) {
            cmd.add("--time=" + s.walltime());
        }
        return cmd;
    }

    @Override
    public String submit(HostJob job) throws CapacityException {
        Map<String, String> env = new HashMap<>(settings.toolEnv());
        env.put(HostCredential.ENV, job.credential());
        try {
            java.nio.file.Files.createDirectories(settings.logDir());
            String out = SlurmTools.run(sbatch(settings, job), env, script(settings, job)).strip();
            // --parsable: "ID" or "ID;CLUSTER"
            String id = out.lines().reduce((a, b) -> b).orElse("").split(";")[0].strip();
            if (!id.matches("\\d+(_\\d+)?")) {
                // sbatch succeeded but said no id: the job may well exist
                throw CapacityException.outcomeUnknown("sbatch answered no job id: " + out, null);
            }
            return id;
        } catch (IOException e) {
            // sbatch stopped after SlurmTools.WAIT without an answer, slurmctld's reply timed out, or sbatch was killed:
            // slurmctld may have taken the job all the same
            if (SlurmTools.mayHaveReached(e.getMessage())) {
                throw CapacityException.outcomeUnknown(e.getMessage(), e);
            }
            throw new CapacityException(e.getMessage(), e);
        } catch (InterruptedException e) {
            // the engine stops: sbatch is killed, perhaps after slurmctld took the job
            Thread.currentThread().interrupt();
            throw CapacityException.outcomeUnknown("interrupted while submitting " + job.name(), e);
        }
    }

    @Override
    public void cancel(String jobId) throws CapacityException {
        try {
            SlurmTools.run(List.of("scancel", jobId), settings.toolEnv(), null);
        } catch (IOException e) {
            throw new CapacityException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CapacityException("interrupted while cancelling Slurm job " + jobId, e);
        }
    }

    @Override
    List<JobStatus> jobs(String name) throws CapacityException {
        List<String> cmd = new ArrayList<>(List.of("squeue", "--noheader", "--states=all", "--format=%i|%T|%r|%N"));
        cmd.add("--me");
        if (name != null) {
            cmd.add("--name=" + name);
        }
        try {
            List<JobStatus> out = new ArrayList<>();
            for (String line : SlurmTools.run(cmd, settings.toolEnv(), null).lines().toList()) {
                String[] f = line.strip().split("\\|", -1);
                if (f.length == 4) {
                    out.add(new JobStatus(f[0], phase(f[1]), f[1], f[2], f[3]));
                }
            }
            return out;
        } catch (IOException e) {
            throw new CapacityException(e.getMessage(), e, SlurmTools.noAnswer(e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CapacityException("interrupted while asking squeue", e);
        }
    }
}
