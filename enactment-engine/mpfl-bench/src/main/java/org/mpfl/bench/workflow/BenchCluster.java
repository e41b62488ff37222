package org.mpfl.bench.workflow;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.mpfl.ir.cli.CliSettings;
import org.mpfl.bench.mediator.Mediator;
import org.mpfl.bench.mediator.MediatorStepExtension;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.cli.EngineClient;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.protocol.launch.HostProcesses;

/**
 * An embedded engine and N service-host child processes registered with it, for one benchmark
 * invocation: the hosts are the runtime's {@link HostProcesses} (they end with this JVM), started with
 * the given JVM options and each announcing {@code capacity} ranks — capacity 1 makes the engine's
 * placement round-robin (rank r on host r mod N, like one node per host), the default of
 * {@code mpflc run --local} is the number of cores (consecutive ranks share a host). Each host gets a
 * credential of its own in its environment, as with {@code mpflc up}. {@link #close}
 * stops the hosts (bounded) and the engine.
 */
final class BenchCluster implements AutoCloseable {
    private static final Duration REGISTRATION_TIMEOUT = Duration.ofSeconds(60);

    private final Engine engine;
    private final List<HostProcesses> hosts;

    private BenchCluster(Engine engine, List<HostProcesses> hosts) {
        this.engine = engine;
        this.hosts = hosts;
    }

    /**
     * Where the engine listens and how each host is started when they are not all on this machine's
     * loopback ({@code mpflc bench lab}: the engine on {@code engineAddress} of this JVM's network
     * namespace, host i started behind {@code hostPrefixes[i]}, e.g. {@code ip netns exec NS}, bound to
     * {@code hostAddresses[i]}).
     */
    record Spread(String engineAddress, List<List<String>> hostPrefixes, List<String> hostAddresses) {
        int hosts() {
            return hostAddresses.size();
        }
    }

    /**
     * @param capacity ranks each host announces, or 0 for the host's default (its number of cores)
     */
    static BenchCluster start(Path dataDir, int hostCount, int capacity, List<String> hostJvmArgs) throws Exception {
        return start(dataDir, hostCount, capacity, hostJvmArgs, "auto");
    }

    /**
     * @param transport the transport the engine asks every rank of its runs to use ({@code auto}, {@code soap},
     *                  {@code binary}, {@code local}; see {@link RunSettings#transport})
     */
    static BenchCluster start(Path dataDir, int hostCount, int capacity, List<String> hostJvmArgs, String transport)
            throws Exception {
        return start(dataDir, hostCount, capacity, hostJvmArgs, transport, null);
    }

    /** As above; with a {@link Spread} (not null) the engine and each host listen where it says ({@code hostCount} is its size). */
    static BenchCluster start(Path dataDir, int hostCount, int capacity, List<String> hostJvmArgs, String transport, Spread spread)
            throws Exception {
        RunSettings d = RunSettings.defaults();
        EngineConfig config = new EngineConfig().port(0).dataDir(dataDir).runSettings(new RunSettings(d.fanOutTimeout(),
                d.deadlockGrace(), d.statusPollInterval(), d.hostFailureLimit(), transport));
        if (spread != null) {
            config.bindHost(spread.engineAddress());
        }
        Engine engine = Engine.start(config);
        List<HostProcesses> hosts = new ArrayList<>();
        try {
            var credentials = LocalCluster.credentialsOf(engine, new ArrayList<>());
            // one launcher per host when each has a prefix and an address of its own, else one for all
            int launchers = spread == null ? 1 : spread.hosts();
            List<HostProcesses.Builder> builders = new ArrayList<>();
            for (int k = 0; k < launchers; k++) {
                HostProcesses.Builder b = HostProcesses.builder().count(spread == null ? hostCount : 1)
                        .readyTimeout(Duration.ofSeconds(120)).environmentOf(credentials);
                hostJvmArgs.forEach(b::jvmArg);
                String home = CliSettings.HOME.get();
                if (home != null) {
                    b.jvmArg("-Dmpfl.home=" + home);
                }
                // --oversubscribe: a benchmark's ranks go round robin over its hosts whatever their capacity
                List<String> hostArgs = new ArrayList<>(List.of("--engine", engine.url(),
                        "--extension", MediatorStepExtension.NAME, "--oversubscribe"));
                if (capacity > 0) {
                    hostArgs.addAll(List.of("--capacity", Integer.toString(capacity)));
                }
                if (spread != null) {
                    b.launchPrefix(spread.hostPrefixes().get(k));
                    hostArgs.addAll(List.of("--bind", spread.hostAddresses().get(k)));
                }
                hostArgs.forEach(b::hostArg);
                builders.add(b);
            }
            List<java.util.concurrent.CompletableFuture<HostProcesses>> starting = new ArrayList<>();
            for (HostProcesses.Builder b : builders) {
                starting.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return b.start();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }));
            }
            IOException failed = null;
            for (var f : starting) {
                try {
                    hosts.add(f.join());
                } catch (java.util.concurrent.CompletionException e) {
                    IOException x = e.getCause() instanceof java.io.UncheckedIOException u ? u.getCause()
                            : new IOException(e.getCause().getMessage(), e.getCause());
                    if (failed == null) {
                        failed = x;
                    }
                }
            }
            if (failed != null) {
                throw failed;
            }
            long deadline = System.nanoTime() + REGISTRATION_TIMEOUT.toNanos();
            while (engine.registry().hosts().size() < hostCount) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("only " + engine.registry().hosts().size() + " of " + hostCount
                            + " service hosts registered with the engine within " + REGISTRATION_TIMEOUT.toSeconds() + " s");
                }
                Thread.sleep(50);
            }
            return new BenchCluster(engine, hosts);
        } catch (Exception | Error e) {
            hosts.forEach(HostProcesses::close);
            engine.close();
            throw e;
        }
    }

    Engine engine() {
        return engine;
    }

    /** The header for each step-service URL of this cluster's hosts (the engine's key for that host). */
    Function<String, String> stepAuthorizations() {
        return Mediator.hostAuthorizations(engine.registry(), engine.credentials()::engineAuthorization);
    }

    /** The host processes' pids (the JVMs themselves: a launch prefix must exec, see {@link HostProcesses.Builder#launchPrefix}). */
    List<Long> hostPids() {
        List<Long> pids = new ArrayList<>();
        hosts.forEach(h -> h.hosts().forEach(p -> pids.add(p.process().pid())));
        return pids;
    }

    /** The host ids in the order of {@link #hostPids}. */
    List<String> hostIds() {
        List<String> ids = new ArrayList<>();
        hosts.forEach(h -> h.hosts().forEach(p -> ids.add(p.hostId())));
        return ids;
    }

    EngineClient client() {
        return new EngineClient(engine.url(), engine.token());
    }

    @Override
    public void close() {
        try {
            hosts.forEach(HostProcesses::close);
        } finally {
            engine.close();
        }
    }
}
