package org.mpfl.protocol.launch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one launcher of service-host processes ({@code mpflc run --local}, {@code mpflc up}, the
 * benchmarks and the tests all start hosts through it). It starts N hosts as child JVMs on free
 * loopback ports with the current class path, waits
 * (bounded) until each printed its ready line, and stops them reliably: {@link #close()} destroys
 * them, waits a grace period and then kills them forcibly; the children also exit by themselves
 * when this JVM dies ({@code --exit-with-parent}: their stdin closes). Use in try-with-resources or
 * {@code @AfterAll}.
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
    /** Prefix of the line a host prints on stdout once it accepts requests. */
    public static final String READY_PREFIX = "MPFL host ";
    private static final Pattern READY = Pattern.compile(
            Pattern.quote(READY_PREFIX) + "(\\S+) listening on (https?://\\S+?)/? binary (\\S+)");
    /**
     * How long {@link #close} waits for a host to end after asking it to ({@code mpfl.host.stopGraceMs},
     * default 5 s) before killing it; the build's class-data-sharing training run raises it so that
     * its host can write its archive on the way out.
     */
    private static final Duration GRACE = Duration.ofMillis(Long.getLong("mpfl.host.stopGraceMs", 5_000));
    /**
     * A class-data sharing archive for the host JVMs ({@code mpfl.host.cdsArchive}, set by
     * {@code bin/mpflc} when the build made one, {@code enactment-engine/target/cds/host.jsa}): the
     * classes of a host's start and first run are then mapped from it instead of being loaded and
     * verified one by one. An archive that does not match the class path is ignored by the JVM
     * (silently: its CDS warnings are off), so a stale one costs nothing but the gain.
     */
    static List<String> cdsArguments() {
        String archive = System.getProperty("mpfl.host.cdsArchive");
        if (archive == null || archive.isBlank() || !Files.isRegularFile(Path.of(archive))) {
            return List.of();
        }
        return List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off,cds+dynamic=off");
    }

    private final List<HostProcess> hosts;
    /** Whether the logs are temporary files of ours (no log directory was given): deleted on close. */
    private final boolean temporaryLogs;

    private HostProcesses(List<HostProcess> hosts, boolean temporaryLogs) {
        this.hosts = hosts;
        this.temporaryLogs = temporaryLogs;
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
        for (HostProcess h : hosts) {
            h.process().destroy();
        }
        for (HostProcess h : hosts) {
            stop(h.process());
        }
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

    static void stop(Process p) {
        try {
            if (!p.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
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

        /** Starts all children in parallel and waits until each is ready; on failure kills those started. */
        public HostProcesses start() throws IOException {
            List<Process> started = new ArrayList<>();
            List<CompletableFuture<HostProcess>> ready = new ArrayList<>();
            try {
                for (int i = 0; i < count; i++) {
                    Path log = logDirectory == null ? Files.createTempFile("mpfl-host-" + i + "-", ".log")
                            : logDirectory.resolve("host-" + i + ".log");
                    List<String> cmd = new ArrayList<>(launchPrefix);
                    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                    if (jvmArgs.stream().noneMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit") || a.startsWith("-XX:SharedArchiveFile"))) {
                        cmd.addAll(cdsArguments());
                    }
                    cmd.addAll(jvmArgs);
                    cmd.add("-cp");
                    cmd.add(System.getProperty("java.class.path"));
                    cmd.add(HOST_MAIN_CLASS);
                    cmd.add("--port");
                    cmd.add("0");
                    cmd.add("--exit-with-parent");
                    for (Map.Entry<String, String> s : services.entrySet()) {
                        cmd.add("--service");
                        cmd.add(s.getKey() + "=" + s.getValue());
                    }
                    cmd.addAll(hostArgs);
                    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(log.toFile());
                    pb.environment().putAll(environment);
                    pb.environment().putAll(environmentOf.apply(i));
                    Process p = pb.start();
                    started.add(p);
                    ready.add(readyLine(p, log));
                }
                List<HostProcess> hosts = new ArrayList<>();
                long deadline = System.nanoTime() + readyTimeout.toNanos();
                for (int i = 0; i < ready.size(); i++) {
                    try {
                        hosts.add(ready.get(i).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                    } catch (TimeoutException e) {
                        throw new IOException("service host " + i + " not ready within " + readyTimeout + tail(started.get(i)));
                    } catch (ExecutionException e) {
                        throw new IOException("service host " + i + " did not start: " + e.getCause().getMessage());
                    }
                }
                return new HostProcesses(List.copyOf(hosts), logDirectory == null);
            } catch (IOException | RuntimeException e) {
                for (Process p : started) {
                    p.destroyForcibly();
                }
                for (Process p : started) {
                    stop(p);
                }
                throw e;
            } catch (InterruptedException e) {
                for (Process p : started) {
                    p.destroyForcibly();
                }
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while starting service hosts", e);
            }
        }

        private static String tail(Process p) {
            return p.isAlive() ? "" : " (exited with " + p.exitValue() + ")";
        }

        /** Reads the child's stdout: completes with the ready line, then keeps draining it. */
        private static CompletableFuture<HostProcess> readyLine(Process p, Path log) {
            CompletableFuture<HostProcess> f = new CompletableFuture<>();
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
                String why;
                try {
                    List<String> lines = Files.readAllLines(log);
                    why = String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
                } catch (IOException e) {
                    why = "(no log)";
                }
                f.completeExceptionally(new IOException("host process ended before it was ready; its log:\n" + why));
            }, "mpfl-host-out-" + p.pid());
            t.setDaemon(true);
            t.start();
            return f;
        }
    }
}
