package org.mpfl.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliSettings;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.ir.files.FileTrees;

/**
 * The peers ({@code ../shared/peers/}: MPJ Express and Open MPI, with their own benchmark scripts)
 * for the benchmark commands: where they are, whether they are installed, running their scripts in
 * the same invocation, and otherwise their stored results.
 *
 * <p>The peers' directory is never written to: its scripts build next to themselves, so a script
 * and the source it compiles are copied into a private temporary directory at run time and run
 * from there, with {@code RES_DIR} (the CSVs and logs) in another temporary directory that is kept
 * and named in the progress output. Every process the script leaves — among them MPJ Express's
 * daemon, which the script starts in the background — is stopped when the run ends, fails, times
 * out or the command is interrupted (a shutdown hook).
 */
public final class PeerRuns {
    /** Where Debian's {@code libmpj-java} puts MPJ Express. */
    public static final Path MPJ_JAR = Path.of("/usr/share/mpj/lib/mpj.jar");
    private static final Duration RUN_LIMIT = Duration.ofMinutes(30);

    private PeerRuns() {
    }

    /**
     * The peer options the benchmark commands share: {@code --with-peers} (every installed peer),
     * {@code --with-mpj}, {@code --with-ompi}, {@code --peers DIR}.
     *
     * @param quietWait the scripts' {@code QUIET_WAIT}: seconds each run may wait for an idle machine
     */
    public record Options(boolean mpj, boolean ompi, Path peersDir, int quietWait) {
        public static Options defaults() {
            return new Options(false, false, null, 0);
        }

        /** Declares the peer options on a bench command's arguments. */
        public static ArgumentSpec declare(ArgumentSpec spec) {
            return spec
                    .flag("--with-peers", "run every installed peer's benchmark in this invocation (MPJ Express and Open MPI)")
                    .flag("--with-mpj", "run MPJ Express's benchmark in this invocation")
                    .flag("--with-ompi", "run Open MPI's benchmark in this invocation")
                    .value("--peers", "DIR", "the peers' directory (default $MPFL_PEERS, else ../shared/peers)")
                    .value("--quiet-wait", "S", "0", "seconds each peer run may wait for an idle machine");
        }

        /** The peer options given. */
        public static Options of(Arguments a) throws UsageException {
            boolean all = a.flag("--with-peers");
            return new Options(all || a.flag("--with-mpj"), all || a.flag("--with-ompi"), a.path("--peers"),
                    (int) a.number("--quiet-wait"));
        }

        public Options quietWait(int seconds) {
            return new Options(mpj, ompi, peersDir, seconds);
        }

        /** The peers' directory: {@code --peers}, else {@link PeerRuns#peersDir()}. */
        public Path dir() {
            return peersDir != null ? peersDir : PeerRuns.peersDir();
        }
    }

    /**
     * What to run for one command: the scripts' {@code WHAT} ({@code p2p} or {@code coll}), the rank
     * counts ({@code PROCS}), the iteration scale ({@code SCALE}), MPJ Express devices
     * ({@code DEVICES}) and Open MPI modes ({@code MODES}).
     */
    public record Request(String what, List<Integer> procs, double scale, List<String> mpjDevices, List<String> ompiModes) {
    }

