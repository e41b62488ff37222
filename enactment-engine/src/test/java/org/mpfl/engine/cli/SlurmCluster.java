package org.mpfl.engine.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.mpfl.testing.childjvm.ChildJvm;
import org.mpfl.ir.files.FileTrees;

/**
 * A single-node Slurm cluster on this machine for tests, made of Debian's {@code slurm-wlm} and
 * {@code munge}: a munge key and {@code munged} with its own socket, a minimal {@code slurm.conf}
 * (this machine's short host name as the only node on 127.0.0.1, its CPU count, free controller and
 * node ports, process tracking without cgroups, every state and spool directory inside a temporary
 * directory), and {@code slurmctld -D} and {@code slurmd -D} as child processes. Clients find it
 * through {@link #environment()} ({@code SLURM_CONF}). {@link #close()} cancels what is left, stops
 * the daemons (no daemon or job step survives) and deletes the directory.
 *
 * <p>Needs root (slurmd starts job steps as the submitting user). Where the binaries or root are
 * missing {@link #start} fails naming what is missing, unless {@value #SKIP_ENV}{@code =1} is set, in
 * which case the calling test is skipped with that message.
 */
final class SlurmCluster implements AutoCloseable {
    /** Set to {@code 1} to skip (not fail) the Slurm tests where Slurm cannot run. */
    static final String SKIP_ENV = "MPFL_SKIP_SLURM";
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final Path dir;
    private final String node;
    private final Map<String, String> env = new HashMap<>();
    private final List<Process> daemons = new ArrayList<>();

    private SlurmCluster(Path dir, String node) {
        this.dir = dir;
        this.node = node;
    }

    static SlurmCluster start() throws Exception {
        String missing = missing();
        if (missing != null) {
            if ("1".equals(System.getenv(SKIP_ENV))) {
                Assumptions.abort(missing + " (" + SKIP_ENV + "=1)");
            }
            throw new IllegalStateException(missing + "; .ci/run installs slurm-wlm and munge (set " + SKIP_ENV
                    + "=1 to skip these tests on purpose)");
        }
        Path dir = Files.createTempDirectory("mpfl-slurm-");
        // munged wants its socket directory traversable by all and its key directory private
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        String node = run(List.of("hostname", "-s"), Map.of()).strip();
        SlurmCluster c = new SlurmCluster(dir, node);
        try {
            c.boot();
            return c;
        } catch (Exception | AssertionError e) {
            c.close();
            throw e;
        }
    }

    private static String missing() {
        for (String tool : List.of("/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/sbin/mungekey",
                "/usr/bin/sbatch", "/usr/bin/srun")) {
            if (!Files.isExecutable(Path.of(tool))) {
                return "the Slurm tests need " + tool + " (Debian's slurm-wlm and munge)";
            }
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return "the Slurm tests need root (slurmd starts job steps as the submitting user)";
        }
        return null;
    }

