package org.mpfl.protocol.launch;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Consumer;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.RunRequest;

/**
 * The ranks of one run as threads of the caller's JVM, messaging through the in-JVM transport only:
 * what {@code mpflc run --local} uses when the run needs no separate processes (as MPJ Express's
 * {@code multicore} device runs ranks as threads). No engine, no HTTP, no Axis2: the generated
 * service archives are loaded directly, every rank gets the same {@code run} request a host would get
 * (all its endpoints on one host id) and runs in the same rank runtime (rank registry, matching,
 * collectives, interpreter) as in a service host; what a host would post to the engine comes to
 * {@code events} instead. The service runtime provides it ({@link #find}, with {@link ServiceLoader}); the
 * engine does not depend on the runtime's classes.
 */
public interface InProcessRanks {

    /**
     * One rank to start.
     *
     * @param serviceType the service type of its process (a key of the archives)
     * @param request     its {@code run} request: every endpoint has the host id given to {@link #start}
     *                    and no binary address; no callback address (events go to the consumer)
     */
    record Rank(String serviceType, RunRequest request) {
    }

    /**
     * Loads the programs and starts every rank, each on a thread of its own; returns once all are started.
     * A service type with an archive runs the archive's program; one without runs its process's program
     * from {@code plan}, handed over as objects (what a generated archive of a workflow without
     * libraries would carry as JSON).
     *
     * @param hostId   the host id every endpoint of the requests names
     * @param plan     the plan of the run: the programs of the service types without an archive
     * @param archives generated service archives ({@code .aar} bytes) by service type
     * @param events   every rank event, in each rank's order, on the rank's thread (keep it short)
     * @throws Exception an archive cannot be loaded, a service type has neither archive nor program in the
     *                   plan, or a rank refused to start (nothing is left running then)
     */
    Domain start(String hostId, DeploymentPlan plan, Map<String, byte[]> archives, List<Rank> ranks,
                 Consumer<RankEvent> events) throws Exception;

    /** The started ranks. */
    interface Domain extends AutoCloseable {
        /** Aborts the domain: every rank still running ends with a {@code DomainAbortedException} at its next wait. */
        void abort(String reason);

        /** Releases the messaging and the archives' files (ranks still running end with the JVM). */
        @Override
        void close();
    }

    /** The implementation on the class path (the service runtime's), if any. */
    static Optional<InProcessRanks> find() {
        return ServiceLoader.load(InProcessRanks.class, InProcessRanks.class.getClassLoader()).findFirst();
    }
}
