package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.mpfl.engine.capacity.slurm.SlurmHostStart;
import org.mpfl.engine.capacity.slurm.SlurmTools;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.CliSettings;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.EngineReach;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.Sites;
import org.mpfl.protocol.tls.TlsOptions;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * {@code mpflc slurm --credentials DIR [--engine URL] [--bind ADDR] [--site NAME] [--host-arg A]… [--ready-timeout S]
 * [--log-dir D] [--mpflc PATH] [--run FILE [run options…]]}, inside a Slurm allocation ({@code sbatch} or
 * {@code salloc}): starts one service host per allocated node as one {@code srun} step, each enrolled
 * with the engine with its node's credential {@code DIR/NODE.credential} (a join file from
 * {@code mpflc host-token --host-id NODE}; readable by its owner only, else refused), and waits until
 * the engine lists every one of them. With {@code --run}, the rest of the command line is an
 * {@code mpflc run} (given {@code --engine} unless it has one): the workflow runs on those hosts, then
 * the hosts are stopped and the run's exit status is this command's. Without it, the hosts serve until
 * the allocation ends (Slurm ends the step; the hosts leave the engine's registry on SIGTERM) or this
 * command is interrupted. Every host says it is in site {@code --site NAME}, by default the Slurm
 * cluster's name ({@code SLURM_CLUSTER_NAME}), else {@value Sites#DEFAULT}: the nodes of one cluster are one
 * site, so that the engine packs a run within one cluster while it fits. See {@code docs/deployment.md},
 * section "Slurm".
 *
 * <p>Why a Java command rather than a shell script: it waits for the engine to list the hosts (with the
 * same client, TLS and all, as {@code mpflc run}) instead of for a log line, and the run that follows is
 * {@link RunCommand} itself.
 */
public final class SlurmCommand implements CliCommand {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("slurm", "Inside a Slurm allocation: starts one service host per"
            + " allocated node (one srun step), each enrolled with its node's credential, and waits until the engine lists them.")
            .value("--credentials", "DIR", "the nodes' credentials, DIR/NODE.credential each (mode 0600)")
            .value("--engine", "URL", "the engine (else the one the credentials name)")
            .value("--bind", "ADDR", "the hosts' address (else the address each node's name resolves to)")
            .value("--site", "NAME", "the site of these hosts (default: $SLURM_CLUSTER_NAME, else " + Sites.DEFAULT + ")")
            .repeatable("--host-arg", "A", "one more argument for every 'mpflc host'")
            .value("--ready-timeout", "S", "120", "how long to wait for every host to enrol")
            .value("--log-dir", "D", "the hosts' logs (default mpfl-slurm-JOB)")
            .value("--mpflc", "PATH", "the mpflc the nodes run (default: bin/mpflc of this installation)")
            .with(TlsOptions::serving)
            .rest("--run", "FILE [RUN OPTIONS]", "then run the workflow on those hosts (the rest is an 'mpflc run'), stop the"
                    + " hosts and exit with the run's status")
            .note("See docs/deployment.md, section \"Slurm\".");
    /** How long stopping the host step may take. */
    private static final Duration TOOL_WAIT = SlurmTools.WAIT;

    @Override
    public String name() {
        return "slurm";
    }

    @Override
    public String summary() {
        return "--credentials DIR [--bind ADDR] [--run FILE …]  in a Slurm allocation: one service host per node (srun)";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        if (args.has("--engine")) {
            // before the allocation's checks: the hosts and the run would each refuse it, after srun
            EngineReach.checkedUrl(args.value("--engine"), "--engine");
        }
        List<String> hostArgs = args.values("--host-arg");
        List<String> runArgs = args.rest() == null ? null : new ArrayList<>(args.rest());
        if (runArgs != null && runArgs.isEmpty()) {
            throw new UsageException("--run needs a workflow FILE (and any 'mpflc run' options after it)");
        }
        String job = System.getenv("SLURM_JOB_ID");
        String nodeList = System.getenv("SLURM_JOB_NODELIST");
        if (job == null || nodeList == null) {
            throw new UsageException("mpflc slurm runs inside a Slurm allocation (SLURM_JOB_ID and SLURM_JOB_NODELIST unset):"
                    + " sbatch -N 4 --wrap 'mpflc slurm --credentials DIR --run FILE', or salloc -N 4 mpflc slurm …");
        }
        if (!args.has("--credentials")) {
            throw new UsageException("give the directory of the nodes' credentials: --credentials DIR (NODE.credential each)");
        }
        Path credentials = args.path("--credentials").toAbsolutePath();
        int readySeconds = args.intValue("--ready-timeout");
        if (readySeconds < 1) {
            throw new UsageException("--ready-timeout must be at least 1 (seconds)");
        }

        List<String> nodes = nodes(nodeList);
        Map<String, String> hostIds = new LinkedHashMap<>();
        List<HostCredential> nodeCredentials = new ArrayList<>();
        String engine = args.value("--engine");
        for (String node : nodes) {
            HostCredential c = nodeCredential(credentials, node);
            hostIds.put(node, c.hostId());
            nodeCredentials.add(c);
            if (engine == null && c.engineUrl() != null) {
                engine = c.engineUrl();
            }
        }
        if (engine == null) {
            throw new UsageException("no engine URL: give --engine URL (the credentials do not name one)");
        }
        if (runArgs != null && !RunCommand.wouldStart(runArgs, err)) {
            // before srun: a document that cannot run must not cost the allocation its hosts' start
            return 1;
        }
        String mpflc = args.has("--mpflc") ? args.value("--mpflc") : defaultMpflc();
        Path logs = Path.of(args.value("--log-dir", "mpfl-slurm-" + job)).toAbsolutePath();
        Files.createDirectories(logs);

        List<String> cmd = new ArrayList<>(List.of("srun", "--nodes=" + nodes.size(), "--ntasks=" + nodes.size(),
                "--ntasks-per-node=1", "--kill-on-bad-exit=0", "--job-name=mpfl-hosts",
                "--output=" + logs.resolve("host-%N.log")));
        // each task picks its own node's credential (the host start the Slurm capacity provider's jobs share)
        cmd.addAll(SlurmHostStart.task(mpflc, credentials.toString(), engine, args.value("--bind")));
        TlsSettings tls = TlsOptions.of(args);
        // the TLS flags are every host's too (docs/cli.md): they serve with them and trust the engine's CA;
        // a keystore password from the environment reaches the tasks the way srun passes the environment
        cmd.addAll(tls.childArguments());
        cmd.addAll(List.of("--site", site(args.value("--site"), System.getenv("SLURM_CLUSTER_NAME"))));
        cmd.addAll(hostArgs);
        // each node's host is looked up with that node's own credential: no admin token is needed (nor at hand in a job)
        Map<String, EngineClient> asHosts = new LinkedHashMap<>();
        for (HostCredential c : nodeCredentials) {
            asHosts.put(c.hostId(), new EngineClient(engine, c.id() + "." + c.secret(), tls));
        }
        // hosts listed now are of an earlier job (e.g. killed a moment ago, not yet expired): wait for new ones
        Map<String, String> before = instances(asHosts);
        ProcessBuilder step = new ProcessBuilder(cmd);
        step.environment().putAll(tls.childEnvironment(System::getenv));
        Process srun = step.redirectErrorStream(true).redirectOutput(logs.resolve("srun.log").toFile())
                .start();
        Thread stopper = new Thread(() -> stop(srun), "mpfl-slurm-stop");
        Runtime.getRuntime().addShutdownHook(stopper);
        try {
            awaitHosts(asHosts, before, srun, logs, Duration.ofSeconds(readySeconds));
            err.println("mpflc slurm: " + nodes.size() + " service host(s) enrolled with " + engine + " on " + String.join(",", nodes)
                    + " (job " + job + "; host logs in " + logs + ")");
            err.flush();
            if (runArgs == null) {
                err.println("mpflc slurm: the hosts serve until the allocation ends (scancel " + job + ") or this command stops");
                err.flush();
                return srun.waitFor();
            }
            if (!runArgs.contains("--engine") && runArgs.stream().noneMatch(a -> a.startsWith("--engine="))) {
                runArgs.addAll(List.of("--engine", engine));
            }
            if (!runArgs.contains("--queue-timeout") && runArgs.stream().noneMatch(a -> a.startsWith("--queue-timeout="))) {
                // the allocation's hosts are there now and no more will come: a run that does not fit them (more ranks
                // than their slots) would hold the allocation until its wall time, so it fails, saying why
                runArgs.addAll(List.of("--queue-timeout", Integer.toString(readySeconds)));
            }
            return new RunCommand().run(runArgs, out, err);
        } finally {
            stop(srun);
            try {
                Runtime.getRuntime().removeShutdownHook(stopper);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down: the hook stops srun
            }
        }
    }

    /**
     * The site of the allocation's hosts: {@code --site}, else the cluster's name as Slurm gives it to the
     * job, else the default site.
     */
    static String site(String given, String clusterName) throws UsageException {
        try {
            if (given != null) {
                return Sites.of(given);
            }
            return clusterName == null || clusterName.isBlank() ? Sites.DEFAULT : Sites.of(clusterName);
        } catch (IllegalArgumentException e) {
            throw new UsageException((given != null ? "--site: " : "$SLURM_CLUSTER_NAME (give --site NAME): ") + e.getMessage());
        }
    }

    /** The allocation's node names ({@code scontrol show hostnames}, which expands {@code node[1-4]}). */
    static List<String> nodes(String nodeList) throws IOException, InterruptedException {
        String text;
        try {
            text = SlurmTools.run(List.of("scontrol", "show", "hostnames", nodeList), Map.of(), null);
        } catch (IOException e) {
            throw new IOException("cannot expand the allocation's node list " + nodeList + ": " + e.getMessage(), e);
        }
        List<String> nodes = text.lines().map(String::strip).filter(s -> !s.isEmpty()).toList();
        if (nodes.isEmpty()) {
            throw new IOException("the allocation has no nodes (SLURM_JOB_NODELIST=" + nodeList + ")");
        }
        return nodes;
    }

    /** A node's credential: present, readable by its owner only (like an SSH key), well-formed. */
    static HostCredential nodeCredential(Path dir, String node) throws IOException, UsageException {
        Path file = dir.resolve(node + ".credential");
        if (!Files.isRegularFile(file)) {
            throw new UsageException("no credential for node " + node + ": " + file + " (make it where the engine runs with"
                    + " mpflc host-token --engine URL --host-id " + node + " -o " + file + ")");
        }
        try {
            return HostCredential.readPrivate(file);
        } catch (IOException e) {
            throw new UsageException(e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage()); // names the file and what is wrong (HostCredential.parse)
        }
    }

    /** The {@code bin/mpflc} of this installation (what the nodes run unless told otherwise). */
    static String defaultMpflc() throws UsageException {
        String home = CliSettings.HOME.get();
        if (home == null) {
            throw new UsageException("cannot tell where bin/mpflc is (no -Dmpfl.home): give --mpflc PATH (mpflc slurm) or --node-mpflc PATH (mpflc up --provider)");
        }
        return Path.of(home, "bin", "mpflc").toString();
    }

    /** The process (instance) the engine lists under {@code hostId}, asked with that host's own credential. */
    private static String instanceOf(EngineClient asHost, String hostId) throws IOException, InterruptedException {
        return asHost.get("/api/registry/hosts/" + hostId).path("instance").asText("");
    }

    /**
     * The instance of each host the engine lists now (an earlier job's, if any), by host id. An engine out of reach ends
     * the command here, before srun: hosts started against it would wait for it until {@code --ready-timeout}.
     */
    private static Map<String, String> instances(Map<String, EngineClient> asHosts) throws IOException, InterruptedException {
        Map<String, String> out = new HashMap<>();
        for (Map.Entry<String, EngineClient> h : asHosts.entrySet()) {
            try {
                out.put(h.getKey(), instanceOf(h.getValue(), h.getKey()));
            } catch (EngineClient.EngineException e) {
                // not listed (404), or a refused credential, which the wait reports with what to do
            } catch (IOException e) {
                throw new IOException(e.getMessage() + "; no host was started", e);
            }
        }
        return out;
    }

    /**
     * Waits until the engine lists every host — each looked up with its own credential — from a host process other
     * than the one listed before the step started (a stale entry of a killed host is not a host of this job); fails
     * early when the srun step ends first, or when the engine refuses a node's credential with its mark
     * ({@link EngineRefusal#refusesCredential}: revoked, unknown, a relay's, or another host's — waiting would not mend
     * it). A 401 or 403 without the mark is not the engine's word (a reverse proxy in front of it while it reloads, its
     * login): it is the last error, and the wait goes on until {@code timeout}.
     */
    static void awaitHosts(Map<String, EngineClient> asHosts, Map<String, String> before, Process srun, Path logs,
                                   Duration timeout) throws IOException, InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        Set<String> listed = new HashSet<>();
        String lastError = "";
        while (true) {
            for (Map.Entry<String, EngineClient> h : asHosts.entrySet()) {
                String id = h.getKey();
                if (listed.contains(id)) {
                    continue;
                }
                try {
                    String instance = instanceOf(h.getValue(), id);
                    if (!before.containsKey(id) || !instance.isEmpty() && !instance.equals(before.get(id))) {
                        listed.add(id);
                    }
                } catch (EngineClient.EngineException e) {
                    if (e.mark().filter(EngineRefusal::refusesCredential).isPresent()) {
                        throw new IOException("the engine refuses the credential of host " + id + " (" + e.getMessage() + "): "
                                + (e.mark().get() == EngineRefusal.CREDENTIAL_FOREIGN
                                ? "the engine issued it for another host than the hostId " + id + " its file names (edited, or"
                                        + " put together from two credentials)"
                                : "revoked, or issued by another engine") + "; make a new one with mpflc host-token --host-id " + id);
                    }
                    lastError = e.status() == 404 ? "" : " (engine: " + e.getMessage() + (e.status() == 401 || e.status() == 403
                            ? "; without the engine's " + EngineRefusal.HEADER + " mark, not its refusal of the credential" : "") + ")";
                } catch (IOException e) {
                    lastError = " (engine: " + e.getMessage() + ")";
                }
            }
            if (listed.containsAll(asHosts.keySet())) {
                return;
            }
            if (!srun.isAlive()) {
                throw new IOException("the service hosts' srun step ended (exit " + srun.exitValue() + ") before every host"
                        + " enrolled" + lastError + "; see " + logs + "/host-NODE.log and srun.log" + tails(logs));
            }
            if (System.nanoTime() > end) {
                Set<String> missing = new HashSet<>(asHosts.keySet());
                missing.removeAll(listed);
                throw new IOException("hosts " + missing + " did not enroll with the engine within " + timeout.toSeconds() + " s"
                        + lastError + "; see " + logs + tails(logs));
            }
            Thread.sleep(250);
        }
    }

    private static String tails(Path logs) {
        StringBuilder b = new StringBuilder();
        try (var files = Files.list(logs)) {
            for (Path f : files.sorted().toList()) {
                List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                b.append("\n--- ").append(f.getFileName()).append(" (last lines):");
                lines.subList(Math.max(0, lines.size() - 5), lines.size()).forEach(l -> b.append("\n").append(l));
            }
        } catch (IOException e) {
            b.append("\n(cannot read the logs: ").append(e.getMessage()).append(")");
        }
        return b.toString();
    }

    /** Ends the host step: SIGTERM to srun (which forwards it to every host), then SIGKILL after a grace period. */
    private static void stop(Process srun) {
        if (!srun.isAlive()) {
            return;
        }
        srun.destroy();
        try {
            if (!srun.waitFor(TOOL_WAIT.toSeconds(), TimeUnit.SECONDS)) {
                srun.destroyForcibly().waitFor(TOOL_WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            srun.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