    private void boot() throws Exception {
        Path key = Files.createDirectories(dir.resolve("munge-key"));
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rwx------"));
        Path run = Files.createDirectories(dir.resolve("run"));
        Path log = Files.createDirectories(dir.resolve("log"));
        Files.createDirectories(dir.resolve("state"));
        Files.createDirectories(dir.resolve("spool"));
        run(List.of("mungekey", "--create", "--keyfile=" + key.resolve("munge.key"), "--bits=1024"), Map.of());
        Path socket = run.resolve("munge.socket");
        daemon(List.of("munged", "--foreground", "--socket=" + socket, "--key-file=" + key.resolve("munge.key"),
                "--log-file=" + log.resolve("munged.log"), "--pid-file=" + run.resolve("munged.pid"),
                "--seed-file=" + key.resolve("munged.seed")), log.resolve("munged.out"));
        awaitFile(socket);
        // slurmctld accepts JWTs (scontrol token) beside munge, for slurmrestd's clients
        Path jwtKey = key.resolve("jwt_hs256.key");
        byte[] jwtSecret = new byte[32];
        new java.security.SecureRandom().nextBytes(jwtSecret);
        Files.write(jwtKey, jwtSecret);
        Files.setPosixFilePermissions(jwtKey, PosixFilePermissions.fromString("rw-------"));
        int cpus = Runtime.getRuntime().availableProcessors();
        String conf = String.join("\n",
                "ClusterName=mpfltest",
                "SlurmctldHost=" + node + "(127.0.0.1)",
                "SlurmctldPort=" + freePort(),
                "SlurmdPort=" + freePort(),
                "SlurmUser=root",
                "SlurmdUser=root",
                "AuthType=auth/munge",
                "AuthInfo=socket=" + socket,
                "CredType=cred/munge",
                "AuthAltTypes=auth/jwt",
                "AuthAltParameters=jwt_key=" + jwtKey,
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=task/none",
                "JobAcctGatherType=jobacct_gather/none",
                "AccountingStorageType=accounting_storage/none",
                "SelectType=select/linear",
                "SchedulerType=sched/builtin",
                // test-only: schedule a batch job when it is submitted, not up to 3 s later (the default delay
                // batches submissions on busy sites); measured 0.5-2.7 s per sbatch here, about 15 s of the two
                // Slurm test classes
                "SchedulerParameters=batch_sched_delay=0",
                "MpiDefault=none",
                "ReturnToService=2",
                "InactiveLimit=0",
                "KillWait=5",
                "StateSaveLocation=" + dir.resolve("state"),
                "SlurmdSpoolDir=" + dir.resolve("spool"),
                "SlurmctldPidFile=" + run.resolve("slurmctld.pid"),
                "SlurmdPidFile=" + run.resolve("slurmd.pid"),
                "SlurmctldLogFile=" + log.resolve("slurmctld.log"),
                "SlurmdLogFile=" + log.resolve("slurmd.log"),
                "NodeName=" + node + " NodeAddr=127.0.0.1 CPUs=" + cpus + " State=UNKNOWN",
                "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP", "");
        Path confFile = Files.writeString(dir.resolve("slurm.conf"), conf, StandardCharsets.UTF_8);
        env.put("SLURM_CONF", confFile.toString());
        daemon(List.of("slurmctld", "-D", "-f", confFile.toString()), log.resolve("slurmctld.out"));
        daemon(List.of("slurmd", "-D", "-f", confFile.toString()), log.resolve("slurmd.out"));
        long end = System.nanoTime() + WAIT.toNanos();
        String state = "";
        while (System.nanoTime() < end) {
            for (Process d : daemons) {
                if (!d.isAlive()) {
                    throw new IOException("a Slurm daemon exited (" + d.exitValue() + ")" + logs());
                }
            }
            try {
                state = run(List.of("sinfo", "-h", "-N", "-o", "%T"), env).strip();
                if (state.equals("idle")) {
                    return;
                }
            } catch (IOException e) {
                state = e.getMessage();
            }
            Thread.sleep(250);
        }
        throw new IOException("the test Slurm node is not idle within " + WAIT.toSeconds() + " s: " + state + logs());
    }

