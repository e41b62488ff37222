package org.mpfl.protocol.launch;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import org.mpfl.protocol.HostCredential;

/**
 * A service host in the launcher's own JVM: what {@code mpflc run --local} starts when the run needs no
 * separate processes, so that one JVM starts instead of three (the engine's and two hosts'). It is
 * the same host as {@code mpflc host --credential-stdin} — Axis2 endpoint, binary channel, rank
 * registry, announcer — and the engine still reaches it only through the protocol (SOAP deploy and
 * {@code run}, registry REST calls, rank events); only its process is shared. Its ranks reach one
 * another through the in-JVM transport. The service runtime provides it ({@link Factory}, found with
 * {@link ServiceLoader}); the engine does not depend on the runtime's classes.
 */
public interface EmbeddedHost extends AutoCloseable {

    /** The host's id, fixed at its start (its credential is issued for it). */
    String hostId();

    /**
     * Hands the host its credential, which names the engine: from now on it accepts the engine's calls
     * (refused before, also from this machine) and announces itself to the engine.
     */
    void handOver(HostCredential credential) throws IOException;

    /** Leaves the engine's registry and stops the host, within {@code bound} (the rest ends with the JVM). */
    void close(Duration bound);

    @Override
    default void close() {
        close(Duration.ofSeconds(5));
    }

    /** Starts embedded hosts. */
    interface Factory {
        /**
         * Starts a host on loopback (plaintext) that waits for its credential ({@link #handOver}).
         *
         * @param hostId   the host's id
         * @param services hand-written rank programs to publish, {@code NAME=CLASS} (a {@code RankProgram} on this class path)
         */
        EmbeddedHost start(String hostId, List<String> services) throws Exception;
    }

    /** The factory on the class path (the service runtime's), if any. */
    static Optional<Factory> factory() {
        return ServiceLoader.load(Factory.class, EmbeddedHost.class.getClassLoader()).findFirst();
    }
}
