package org.mpfl.protocol.launch;

import org.mpfl.protocol.settings.ProtocolSettings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpfl.protocol.HostCredential;

/**
 * The one launcher of service-host processes ({@code mpflc run --local}, {@code mpflc up}, the
 * benchmarks and the tests all start hosts through it). It starts N hosts as child JVMs on free
 * loopback ports with the current class path ({@code mpfl.host.classPath}), waits
 * (bounded) until each printed its ready line, and stops them reliably: {@link #close()} destroys
 * them, waits a grace period and then kills them forcibly; the children also exit by themselves
 * when this JVM dies ({@code --exit-with-parent}: their stdin closes). Use in try-with-resources or
 * {@code @AfterAll}.
 *
 * <p>A launcher whose engine is still starting launches its hosts first ({@link Builder#credentialsOnStdin},
 * {@link Builder#launch}): they do their own start-up meanwhile and wait for the engine's URL and their
 * credential, which {@link Launch#handOver} writes on their standard input once the engine issued it
 * (never on a command line; a pipe from the launcher is visible to no other user).
 *
 * <pre>{@code
 * try (HostProcesses hosts = HostProcesses.builder().count(2)
 *         .service("Echo", EchoProgram.class).jvmArg("-Xmx512m").start()) {
 *     String url = hosts.get(0).serviceUrl("Echo");
 * }
 * }</pre>
 */
public final class HostProcesses implements AutoCloseable {
    /**
     * The host's main class (service-runtime's {@code HostMain}; named, not referenced, so that
     * launchers need not depend on the runtime — a runtime test asserts the name).
     */
    public static final String HOST_MAIN_CLASS = "org.mpfl.runtime.host.HostMain";
    /**
     * Prefix of the line a host prints on stdout once it accepts requests and its engine answered its first
     * announcement: a host the engine refuses exits without it.
     */
    public static final String READY_PREFIX = "MPFL host ";
    private static final Pattern READY = Pattern.compile(
            Pattern.quote(READY_PREFIX) + "(\\S+) listening on (https?://\\S+?)/? binary (\\S+)");
    /**
     * How long {@link #close} waits for a host to end after asking it to ({@code mpfl.host.stopGraceMs},
     * default 5 s) before killing it; the build's class-data-sharing training run raises it so that
     * its host can write its archive on the way out.
     */
    private static final Duration GRACE = Duration.ofMillis(ProtocolSettings.HOST_STOP_GRACE_MS.get());
    /**
     * A class-data sharing archive for the host JVMs ({@code mpfl.host.cdsArchive}, set by
     * {@code bin/mpflc} when the build made one, {@code enactment-engine/target/cds/host.jsa}): the
     * classes of a host's start and first run are then mapped from it instead of being loaded and
     * verified one by one. An archive that does not match the class path is ignored by the JVM
     * (silently: its CDS warnings are off), so a stale one costs nothing but the gain. Shared with the
     * tests' other child JVMs (org.mpfl.testing.ChildJvm), which start on {@link #classPath()} too.
     */
    public static List<String> cdsArguments() {
        String archive = ProtocolSettings.HOST_CDS_ARCHIVE.raw();
        if (archive == null || archive.isBlank() || !Files.isRegularFile(Path.of(archive))) {
            return List.of();
        }
        return List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off,cds+dynamic=off");
    }