    /**
     * The peers' directory: {@code $MPFL_PEERS}, else {@code ../shared/peers} next to the project
     * ({@code -Dmpfl.home}, set by {@code bin/mpflc}, or the nearest directory above the working
     * directory holding {@code bin/mpflc}).
     */
    public static Path peersDir() {
        String env = BenchSettings.PEERS.raw();
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        String home = CliSettings.HOME.get();
        Path root = home != null ? Path.of(home).toAbsolutePath() : null;
        if (root == null) {
            for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
                if (Files.isRegularFile(d.resolve("bin/mpflc"))) {
                    root = d;
                    break;
                }
            }
        }
        Path base = root != null && root.getParent() != null ? root.getParent() : Path.of("..").toAbsolutePath().normalize();
        return base.resolve("shared/peers").normalize();
    }

    /** MPJ Express (Debian {@code libmpj-java}) and a Java compiler are installed. */
    public static boolean mpjInstalled() {
        return Files.isRegularFile(MPJ_JAR) && onPath("javac");
    }

    /** Open MPI ({@code openmpi-bin}, {@code libopenmpi-dev}) is installed. */
    public static boolean ompiInstalled() {
        return onPath("mpirun") && onPath("mpicc");
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String d : path.split(java.io.File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }

    /** The stored results of every peer ({@code <peers>/results/}), labelled "stored reference". */
    public static PeerResults stored(Path peers) throws IOException {
        Path dir = peers.resolve("results");
        String label = "stored reference (" + dir + ", not measured in this run)";
        return PeerResults.read(dir, "mpj", label).with(PeerResults.read(dir, "ompi", label));
    }

    /**
     * The peers' numbers a saved run was compared with; a file saved before its rows carried them
     * gets the stored results of {@code peers} instead.
     */
    public static PeerResults ofSaved(PeerResults saved, Path peers) throws IOException {
        return saved.rows().isEmpty() ? stored(peers) : saved;
    }

    /**
     * The peers' numbers for a command: the stored ones, with those of each peer asked for in
     * {@code o} and installed measured now instead (progress and warnings to {@code progress}). A
     * peer that is asked for but not installed, or whose run fails, keeps its stored numbers.
     */
    public static PeerResults compare(Options o, Request req, PrintStream progress) throws IOException, InterruptedException {
        Path peers = o.dir();
        PeerResults result = stored(peers);
        if (o.mpj()) {
            if (!mpjInstalled()) {
                progress.println("[peers] MPJ Express is not installed (" + MPJ_JAR + " or javac missing; Debian package "
                        + "libmpj-java): using the stored reference");
            } else if (!req.mpjDevices().isEmpty()) {
                result = live(result, "mpj", "run-mpj.sh", List.of("mpj/MpjBench.java"), Map.of("DEVICES", String.join(" ", req.mpjDevices())),
                        peers, req, o, progress);
            }
        }
        if (o.ompi()) {
            if (!ompiInstalled()) {
                progress.println("[peers] Open MPI is not installed (mpirun/mpicc missing; Debian packages openmpi-bin "
                        + "libopenmpi-dev): using the stored reference");
            } else if (!req.ompiModes().isEmpty()) {
                result = live(result, "ompi", "run-ompi.sh", List.of("ompi/ompi_bench.c"), Map.of("MODES", String.join(" ", req.ompiModes())),
                        peers, req, o, progress);
            }
        }
        return result;
    }

    private static PeerResults live(PeerResults stored, String peer, String script, List<String> sources, Map<String, String> modes,
                                    Path peers, Request req, Options o, PrintStream progress) throws IOException, InterruptedException {
        Path res = Files.createTempDirectory("mpfl-peer-" + peer + "-");
        Map<String, String> env = new LinkedHashMap<>(modes);
        env.put("WHAT", req.what());
        env.put("PROCS", req.procs().stream().map(String::valueOf).collect(Collectors.joining(" ")));
        env.put("SCALE", Double.toString(req.scale()));
        env.put("QUIET_WAIT", Integer.toString(Math.max(0, o.quietWait())));
        env.put("RES_DIR", res.toString());
        int exit;
        try {
            exit = runScript(peers, script, sources, env, RUN_LIMIT, progress);
        } catch (IOException e) {
            progress.println("[peers] " + script + " failed (" + e.getMessage() + "): using the stored reference for " + peer);
            return stored;
        }
        PeerResults now = PeerResults.read(res, peer, "measured in this run (" + res + ")");
        if (now.rows().isEmpty()) {
            progress.println("[peers] " + script + " (exit " + exit + ") produced no results, see " + res
                    + ": using the stored reference for " + peer);
            return stored;
        }
        if (exit != 0) {
            progress.println("[peers] " + script + " ended with exit " + exit + " (see " + res + "); using what it measured");
        }
        return stored.replacing(peer, now);
    }

    /**
     * Runs {@code <peers>/<script>} from a private copy (with {@code sources}, paths relative to the
     * peers' directory) with {@code env}, its output to {@code RES_DIR/<script>.out} and, line by
     * line, to {@code progress}; stops every process it left behind (also when it times out after
     * {@code limit} — an {@link IOException} — or the JVM is shut down). {@code env} must hold
     * {@code RES_DIR}. Returns its exit code. For the other peer scripts too ({@code run-mpj-moldyn.sh}).
     */
    public static int runScript(Path peers, String script, List<String> sources, Map<String, String> env, Duration limit,
                         PrintStream progress) throws IOException, InterruptedException {
        if (!Files.isRegularFile(peers.resolve(script))) {
            throw new IOException("no " + peers.resolve(script) + " (give the peers' directory with --peers DIR)");
        }
        Path copy = Files.createTempDirectory("mpfl-peers-");
        try {
            Files.copy(peers.resolve(script), copy.resolve(script));
            for (String s : sources) {
                Files.createDirectories(copy.resolve(s).getParent());
                Files.copy(peers.resolve(s), copy.resolve(s));
            }
            Path res = Path.of(env.get("RES_DIR"));
            Files.createDirectories(res);
            Path outFile = res.resolve(script.replace(".sh", "") + ".out");
            ProcessBuilder pb = new ProcessBuilder("bash", copy.resolve(script).toString()).directory(copy.toFile())
                    .redirectErrorStream(true);
            pb.environment().putAll(env);
            // inherited by everything the script starts, daemons included: what stop finds them by
            String mark = java.util.UUID.randomUUID().toString();
            pb.environment().put(MARK, mark);
            progress.println("[peers] running " + peers.resolve(script) + " (private copy in " + copy + ") with "
                    + env.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" ")));
            Process proc = pb.start();
            Thread hook = new Thread(() -> stop(proc, copy, mark), "mpfl-peers-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            Thread pump = new Thread(() -> pump(proc, outFile, progress), "mpfl-peers-output");
            pump.setDaemon(true);
            pump.start();
            try {
                if (!proc.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IOException(script + " did not end within " + limit.toMinutes() + " min");
                }
                pump.join(5000);
                return proc.exitValue();
            } finally {
                stop(proc, copy, mark);
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // shutting down: the hook runs (stop is idempotent)
                }
            }
        } finally {
            FileTrees.deleteQuietly(copy);
        }
    }

    /** The environment variable that marks every process of one script run (a value of its own per run). */
    static final String MARK = "MPFL_PEER_RUN";

    /** The live processes whose environment holds {@code MARK=mark} (Linux's {@code /proc/PID/environ}; none elsewhere). */
    static List<ProcessHandle> marked(String mark) {
        byte[] entry = (MARK + "=" + mark).getBytes(StandardCharsets.UTF_8);
        List<ProcessHandle> out = new ArrayList<>();
        ProcessHandle.allProcesses().forEach(h -> {
            // a /proc file has no size: read to its end
            try (var in = Files.newInputStream(Path.of("/proc", Long.toString(h.pid()), "environ"))) {
                if (holds(in.readAllBytes(), entry)) {
                    out.add(h);
                }
            } catch (IOException | RuntimeException gone) {
                // ended meanwhile, or not ours to read
            }
        });
        return out;
    }

    /** Whether the NUL-separated {@code environ} holds {@code entry} as one of its entries. */
    private static boolean holds(byte[] environ, byte[] entry) {
        int start = 0;
        for (int i = 0; i <= environ.length; i++) {
            if (i == environ.length || environ[i] == 0) {
                if (i - start == entry.length && java.util.Arrays.equals(environ, start, i, entry, 0, entry.length)) {
                    return true;
                }
                start = i + 1;
            }
        }
        return false;
    }

    private static void pump(Process proc, Path outFile, PrintStream progress) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8));
             Writer w = Files.newBufferedWriter(outFile, StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null) {
                w.write(line);
                w.write('\n');
                w.flush();
                progress.println("[peers] " + line);
            }
        } catch (IOException e) {
            // the process was stopped
        }
    }

    /**
     * Stops the script and everything it started: its descendants; every process marked with this run's {@link #MARK}
     * — MPJ Express's daemon, started in the background and so no longer a descendant, with the rank JVMs it launched,
     * also when the run is stopped before the script wrote the daemon's pid file —; and, from the scripts' pid files
     * ({@code build/<name>/daemon.pid} in the private copy: {@code run-mpj.sh}, {@code run-mpj-moldyn.sh}), a daemon
     * that cleared its environment.
     */
    static void stop(Process proc, Path copy, String mark) {
        List<ProcessHandle> victims = new ArrayList<>(marked(mark));
        List<Path> pidFiles = new ArrayList<>();
        try (var dirs = Files.list(copy.resolve("build"))) {
            dirs.map(d -> d.resolve("daemon.pid")).filter(Files::isRegularFile).forEach(pidFiles::add);
        } catch (IOException | RuntimeException e) {
            // nothing built, no daemon
        }
        for (Path pidFile : pidFiles) {
            try {
                long pid = Long.parseLong(Files.readString(pidFile).trim());
                ProcessHandle.of(pid).filter(h -> h.info().commandLine().map(c -> c.contains("daemon.jar")).orElse(true))
                        .ifPresent(h -> {
                            h.descendants().forEach(victims::add);
                            victims.add(h);
                        });
            } catch (IOException | RuntimeException e) {
                // no daemon to stop
            }
        }
        proc.descendants().forEach(victims::add);
        victims.add(proc.toHandle());
        victims.removeIf(h -> !h.isAlive());
        if (victims.isEmpty()) {
            return;
        }
        victims.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (ProcessHandle h : victims) {
            long left = deadline - System.nanoTime();
            try {
                h.onExit().get(Math.max(1, left), TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                h.destroyForcibly();
            }
        }
    }
}
