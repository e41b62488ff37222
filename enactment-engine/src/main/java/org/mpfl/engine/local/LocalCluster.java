package org.mpfl.engine.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.registry.HostCredentials;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.launch.HostProcess;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * An engine plus N service-host child processes on loopback, for {@code mpflc run --local} and
 * {@code mpflc up}. The hosts are started by the one host launcher ({@link HostProcesses}: what
 * {@code mpflc host} runs, with {@code --engine URL --port 0}); they register themselves with the
 * engine with a host credential each that the engine issued for them, which reaches them in their
 * environment, never on their command line. {@link #close} stops the hosts (politely, then forcibly after a bound) and the engine; a JVM
 * shutdown hook does the same if the command line is interrupted. Hosts run with
 * {@code --exit-with-parent}: they end by themselves if this process dies without stopping them.
 */
public final class LocalCluster implements AutoCloseable {
    private final Engine engine;
    private final Path logDir;
    private final Thread shutdownHook;
    private HostProcesses hosts;
    /** Credentials issued to this cluster's hosts: revoked when it stops, so none outlives its host. */
    private final List<String> issued = new java.util.concurrent.CopyOnWriteArrayList<>();
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
        if (config.tls().serves() && !config.tls().hasCa() && hostCount > 0) {
            throw new IOException("TLS: the local hosts must trust the engine's certificate: give its CA with --tls-ca");
        }
        Engine engine = Engine.start(config);
        LocalCluster c;
        try {
            c = new LocalCluster(engine, Files.createDirectories(config.dataDir().resolve("host-logs")));
        } catch (IOException | RuntimeException e) {
            engine.close();
            throw e;
        }
        try {
            c.startHosts(hostCount, services, startTimeout);
            c.awaitRegistration(hostCount, startTimeout);
        } catch (Exception e) {
            c.close();
            throw e;
        }
        return c;
    }

    private void startHosts(int count, List<String> services, Duration timeout) throws IOException {
        HostProcesses.Builder b = HostProcesses.builder().count(count).readyTimeout(timeout).logDirectory(logDir)
                .environmentOf(credentialsOf(engine, issued));
        String opts = System.getenv("MPFL_HOST_JAVA_OPTS");
        if (opts != null && !opts.isBlank()) {
            List.of(opts.strip().split("\\s+")).forEach(b::jvmArg);
        }
        String home = System.getProperty("mpfl.home");
        if (home != null) {
            b.jvmArg("-Dmpfl.home=" + home);
        }
        List.of("--engine", engine.url()).forEach(b::hostArg);
        TlsSettings tls = engine.config().tls();
        if (tls.serves()) {
            // the hosts serve with the engine's certificate (valid for this machine's loopback address,
            // see docs/deployment.md) and trust the same CA, on SOAP and on the binary channel alike
            tls.childArguments().forEach(b::hostArg);
            tls.childEnvironment(System::getenv).forEach(b::environment);
        }
        for (String s : services) {
            List.of("--service", s).forEach(b::hostArg);
        }
        hosts = b.start();
    }

    /**
     * Each host the caller starts gets a credential of its own, issued now, in its environment
     * ({@value HostCredential#ENV}; the ids issued are added to {@code issuedIds}): how {@code mpflc up} and {@code run --local} keep working with
     * zero configuration on a closed registry, with no secret on a command line.
     */
    public static IntFunction<Map<String, String>> credentialsOf(Engine engine, List<String> issuedIds) {
        return i -> {
            try {
                HostCredential c = engine.issueHostCredential(null);
                issuedIds.add(c.id());
                return Map.of(HostCredential.ENV, c.text());
            } catch (HostCredentials.HostIdTakenException e) {
                throw new IllegalStateException("a fresh host id was taken: " + e.getMessage(), e);
            }
        };
    }

    private void awaitRegistration(int count, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (engine.registry().hosts().size() < count) {
            for (int i = 0; i < hosts.size(); i++) {
                if (!hosts.get(i).isAlive()) {
                    throw new IOException("local service host " + i + " exited with code " + hosts.get(i).process().exitValue()
                            + ":\n" + tail(hosts.get(i).log()));
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("only " + engine.registry().hosts().size() + " of " + count
                        + " local service hosts registered within " + timeout.toSeconds() + " s; host log:\n"
                        + tail(hosts.get(0).log()));
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
        return hosts == null ? List.of() : hosts.hosts().stream().map(HostProcess::process).toList();
    }

    private synchronized void stopAll() {
        if (closed) {
            return;
        }
        closed = true;
        if (hosts != null) {
            hosts.close();
        }
        issued.forEach(id -> engine.credentials().revoke(id));
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
