package org.mpfl.engine.local;

import org.mpfl.engine.settings.EngineSettings;
import org.mpfl.ir.cli.CliSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.registry.HostCredentials;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.launch.EmbeddedHost;
import org.mpfl.protocol.launch.HostProcess;
import org.mpfl.protocol.settings.ProtocolSettings;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * An engine plus N service-host child processes on loopback, for {@code mpflc run --local} and
 * {@code mpflc up}. The hosts are started by the one host launcher ({@link HostProcesses}: what
 * {@code mpflc host} runs, with {@code --port 0 --credential-stdin}) <em>before</em> the engine, so that
 * their start-up (a JVM each, Axis2, ports) and the engine's overlap; once the engine serves, it issues
 * each host a credential, which reaches the host with the engine's URL on its standard input, never
 * on its command line, and the hosts register themselves. {@link #close} stops the hosts (politely,
 * then forcibly after a bound) and the engine, both at once; a JVM shutdown hook does the same if the
 * command line is interrupted, once what holds the exit let go ({@link #holdExitUntil}). Hosts run with {@code --exit-with-parent}: they end by themselves if
 * this process dies without stopping them (also while they still wait for their credential).
 *
 * <p>{@link #startEmbedded} instead starts one host in this JVM ({@link EmbeddedHost}), while the engine
 * starts: {@code mpflc run --local} without {@code --hosts}, whose ranks need no process of their own.
 * Everything between engine and host still goes over loopback HTTP as with a host process (the
 * credential hand-over aside); one JVM starts instead of three, the first run's main cost.
 */
public final class LocalCluster implements AutoCloseable {
    private final Engine engine;
    private final Thread shutdownHook;
    /** The hosts as launched, until they are ready ({@link #hosts}). */
    private final HostProcesses.Launch launch;
    private HostProcesses hosts;
    /** The host in this JVM ({@link #startEmbedded}), or {@code null}. */
    private final EmbeddedHost embedded;
    /** Credentials issued to this cluster's hosts: revoked when it stops, so none outlives its host. */
    private final List<String> issued = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean closed;
    /** What this JVM's exit waits for before it stops the cluster ({@link #holdExitUntil}). */
    private final List<CompletableFuture<?>> exitHolds = new java.util.concurrent.CopyOnWriteArrayList<>();

    private LocalCluster(Engine engine, HostProcesses.Launch launch, EmbeddedHost embedded) {
        this.engine = engine;
        this.launch = launch;
        this.embedded = embedded;
        this.shutdownHook = new Thread(() -> {
            awaitExitHolds();
            stopAll();
        }, "mpfl-local-cluster-stop");
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
        return start(config, hostCount, services, startTimeout, new StartGuard());
    }

    /**
     * Like {@link #start(EngineConfig, int, List, Duration)}, its hosts taken by {@code guard} as they start, and
     * stopped between its steps once {@code guard} says the JVM exits ({@link #startInBackground}).
     */
    public static LocalCluster start(EngineConfig config, int hostCount, List<String> services, Duration startTimeout,
                                     StartGuard guard) throws Exception {
        if (config.tls().serves() && !config.tls().hasCa() && hostCount > 0) {
            throw new IOException("TLS: the local hosts must trust the engine's certificate: give its CA with --tls-ca");
        }
        Path logDir = Files.createDirectories(Engine.createDataDirectory(config.dataDir()).resolve("host-logs"));
        // the hosts first: they start while the engine does, and wait for it on their standard input
        HostProcesses.Launch launch = hostCount > 0
                ? hosts(config, hostCount, services, startTimeout, logDir).onLaunch(guard::launched).launch() : null;
        Engine engine = null;
        LocalCluster c;
        try {
            engine = Engine.start(config);
            guard.check();
            c = new LocalCluster(engine, launch, null);
        } catch (Exception | Error e) {
            if (engine != null) {
                engine.close();
            }
            if (launch != null) {
                launch.abort();
            }
            throw e;
        }
        try {
            if (launch != null) {
                c.handOverCredentials();
                c.hosts = launch.awaitReady();
            }
            c.awaitRegistration(hostCount, startTimeout);
            guard.check();
        } catch (Exception e) {
            c.close();
            throw e;
        }
        return c;
    }

    /**
     * Starts the engine and one service host in this JVM, at the same time, and waits (up to
     * {@code startTimeout}) until the host registered; {@code services} as for
     * {@link #start(EngineConfig, int, List, Duration)}. Plaintext only (TLS needs host processes).
     *
     * @throws IOException no embedded host on the class path (the service runtime), or TLS asked for
     */
    public static LocalCluster startEmbedded(EngineConfig config, List<String> services, Duration startTimeout)
            throws Exception {
        return startEmbedded(config, services, startTimeout, new StartGuard());
    }

    /** Like {@link #startEmbedded(EngineConfig, List, Duration)}, ending once {@code guard} says the JVM exits. */
    public static LocalCluster startEmbedded(EngineConfig config, List<String> services, Duration startTimeout,
                                             StartGuard guard) throws Exception {
        if (config.tls().serves()) {
            throw new IOException("TLS: a host in the engine's JVM serves plaintext only; start host processes (--hosts N)");
        }
        EmbeddedHost.Factory factory = EmbeddedHost.factory().orElseThrow(() -> new IOException(
                "no embedded service host on the class path (the service-runtime jar): start host processes (--hosts N)"));
        // the host (Axis2, ports) starts on another thread while this one starts the engine: on two cores the
        // two start-ups overlap, as a host process's and the engine's do
        CompletableFuture<EmbeddedHost> starting = new CompletableFuture<>();
        Thread starter = new Thread(() -> {
            try {
                starting.complete(factory.start("local-" + UUID.randomUUID().toString().substring(0, 8), services));
            } catch (Throwable t) {
                starting.completeExceptionally(t);
            }
        }, "mpfl-embedded-host-start");
        starter.setDaemon(true);
        starter.start();
        Engine engine;
        try {
            engine = Engine.start(config);
        } catch (Exception | Error e) {
            starting.thenAccept(h -> h.close(Duration.ofSeconds(1)));
            throw e;
        }
        EmbeddedHost host;
        try {
            host = starting.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            engine.close();
            throw e.getCause() instanceof Exception x ? x : new IOException("the embedded service host failed to start", e.getCause());
        } catch (TimeoutException e) {
            engine.close();
            starting.thenAccept(h -> h.close(Duration.ofSeconds(1)));
            throw new IOException("the embedded service host did not start within " + startTimeout.toSeconds() + " s");
        }
        LocalCluster c = new LocalCluster(engine, null, host);
        try {
            HostCredential credential;
            try {
                credential = engine.issueHostCredential(host.hostId());
            } catch (HostCredentials.HostIdTakenException e) {
                throw new IOException("the embedded service host's id was taken: " + e.getMessage(), e);
            }
            c.issued.add(credential.id());
            host.handOver(credential);
            c.awaitRegistration(1, startTimeout);
            guard.check();
        } catch (Exception e) {
            c.close();
            throw e;
        }
        return c;
    }

    /**
     * How a cluster is started ({@link #start(EngineConfig, int, List, Duration, StartGuard)} or
     * {@link #startEmbedded(EngineConfig, List, Duration, StartGuard)}), with the guard given.
     */
    @FunctionalInterface
    public interface Launcher {
        LocalCluster start(StartGuard guard) throws Exception;
    }

    /**
     * How long a JVM that exits waits for a start going on to end ({@link Starting}): its steps end once their
     * hosts are stopped or at the next check of the guard; an engine's start is not cut short.
     */
    private static final Duration EXIT_WAIT = Duration.ofSeconds(15);

    /**
     * Starts a cluster on a thread of its own and returns at once. {@link Starting#await} takes
     * the cluster; {@link Starting#close} stops it (once started) whoever took it, then runs {@code cleanup}
     * (e.g. deleting the cluster's data directory). If this JVM exits first (SIGTERM, Ctrl-C), a shutdown hook
     * does the same, also mid-start (a started cluster once what holds its exit let go, {@link LocalCluster#holdExitUntil}):
     * the hosts launched so far are stopped, the start is waited for (up to
     * {@link #EXIT_WAIT}), what it started is closed, and only then {@code cleanup} runs, which the start would
     * otherwise write into again.
     */
    public static Starting startInBackground(Launcher launcher, Duration bound, Runnable cleanup) {
        CompletableFuture<LocalCluster> future = new CompletableFuture<>();
        StartGuard guard = new StartGuard();
        Thread t = new Thread(() -> {
            try {
                future.complete(launcher.start(guard));
            } catch (Throwable e) {
                future.completeExceptionally(e);
            }
        }, "mpfl-local-cluster-start");
        t.setDaemon(true);
        Starting starting = new Starting(future, bound, guard, cleanup);
        t.start();
        return starting;
    }

    /** A cluster starting in the background ({@link #startInBackground}). */
    public static final class Starting implements AutoCloseable {
        private final CompletableFuture<LocalCluster> future;
        private final Duration bound;
        private final Runnable cleanup;
        private final Thread atExit;

        private Starting(CompletableFuture<LocalCluster> future, Duration bound, StartGuard guard, Runnable cleanup) {
            this.future = future;
            this.bound = bound;
            this.cleanup = cleanup;
            this.atExit = new Thread(() -> {
                if (future.isDone() && !future.isCompletedExceptionally()) {
                    future.join().awaitExitHolds(); // started: its hosts are stopped only once the exit's holds let go
                }
                guard.stop();
                try {
                    future.get(EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS).close();
                } catch (Exception notStarted) {
                    // it failed (what it started it stopped), or it is wedged past the bound: what is left ends with the JVM
                }
                cleanup.run();
            }, "mpfl-local-cluster-exit");
            try {
                Runtime.getRuntime().addShutdownHook(atExit);
            } catch (IllegalStateException exiting) {
                cleanup.run(); // the JVM already exits: nothing was started
                throw exiting;
            }
        }

        /**
         * The started cluster, waiting for it up to the bound given (the start's own bounds are shorter: this
         * one only keeps a wedged start from hanging the caller).
         *
         * @throws Exception what the start threw, or an {@link IOException} when the bound passed
         */
        public LocalCluster await() throws Exception {
            try {
                return future.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception x ? x : new IOException("the local cluster failed to start", e.getCause());
            } catch (TimeoutException e) {
                throw new IOException("the local cluster did not start within " + bound.toSeconds() + " s");
            }
        }

        /**
         * Stops the cluster (idempotent; also one {@link #await} handed out), then runs the clean-up. A start still
         * going on is waited for first, up to the bound: the clean-up deletes what a start going on would still write.
         */
        @Override
        public void close() {
            try {
                await().close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // it never started (what await threw is the caller's error, if it asked), or is past the bound
            }
            cleanup.run();
            forgetExit();
        }

        private void forgetExit() {
            try {
                Runtime.getRuntime().removeShutdownHook(atExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs the clean-up again, which does nothing the second time
            }
        }
    }

    /** The launcher of the hosts: everything but the engine's URL and their credentials, which come later. */
    private static HostProcesses.Builder hosts(EngineConfig config, int count, List<String> services, Duration timeout,
                                               Path logDir) {
        HostProcesses.Builder b = HostProcesses.builder().count(count).readyTimeout(timeout).logDirectory(logDir)
                .credentialsOnStdin();
        // C2 later (thresholds x4): a local cluster's hosts mostly run start-up code once, and compiling it
        // with C2 cost each ~0.45 s of CPU of ~1.3 on the README's first run (2 cores, 3 JVMs starting at
        // once); C2 still compiles what a rank runs hot (a loop after 160,000 iterations instead of 40,000).
        // MPFL_HOST_JAVA_OPTS comes after it, so it can set another value.
        b.jvmArg("-XX:CompileThresholdScaling=4");
        String opts = EngineSettings.HOST_JAVA_OPTS.raw();
        if (opts != null && !opts.isBlank()) {
            List.of(opts.strip().split("\\s+")).forEach(b::jvmArg);
        }
        String home = CliSettings.HOME.get();
        if (home != null) {
            b.jvmArg("-Dmpfl.home=" + home);
        }
        TlsSettings tls = config.tls();
        if (tls.serves()) {
            // the hosts serve with the engine's certificate (valid for this machine's loopback address,
            // see docs/deployment.md) and trust the same CA, on SOAP and on the binary channel alike
            tls.childArguments().forEach(b::hostArg);
            tls.childEnvironment(ProtocolSettings::environment).forEach(b::environment);
        }
        for (String s : services) {
            List.of("--service", s).forEach(b::hostArg);
        }
        // mpflc up / run --local --python PATH: the hosts' kernel interpreter (each host checks it at start)
        ProtocolSettings.KERNEL_PYTHON.given().ifPresent(python -> List.of("--python", python).forEach(b::hostArg));
        // a local cluster is there for the runs of this one command: its hosts take every rank they are
        // given, as the one host of 'run --local' does, however many cores the machine has
        b.hostArg("--oversubscribe");
        return b;
    }

    /** Issues each launched host its credential (for the id it was started with) and hands it over. */
    private void handOverCredentials() throws IOException {
        for (int i = 0; i < launch.size(); i++) {
            HostCredential c;
            try {
                c = engine.issueHostCredential(launch.hostId(i));
            } catch (HostCredentials.HostIdTakenException e) {
                throw new IOException("local service host " + i + ": its id was taken: " + e.getMessage(), e);
            }
            issued.add(c.id());
            launch.handOver(i, c);
        }
    }

    /**
     * Each host the caller starts gets a credential of its own, issued now, in its environment
     * ({@value HostCredential#ENV}; the ids issued are added to {@code issuedIds}): how the benchmarks'
     * and tests' hosts, started once their engine serves, work on a closed registry with no secret on a
     * command line ({@code mpflc up} and {@code run --local} hand theirs over on standard input instead).
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
            for (int i = 0; hosts != null && i < hosts.size(); i++) {
                if (!hosts.get(i).isAlive()) {
                    throw new IOException("local service host " + i + " exited with code " + hosts.get(i).process().exitValue()
                            + ":\n" + HostProcesses.logTail(hosts.get(i).log()));
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("only " + engine.registry().hosts().size() + " of " + count
                        + " local service hosts registered within " + timeout.toSeconds() + " s; host log:\n"
                        + (hosts == null ? "(the host runs in this JVM: see above)" : HostProcesses.logTail(hosts.get(0).log())));
            }
            Thread.sleep(20);
        }
    }

    public Engine engine() {
        return engine;
    }

    /**
     * How long this JVM's exit waits, at most, for what holds it ({@link #holdExitUntil}) before it stops the
     * cluster: a cancel and the print of the run it ended take well under it; a wedged one keeps nobody.
     */
    public static final Duration EXIT_HOLD_BOUND = Duration.ofSeconds(10);

    /**
     * When this JVM exits (Ctrl-C, SIGTERM), the cluster is stopped only once {@code done} completes (at most
     * {@link #EXIT_HOLD_BOUND} after the exit began): the last words of a stopped command that need the engine,
     * e.g. {@code mpflc run}'s cancel of the run it followed and the print of its end. Shutdown hooks run all at
     * once; without the hold, the engine and its hosts stopped while the run was being cancelled, and the run's
     * last line was lost. {@link #close} does not wait.
     */
    public void holdExitUntil(CompletableFuture<?> done) {
        exitHolds.add(done);
    }

    /** Waits for what holds the exit ({@link #holdExitUntil}), up to {@link #EXIT_HOLD_BOUND} in all. */
    private void awaitExitHolds() {
        long deadline = System.nanoTime() + EXIT_HOLD_BOUND.toNanos();
        for (CompletableFuture<?> hold : exitHolds) {
            try {
                hold.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException | TimeoutException | java.util.concurrent.CancellationException e) {
                // failed or late: the cluster stops all the same
            }
        }
    }

    /** The child processes (for tests that kill one). */
    public List<Process> hostProcesses() {
        return hosts == null ? List.of() : hosts.hosts().stream().map(HostProcess::process).toList();
    }

    /**
     * How long the stop waits for the embedded host: as long as a host process's exit does
     * ({@code mpfl.host.exitCloseWaitMs}, 500 ms); what is left of it ends with this JVM.
     */
    private static final Duration EMBEDDED_CLOSE_BOUND = Duration.ofMillis(EngineSettings.EMBEDDED_HOST_CLOSE_WAIT_MS.get());

    /**
     * Stops the hosts and the engine at once: neither needs the other to end (a host that cannot leave
     * the engine's registry gives up within its own bound), and one after the other cost the sum of
     * both after every local run. Bounded: the hosts are killed after {@link HostProcesses#close}'s grace.
     * The engine hears that it stops before the hosts do, so that their goodbyes leave its runs to the
     * engine started next (as a capacity provider's released hosts do), whichever of the two ends first.
     */
    private synchronized void stopAll() {
        if (closed) {
            return;
        }
        closed = true;
        engine.stopping();
        HostProcesses ready = hosts;
        Thread hostsStop = new Thread(() -> {
            if (ready != null) {
                ready.close();
            } else if (embedded != null) {
                embedded.close(EMBEDDED_CLOSE_BOUND);
            } else if (launch != null) {
                launch.abort();
            }
        }, "mpfl-local-hosts-stop");
        hostsStop.start();
        try {
            issued.forEach(id -> engine.credentials().revoke(id));
            engine.close();
        } finally {
            try {
                hostsStop.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (launch != null) {
                    launch.processes().forEach(Process::destroyForcibly);
                }
            }
        }
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