    /**
     * Writes {@code DIR/mpflc}: what {@code bin/mpflc} does after the build, with this test's class path
     * (the build has not packaged yet); the nodes run it.
     */
    static Path mpflcScript(Path dir) throws IOException {
        Path mpflc = dir.resolve("mpflc");
        // the test's child JVM command (its class path and CDS archive), each word quoted: paths hold no quote
        List<String> java = ChildJvm.command(ChildJvm.shortLivedOptions("256m"), Mpflc.class.getName());
        Files.writeString(mpflc, "#!/bin/sh\nexec '" + String.join("' '", java) + "' \"$@\"\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(mpflc, PosixFilePermissions.fromString("rwx------"));
        return mpflc;
    }

    /**
     * Starts slurmrestd on a free loopback port with JWT authentication only ({@code rest_auth/jwt});
     * returns its URL. As a site would: {@code SLURM_JWT=daemon} (it passes each client's JWT on to
     * slurmctld) and, started as root, it drops to {@code nobody} ({@code -u}) once it listens.
     * {@link #close} stops it.
     */
    String startRestd() throws IOException, InterruptedException {
        int port = freePort();
        Map<String, String> restEnv = new HashMap<>(env);
        restEnv.put("SLURM_JWT", "daemon");
        ProcessBuilder pb = new ProcessBuilder("slurmrestd", "-f", env.get("SLURM_CONF"), "-a", "rest_auth/jwt", "-s", "openapi/v0.0.38",
                "-u", "nobody", "127.0.0.1:" + port).redirectErrorStream(true).redirectOutput(dir.resolve("log").resolve("slurmrestd.out").toFile());
        pb.environment().putAll(restEnv);
        daemons.add(pb.start());
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < end) {
            try (java.net.Socket s = new java.net.Socket(InetAddress.getLoopbackAddress(), port)) {
                return "http://127.0.0.1:" + port;
            } catch (IOException e) {
                Thread.sleep(200);
            }
        }
        throw new IOException("slurmrestd did not listen within " + WAIT.toSeconds() + " s" + logs());
    }

    /** A JWT for root from {@code scontrol token}, valid for this many seconds. */
    String token(int lifespanSeconds) throws IOException, InterruptedException {
        String out = run(List.of("scontrol", "token", "lifespan=" + lifespanSeconds), env).strip();
        if (!out.startsWith("SLURM_JWT=")) {
            throw new IOException("scontrol token answered: " + out);
        }
        return out.substring("SLURM_JWT=".length());
    }

    /** The node's name (this machine's short host name). */
    String node() {
        return node;
    }

    /** What a Slurm client (sbatch, scontrol, srun) needs in its environment to use this cluster. */
    Map<String, String> environment() {
        return Map.copyOf(env);
    }

    /** The daemons' logs, for failure messages. */
    String logs() {
        StringBuilder b = new StringBuilder();
        try (Stream<Path> files = Files.list(dir.resolve("log"))) {
            for (Path f : files.sorted().toList()) {
                List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                b.append("\n--- ").append(f.getFileName()).append(':');
                lines.subList(Math.max(0, lines.size() - 15), lines.size()).forEach(l -> b.append("\n").append(l));
            }
        } catch (IOException e) {
            b.append("\n(no logs: ").append(e.getMessage()).append(')');
        }
        return b.toString();
    }

    @Override
    public void close() {
        try {
            if (env.containsKey("SLURM_CONF") && daemons.size() >= 3 && daemons.stream().allMatch(Process::isAlive)) {
                // end every job first, so that no slurmstepd (and no host it started) outlives slurmd
                run(List.of("scancel", "--full", "--user=root"), env);
                long end = System.nanoTime() + WAIT.toNanos();
                while (System.nanoTime() < end && !run(List.of("squeue", "-h", "-o", "%i"), env).isBlank()) {
                    Thread.sleep(250);
                }
            }
        } catch (IOException e) {
            // the daemons are stopped below anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (int i = daemons.size() - 1; i >= 0; i--) {
            Process d = daemons.get(i);
            d.destroy();
            try {
                if (!d.waitFor(20, TimeUnit.SECONDS)) {
                    d.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                d.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        FileTrees.deleteQuietly(dir);
    }

    private void daemon(List<String> cmd, Path out) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().putAll(env);
        daemons.add(pb.start());
    }

    /** Runs a tool to its end (bounded) and returns its output; a non-zero exit is an IOException with it. */
    static String run(List<String> cmd, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            if (!p.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IOException(cmd + " did not finish within " + WAIT.toSeconds() + " s");
            }
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException(cmd + " failed (exit " + p.exitValue() + "): " + text.strip());
            }
            return text;
        } finally {
            p.destroyForcibly();
        }
    }

    private static void awaitFile(Path f) throws IOException, InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!Files.exists(f)) {
            if (System.nanoTime() > end) {
                throw new IOException(f + " did not appear within " + WAIT.toSeconds() + " s");
            }
            Thread.sleep(50);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