    /**
     * {@code -Djava.io.tmpdir=} this JVM's temporary directory, for every JVM it starts: a child keeps its
     * temporary files (a service host's deployed archives, Vert.x's cache, Axis2's work files) where its launcher
     * keeps its own, so an engine started with {@code -Djava.io.tmpdir=DIR} (or {@code TMPDIR=DIR bin/mpflc}) has
     * its hosts write there too, and a test JVM's own directory (org.mpfl.testing.childjvm.TestTempDirectory),
     * removed when it ends, holds its children's files as well. The child's own options come after it and may
     * set another.
     */
    public static String tempDirectoryOption() {
        return "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir");
    }

    /** The class path of the host JVMs: {@code mpfl.host.classPath}, else this JVM's. */
    public static String classPath() {
        String classPath = ProtocolSettings.HOST_CLASS_PATH.raw();
        return classPath == null || classPath.isBlank() ? System.getProperty("java.class.path") : classPath;
    }

    /** The JVM options of {@code mpfl.host.jvmOptions}, before the launcher's own (which may override them). */
    static List<String> settingJvmOptions() {
        String options = ProtocolSettings.HOST_JVM_OPTIONS.raw();
        if (options == null || options.isBlank()) {
            return List.of();
        }
        return java.util.Arrays.stream(options.split(",")).map(String::strip).filter(o -> !o.isEmpty()).toList();
    }

    private final List<HostProcess> hosts;
    private final List<Child> children;
    /** Whether the logs are temporary files of ours (no log directory was given): deleted on close. */
    private final boolean temporaryLogs;
    /** Whether a host that has closed its standard output on the way out may be ended at once (see {@link #stop}). */
    private final boolean endOnceClosed;

    private HostProcesses(List<HostProcess> hosts, List<Child> children, boolean temporaryLogs, boolean endOnceClosed) {
        this.hosts = hosts;
        this.children = children;
        this.temporaryLogs = temporaryLogs;
        this.endOnceClosed = endOnceClosed;
    }

    /**
     * One child as launched.
     *
     * @param ready        its ready line
     * @param outputClosed completes when its standard output closes: a host closes it when its shutdown has
     *                     cleaned up (or the process is gone)
     */
    private record Child(Process process, Path log, String hostId, CompletableFuture<HostProcess> ready,
                         CompletableFuture<Void> outputClosed) {
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<HostProcess> hosts() {
        return hosts;
    }

    public HostProcess get(int i) {
        return hosts.get(i);
    }

    public int size() {
        return hosts.size();
    }

    /**
     * Stops every child: destroy, wait up to 5 s, then destroy forcibly; then deletes the logs when
     * they were temporary files (a caller that wants them keeps them with {@code logDirectory}).
     */
    @Override
    public void close() {
        stopAll(children, false, endOnceClosed);
        if (temporaryLogs) {
            for (HostProcess h : hosts) {
                try {
                    Files.deleteIfExists(h.log());
                } catch (IOException e) {
                    // a log that cannot be deleted is left in the temporary directory, nothing worse
                }
            }
        }
    }

    /**
     * Stops the given processes as {@link #close} stops its children: each is asked to end (SIGTERM, all first, so
     * that they end in parallel), then each is waited for up to the grace ({@code mpfl.host.stopGraceMs}) and killed
     * if still there. For a launcher that keeps the processes itself ({@link Builder#onLaunch}), e.g. to stop them
     * when its JVM exits mid-launch.
     */
    public static void stop(List<Process> processes) {
        stopAll(processes, false, p -> null);
    }

    /** {@link #stopAll(List, boolean, Function)} for children as launched; with {@code endOnceClosed}, see {@link #stop(Process, CompletableFuture)}. */
    private static void stopAll(List<Child> children, boolean forcibly, boolean endOnceClosed) {
        Map<Process, CompletableFuture<Void>> closed = new java.util.IdentityHashMap<>();
        children.forEach(c -> closed.put(c.process(), c.outputClosed()));
        stopAll(children.stream().map(Child::process).toList(), forcibly, endOnceClosed ? closed::get : p -> null);
    }

    /**
     * Asks every process to end (all first, so that they end in parallel), then waits for each within its bound;
     * {@code outputClosed}: when a process's standard output closed, or {@code null} (see {@link #stop(Process, CompletableFuture)}).
     */
    private static void stopAll(List<Process> processes, boolean forcibly, Function<Process, CompletableFuture<Void>> outputClosed) {
        for (Process p : processes) {
            if (forcibly) {
                p.destroyForcibly();
            } else {
                // SIGTERM through the handle: Process.destroy() would also close our end of the child's
                // stdout, and its end is how a host tells that it has cleaned up (see stop)
                p.toHandle().destroy();
            }
        }
        for (Process p : processes) {
            stop(p, outputClosed.apply(p));
        }
    }

    /** The last 20 lines of a host's log ({@link HostProcess#log()}), for an error message. */
    public static String logTail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /**
     * Host processes launched but not yet known to be ready ({@link Builder#launch}): hand each its
     * credential (with {@link Builder#credentialsOnStdin}), then {@link #awaitReady}, or {@link #abort}.
     */
    public static final class Launch {
        private final List<Child> children;
        private final long deadlineNanos;
        private final Duration readyTimeout;
        private final boolean temporaryLogs;
        private final boolean endOnceClosed;

        private Launch(List<Child> children, Duration readyTimeout, long startNanos, boolean temporaryLogs, boolean endOnceClosed) {
            this.children = children;
            this.readyTimeout = readyTimeout;
            this.deadlineNanos = startNanos + readyTimeout.toNanos();
            this.temporaryLogs = temporaryLogs;
            this.endOnceClosed = endOnceClosed;
        }

        public int size() {
            return children.size();
        }

        /** The id host {@code i} was started with ({@code --host-id}, with {@link Builder#credentialsOnStdin}), else {@code null}. */
        public String hostId(int i) {
            return children.get(i).hostId();
        }

        /** The child processes, in launch order. */
        public List<Process> processes() {
            return children.stream().map(Child::process).toList();
        }

        /**
         * Writes the engine's URL and host {@code i}'s credential (whose {@code engineUrl} must be set and
         * whose host id must be {@link #hostId(int) the one it was started with}) on its standard input, as
         * one line. The pipe stays open: its end later tells the host that this process is gone.
         *
         * @throws IOException the host is gone (the message carries its log's end)
         */
        public void handOver(int i, HostCredential credential) throws IOException {
            Child c = children.get(i);
            if (c.hostId() == null) {
                throw new IllegalStateException("host " + i + " was not started with credentialsOnStdin()");
            }
            if (!credential.hostId().equals(c.hostId()) || credential.engineUrl() == null) {
                throw new IllegalArgumentException("host " + i + " needs a credential for host id " + c.hostId()
                        + " that names its engine, got " + credential);
            }
            Process p = c.process();
            try {
                OutputStream in = p.getOutputStream();
                in.write((credential.line() + "\n").getBytes(StandardCharsets.US_ASCII));
                in.flush();
            } catch (IOException e) {
                throw new IOException("service host " + i + " ended before it got its credential" + exitCode(p) + "; its log:\n"
                        + logTail(c.log()));
            }
        }

        /**
         * Waits until every host printed its ready line (with {@link Builder#credentialsOnStdin}: after its
         * hand-over), at most the ready timeout from the launch; on failure stops them all.
         */
        public HostProcesses awaitReady() throws IOException {
            try {
                List<HostProcess> hosts = new ArrayList<>();
                for (int i = 0; i < children.size(); i++) {
                    try {
                        hosts.add(children.get(i).ready().get(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS));
                    } catch (TimeoutException e) {
                        throw new IOException("service host " + i + " not ready within " + readyTimeout
                                + exitCode(children.get(i).process()));
                    } catch (ExecutionException e) {
                        throw new IOException("service host " + i + " did not start: " + e.getCause().getMessage());
                    }
                }
                return new HostProcesses(List.copyOf(hosts), children, temporaryLogs, endOnceClosed);
            } catch (IOException | RuntimeException e) {
                abort();
                throw e;
            } catch (InterruptedException e) {
                children.forEach(c -> c.process().destroyForcibly());
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while starting service hosts", e);
            }
        }

        /**
         * Stops every launched host: asked to end, killed after the grace. Not forcibly at once: a host still
         * starting has temporary files already (its JVM's, Axis2's), which only its own shutdown deletes.
         */
        public void abort() {
            stopAll(children, false, endOnceClosed);
        }

        private static String exitCode(Process p) {
            return p.isAlive() ? "" : " (exited with " + p.exitValue() + ")";
        }
    }

    /**
     * Waits (up to the grace) for a process asked to end, then kills it. With {@code outputClosed} (not {@code null}),
     * a host that closed its standard output — the last step of its shutdown, after it left the engine's
     * registry and deleted its files — is killed at once: the JVM's own exit would still wait 300 ms
     * for its threads in native code (HotSpot's VM_Exit; a host always has one, reading its stdin),
     * after every local run.
     */
    private static void stop(Process p, CompletableFuture<Void> outputClosed) {
        long deadline = System.nanoTime() + GRACE.toNanos();
        try {
            if (outputClosed != null) {
                try {
                    outputClosed.get(GRACE.toMillis(), TimeUnit.MILLISECONDS);
                    p.destroyForcibly();
                } catch (TimeoutException | ExecutionException e) {
                    // not closed within the grace: killed below
                }
            }
            if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                p.destroyForcibly();
                p.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** How to start the hosts. */
    public static final class Builder {
        private int count = 2;
        private final Map<String, String> services = new LinkedHashMap<>();
        private final List<String> jvmArgs = new ArrayList<>();
        private final List<String> hostArgs = new ArrayList<>();
        private final Map<String, String> environment = new LinkedHashMap<>();
        private final List<String> launchPrefix = new ArrayList<>();
        private IntFunction<Map<String, String>> environmentOf = i -> Map.of();
        private Duration readyTimeout = Duration.ofSeconds(90);
        private Path logDirectory;
        private boolean credentialsOnStdin;
        private java.util.function.Consumer<Process> onLaunch = p -> { };

        /**
         * {@code each} gets every child as soon as it is started, before the next one is: a launcher whose JVM may
         * exit mid-launch (a signal) stops them itself. When it throws, the launch stops those started and fails.
         */
        public Builder onLaunch(java.util.function.Consumer<Process> each) {
            this.onLaunch = each;
            return this;
        }

        public Builder count(int n) {
            this.count = n;
            return this;
        }

        /** Publishes a hand-written {@code RankProgram} class (public, no-argument constructor) in every host. */
        public Builder service(String name, Class<?> programClass) {
            services.put(name, programClass.getName());
            return this;
        }

        /** A JVM option for every child, e.g. {@code -Xmx512m} or {@code -Dmpfl.transport=soap}. */
        public Builder jvmArg(String arg) {
            jvmArgs.add(arg);
            return this;
        }

        /** A host option for every child (see service-runtime's {@code HostMain}). */
        public Builder hostArg(String arg) {
            hostArgs.add(arg);
            return this;
        }

        /**
         * An environment variable for every child: how a credential reaches a host without
         * appearing on its command line (visible to every user in {@code ps}).
         */
        public Builder environment(String name, String value) {
            environment.put(name, value);
            return this;
        }

        /**
         * Words put before each child's {@code java} command, e.g. {@code ip netns exec NS} to start the
         * host inside a network namespace (the multi-host tests). The prefix must exec the command, not
         * fork it, so that the child process is the host JVM itself (what {@link #close} and a test's
         * SIGKILL act on).
         */
        public Builder launchPrefix(List<String> words) {
            launchPrefix.addAll(words);
            return this;
        }

        /**
         * Environment variables for child {@code i} (called once per child, before it starts): how each
         * host gets its own credential ({@code MPFL_HOST_CREDENTIAL}) without it appearing in {@code ps}.
         */
        public Builder environmentOf(IntFunction<Map<String, String>> perHost) {
            this.environmentOf = perHost;
            return this;
        }

        /** Where the children's logs go ({@code host-N.log}); a temporary file each by default. */
        public Builder logDirectory(Path directory) {
            this.logDirectory = directory;
            return this;
        }

        public Builder readyTimeout(Duration d) {
            this.readyTimeout = d;
            return this;
        }

        /**
         * The children get the engine's URL and their credential on standard input, after they started
         * ({@code mpflc host --credential-stdin}, with a {@code --host-id} of the launcher's choosing and the
         * ready timeout as their bound): {@link #launch}, then {@link Launch#handOver} each. Nothing of
         * {@value HostCredential#ENV} reaches them from this process's environment.
         */
        public Builder credentialsOnStdin() {
            this.credentialsOnStdin = true;
            return this;
        }

        /** Starts all children in parallel and waits until each is ready; on failure kills those started. */
        public HostProcesses start() throws IOException {
            if (credentialsOnStdin) {
                throw new IllegalStateException("hosts that wait for their credential on standard input: launch(), handOver(…), awaitReady()");
            }
            return launch().awaitReady();
        }

        /**
         * Starts all children in parallel without waiting for them ({@link Launch#awaitReady} does); on
         * failure kills those started.
         */
        public Launch launch() throws IOException {
            long startNanos = System.nanoTime();
            List<Child> started = new ArrayList<>();
            // a JVM that writes a class-data sharing archive at its exit must be let finish (the build's training run)
            boolean dumpsAtExit = jvmArgs.stream().anyMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit"));
            try {
                for (int i = 0; i < count; i++) {
                    Path log = logDirectory == null ? Files.createTempFile("mpfl-host-" + i + "-", ".log")
                            : logDirectory.resolve("host-" + i + ".log");
                    List<String> cmd = new ArrayList<>(launchPrefix);
                    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                    if (!dumpsAtExit && jvmArgs.stream().noneMatch(a -> a.startsWith("-XX:SharedArchiveFile"))) {
                        cmd.addAll(cdsArguments());
                    }
                    cmd.add(tempDirectoryOption());
                    cmd.addAll(settingJvmOptions());
                    cmd.addAll(jvmArgs);
                    cmd.add("-cp");
                    cmd.add(classPath());
                    cmd.add(HOST_MAIN_CLASS);
                    cmd.add("--port");
                    cmd.add("0");
                    cmd.add("--exit-with-parent");
                    for (Map.Entry<String, String> s : services.entrySet()) {
                        cmd.add("--service");
                        cmd.add(s.getKey() + "=" + s.getValue());
                    }
                    cmd.addAll(hostArgs);
                    String hostId = null;
                    if (credentialsOnStdin) {
                        hostId = "host-" + UUID.randomUUID().toString().substring(0, 8);
                        cmd.addAll(List.of("--host-id", hostId, "--credential-stdin",
                                "--credential-timeout", Long.toString(Math.max(1, readyTimeout.toSeconds()))));
                    }
                    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(log.toFile());
                    pb.environment().putAll(environment);
                    pb.environment().putAll(environmentOf.apply(i));
                    if (credentialsOnStdin) {
                        pb.environment().remove(HostCredential.ENV);
                    }
                    Process p = pb.start();
                    CompletableFuture<HostProcess> ready = new CompletableFuture<>();
                    CompletableFuture<Void> outputClosed = new CompletableFuture<>();
                    started.add(new Child(p, log, hostId, ready, outputClosed));
                    readOutput(p, log, ready, outputClosed);
                    onLaunch.accept(p);
                }
                return new Launch(List.copyOf(started), readyTimeout, startNanos, logDirectory == null, !dumpsAtExit);
            } catch (IOException | RuntimeException e) {
                stopAll(started, true, false);
                throw e;
            }
        }

        /** Reads the child's stdout: completes {@code f} with the ready line, keeps draining it, then completes {@code closed}. */
        private static void readOutput(Process p, Path log, CompletableFuture<HostProcess> f, CompletableFuture<Void> closed) {
            Thread t = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        Matcher m = READY.matcher(line);
                        if (!f.isDone() && m.find()) {
                            String binary = m.group(3).equals("none") ? null : m.group(3);
                            f.complete(new HostProcess(m.group(1), m.group(2), binary, p, log));
                        }
                    }
                } catch (IOException e) {
                    // the child is gone
                }
                closed.complete(null);
                if (!f.isDone()) {
                    f.completeExceptionally(new IOException("host process ended before it was ready; its log:\n" + logTail(log)));
                }
            }, "mpfl-host-out-" + p.pid());
            t.setDaemon(true);
            t.start();
        }
    }
}
