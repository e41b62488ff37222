package org.mpfl.engine.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.mpfl.engine.EngineConfig;
import java.net.URI;
import org.mpfl.engine.capacity.CapacityException;
import org.mpfl.engine.capacity.CapacityProvider;
import org.mpfl.engine.capacity.CapacitySettings;
import org.mpfl.engine.capacity.slurm.SlurmCommandLine;
import org.mpfl.engine.capacity.slurm.SlurmRest;
import org.mpfl.engine.capacity.slurm.SlurmSettings;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.UsageException;

/**
 * {@code mpflc up}'s capacity-on-demand options, declared once: {@code --provider slurm --partition P
 * [--account A] [--max-nodes N] [--walltime T] [--idle-release S] [--cpus-per-node K] [--poll-interval S] [--join-timeout S]}, and
 * for the REST
 * path {@code --slurmrestd URL --slurm-jwt-file F} (docs/deployment.md, "Capacity from Slurm").
 */
final class ProviderOptions {
    /** How often Slurm is asked about the jobs unless {@code --poll-interval} says otherwise (seconds). */
    static final int DEFAULT_POLL_S = 1;
    /** The longest {@code --poll-interval}: beyond it a job's host would join, or its end be seen, far too late. */
    static final int MAX_POLL_S = 300;

    private ProviderOptions() {
    }

    /** The options, for a command that serves ({@code mpflc up}), as {@link AccessOptions#serving} and TlsOptions'. */
    static ArgumentSpec serving(ArgumentSpec spec) {
        return spec
                .value("--provider", "NAME", "bring hosts for queued runs from a scheduler: slurm")
                .value("--partition", "P", "--provider slurm: the partition the jobs go to")
                .value("--account", "A", "--provider slurm: the account the jobs are charged to")
                .value("--max-nodes", "N", "1", "never more nodes (one job each) at once")
                .value("--walltime", "T", "the jobs' time limit (Slurm's notation, e.g. 1:00:00; default: the partition's)")
                .value("--idle-release", "S", "300", "release a node whose host held no rank for S seconds while no run waited")
                .value("--cpus-per-node", "K", "1", "the CPUs each job asks for, and its host's capacity (ranks)")
                .value("--join-timeout", "S", String.valueOf(CapacitySettings.DEFAULT_JOIN_TIMEOUT.toSeconds()),
                        "cancel a job that ran S seconds without its host joining (the node cannot reach the engine)")
                .value("--poll-interval", "S", "how often Slurm is asked about the jobs, in whole seconds (default "
                        + DEFAULT_POLL_S + ", at most " + MAX_POLL_S + ")")
                .value("--slurmrestd", "URL", "talk to Slurm through slurmrestd at URL (else its command line)")
                .value("--slurm-jwt-file", "F", "--slurmrestd: the file holding the JWT (scontrol token) it authenticates with")
                .value("--node-mpflc", "PATH", "the mpflc the nodes run (default: bin/mpflc of this installation)")
                .value("--node-bind", "ADDR", "the nodes' hosts' address (default: the address each node's name resolves to)")
                .repeatable("--node-host-arg", "A", "one more argument for every 'mpflc host' on a node")
                .value("--job-log-dir", "DIR", "where the jobs' output goes, on a file system the nodes share (default DATA/slurm-jobs)");
    }

