package org.mpfl.bench.workflow;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
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
    private final HostProcesses hosts;

    private BenchCluster(Engine engine, HostProcesses hosts) {
        this.engine = engine;
        this.hosts = hosts;
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
        RunSettings d = RunSettings.defaults();
        Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dataDir).runSettings(new RunSettings(d.fanOutTimeout(),
                d.deadlockGrace(), d.statusPollInterval(), d.hostFailureLimit(), transport)));
        HostProcesses hosts = null;
        try {
            HostProcesses.Builder b = HostProcesses.builder().count(hostCount).readyTimeout(Duration.ofSeconds(120))
                    .environmentOf(LocalCluster.credentialsOf(engine, new ArrayList<>()));
            hostJvmArgs.forEach(b::jvmArg);
            String home = System.getProperty("mpfl.home");
            if (home != null) {
                b.jvmArg("-Dmpfl.home=" + home);
            }
            List<String> hostArgs = new ArrayList<>(List.of("--engine", engine.url(),
                    "--extension", MediatorStepExtension.NAME));
            if (capacity > 0) {
                hostArgs.addAll(List.of("--capacity", Integer.toString(capacity)));
            }
            hostArgs.forEach(b::hostArg);
            hosts = b.start();
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
            if (hosts != null) {
                hosts.close();
            }
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

    EngineClient client() {
        return new EngineClient(engine.url(), engine.token());
    }

    @Override
    public void close() {
        try {
            hosts.close();
        } finally {
            engine.close();
        }
    }
}
