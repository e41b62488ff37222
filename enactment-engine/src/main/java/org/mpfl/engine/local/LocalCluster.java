package org.mpfl.engine.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;

/**
 * An engine plus N service-host child processes on loopback, for {@code mpflc run --local} and
 * {@code mpflc up}. Each host is {@code java -cp <this class path> org.mpfl.runtime.host.HostMain
 * --engine URL --port 0} (what {@code mpflc host} runs); it registers itself with the engine. {@link #close} stops the hosts
 * (politely, then forcibly after a bound) and the engine; a JVM shutdown hook does the same if the
 * command line is interrupted. Hosts run with {@code --exit-with-parent}: they end by themselves if
 * this process dies without stopping them.
 */
public final class LocalCluster implements AutoCloseable {
    private final Engine engine;
    private final List<Process> hosts = new ArrayList<>();
    private final Path logDir;
    private final Thread shutdownHook;
    private volatile boolean closed;

    private LocalCluster(Engine engine, Path logDir) {
        this.engine = engine;
        this.logDir = logDir;
        this.shutdownHook = new Thread(this::stopAll, "mpfl-local-cluster-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts the engine and {@code hostCount} hosts and waits (up to {@code startTimeout}) until all
     * hosts registered.
     */
    public static LocalCluster start(EngineConfig config, int hostCount, Duration startTimeout) throws Exception {
        return start(config, hostCount, List.of(), startTimeout);
    }

    /**
     * Like {@link #start(EngineConfig, int, Duration)}, with hand-written services published on every
     * host ({@code NAME=CLASS}: a {@code RankProgram} class on this class path).
     */
    public static LocalCluster start(EngineConfig config, int hostCount, List<String> services, Duration startTimeout)
            throws Exception {
        Engine engine = Engine.start(config);
        LocalCluster c;
        try {
            c = new LocalCluster(engine, Files.createDirectories(config.dataDir().resolve("host-logs")));
        } catch (IOException | RuntimeException e) {
            engine.close();
            throw e;
        }
        try {
            for (int i = 0; i < hostCount; i++) {
                c.startHost(i, services);
            }
            c.awaitHosts(hostCount, startTimeout);
        } catch (Exception e) {
            c.close();
            throw e;
        }
        return c;
    }

    private void startHost(int index, List<String> services) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java));
        String opts = System.getenv("MPFL_HOST_JAVA_OPTS");
        if (opts != null && !opts.isBlank()) {
            cmd.addAll(List.of(opts.strip().split("\\s+")));
        }
        String home = System.getProperty("mpfl.home");
        if (home != null) {
            cmd.add("-Dmpfl.home=" + home);
        }
        // HostMain directly rather than 'Mpflc host': the host needs no other command on the class path
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), org.mpfl.runtime.host.HostMain.class.getName(),
                "--engine", engine.url(), "--port", "0", "--exit-with-parent"));
        for (String s : services) {
            cmd.addAll(List.of("--service", s));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(logDir.resolve("host-" + index + ".log").toFile());
        pb.environment().put("MPFL_ENGINE_TOKEN", engine.token());
        hosts.add(pb.start());
    }

    private void awaitHosts(int count, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (engine.registry().hosts().size() < count) {
            for (int i = 0; i < hosts.size(); i++) {
                if (!hosts.get(i).isAlive()) {
                    throw new IOException("local service host " + i + " exited with code " + hosts.get(i).exitValue()
                            + ":\n" + tail(logDir.resolve("host-" + i + ".log")));
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("only " + engine.registry().hosts().size() + " of " + count
                        + " local service hosts registered within " + timeout.toSeconds() + " s; host log:\n"
                        + tail(logDir.resolve("host-0.log")));
            }
            Thread.sleep(100);
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    public Engine engine() {
        return engine;
    }

    /** The child processes (for tests that kill one). */
    public List<Process> hostProcesses() {
        return List.copyOf(hosts);
    }

    private synchronized void stopAll() {
        if (closed) {
            return;
        }
        closed = true;
        hosts.forEach(Process::destroy);
        for (Process p : hosts) {
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        engine.close();
    }

    @Override
    public void close() {
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down; the hook has run or will run stopAll, which is idempotent
        }
    }
}