    /**
     * Applies the options: a provider in the configuration when {@code --provider} is given, once it
     * answered (a wrong partition, an unreachable slurmrestd or a refused JWT stops {@code mpflc up} here).
     */
    static EngineConfig apply(Arguments a, EngineConfig config) throws UsageException, CapacityException {
        for (String o : new String[] {"--partition", "--account", "--walltime", "--slurmrestd", "--slurm-jwt-file", "--node-mpflc",
                "--node-bind", "--job-log-dir", "--poll-interval", "--join-timeout"}) {
            if (a.has(o) && !a.has("--provider")) {
                throw new UsageException(o + " applies to --provider slurm only");
            }
        }
        if (!a.has("--provider")) {
            return config;
        }
        if (!a.value("--provider").equals("slurm")) {
            throw new UsageException("--provider: the only provider is 'slurm', got '" + a.value("--provider") + "'");
        }
        if (!a.has("--partition")) {
            throw new UsageException("--provider slurm needs --partition P (sinfo lists them)");
        }
        int maxNodes = a.intValue("--max-nodes");
        int cpus = a.intValue("--cpus-per-node");
        int idle = a.intValue("--idle-release");
        if (maxNodes < 1 || cpus < 1 || idle < 0) {
            throw new UsageException("--max-nodes and --cpus-per-node must be at least 1, --idle-release at least 0");
        }
        int poll = pollSeconds(a.value("--poll-interval"));
        int join = a.intValue("--join-timeout");
        if (join < 1) {
            throw new UsageException("--join-timeout must be at least 1 second, got " + join);
        }
        String walltime = a.value("--walltime");
        if (walltime != null && !walltime.matches("(\\d+-)?\\d+(:\\d{1,2}){0,2}")) {
            throw new UsageException("--walltime: Slurm's notation (MINUTES, H:MM:SS or D-H:MM:SS), got '" + walltime + "'");
        }
        String mpflc = a.has("--node-mpflc") ? a.value("--node-mpflc") : SlurmCommand.defaultMpflc();
        Path logs = a.has("--job-log-dir") ? a.path("--job-log-dir").toAbsolutePath()
                : config.dataDir().resolve("slurm-jobs").toAbsolutePath();
        SlurmSettings slurm = new SlurmSettings(a.value("--partition"), a.value("--account"), walltime, mpflc, a.value("--node-bind"),
                a.values("--node-host-arg"), logs, Map.of());
        CapacityProvider provider;
        if (a.has("--slurmrestd") != a.has("--slurm-jwt-file")) {
            throw new UsageException("--slurmrestd URL and --slurm-jwt-file F go together");
        }
        if (a.has("--slurmrestd")) {
            URI url;
            try {
                url = URI.create(a.value("--slurmrestd"));
            } catch (IllegalArgumentException e) {
                throw new UsageException("--slurmrestd: not a URL: " + e.getMessage());
            }
            if (!"http".equals(url.getScheme()) && !"https".equals(url.getScheme())) {
                throw new UsageException("--slurmrestd must be an http(s) URL, got '" + url + "'");
            }
            provider = new SlurmRest(url, a.path("--slurm-jwt-file").toAbsolutePath(), slurm);
        } else {
            provider = new SlurmCommandLine(slurm);
        }
        provider.check();
        provider.checkJobSize(cpus);
        return config.capacity(provider, new CapacitySettings(maxNodes, cpus, Duration.ofSeconds(idle), Duration.ofSeconds(poll),
                Duration.ofSeconds(join)));
    }

    /** {@code --poll-interval}: whole seconds from 1 to {@link #MAX_POLL_S}; {@link #DEFAULT_POLL_S} when not given. */
    static int pollSeconds(String given) throws UsageException {
        if (given == null) {
            return DEFAULT_POLL_S;
        }
        int s;
        try {
            s = Integer.parseInt(given.strip());
        } catch (NumberFormatException e) {
            throw new UsageException("--poll-interval: a whole number of seconds (1 to " + MAX_POLL_S + "), got '" + given + "'");
        }
        if (s < 1 || s > MAX_POLL_S) {
            throw new UsageException("--poll-interval must be 1 to " + MAX_POLL_S + " seconds (Slurm is asked that often about"
                    + " the jobs), got " + s);
        }
        return s;
    }

    /** The start-up banner's line about capacity from a provider, or {@code null} without one. */
    static String banner(Arguments a) throws UsageException {
        if (!a.has("--provider")) {
            return null;
        }
        return "capacity from Slurm: partition " + a.value("--partition") + " through "
                + (a.has("--slurmrestd") ? "slurmrestd at " + a.value("--slurmrestd") : "sbatch") + ", up to "
                + a.intValue("--max-nodes") + " job(s) of one node with " + a.intValue("--cpus-per-node") + " CPU(s), each released"
                + " after " + a.intValue("--idle-release") + " s without ranks, Slurm asked every " + pollSeconds(a.value("--poll-interval"))
                + " s, a job whose host has not joined after " + a.intValue("--join-timeout")
                + " s is cancelled: queued runs start as their hosts join";
    }
}
