package org.mpfl.engine;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.mpfl.engine.registry.HostCredentials;
import org.mpfl.protocol.HostCredential;
import org.mpfl.testing.Http;

/** The calls a service host makes to an engine, made by a test as that host would: with its own credential. */
public final class HostCalls {
    /**
     * Credentials tests issued, by engine URL, the engine's store and host id (the engine shows a secret only once).
     * The store is part of the key because a port the kernel gave a closed engine may be given to the next test's
     * engine: by URL alone that engine was sent the old engine's credential ("wrong engine token"); an engine
     * restarted on its own store keeps the credentials it issued, and the key finds them again.
     */
    private static final Map<String, HostCredential> CREDENTIALS = new ConcurrentHashMap<>();

    /**
     * The heartbeat timeout of an engine whose hosts are a test's announcements, which send no heartbeat: longer
     * than any test, so that a loaded machine cannot make the registry drop such a host mid-test (a run placed on
     * it then fails "host lost", as runs of StopFollowingTest and ConsoleLoginBrowserTest did in CI). Tests about
     * expiry set their own.
     */
    public static final Duration SILENT_HOSTS_TIMEOUT = Duration.ofHours(1);

    private HostCalls() {
    }

    /** The credential of {@code hostId} at this engine, issued on first use. */
    public static HostCredential credential(Engine engine, String hostId) {
        EngineConfig config = engine.config();
        String store = config.jdbcUrl() != null ? config.jdbcUrl() : config.dataDir().toAbsolutePath().toString();
        return CREDENTIALS.computeIfAbsent(engine.url() + " " + store + " " + hostId, k -> {
            try {
                return engine.issueHostCredential(hostId);
            } catch (HostCredentials.HostIdTakenException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Announces a host (a map with {@code hostId}) as that host would: with its own credential. */
    public static Http.Answer announce(Engine engine, Map<String, Object> host) throws IOException, InterruptedException {
        return Http.send("POST", engine.url() + "/api/registry/hosts", credential(engine, (String) host.get("hostId")).authorization(), host);
    }

    /** A heartbeat of {@code hostId}, with its own credential. */
    public static Http.Answer heartbeat(Engine engine, String hostId) throws IOException, InterruptedException {
        return Http.send("POST", engine.url() + "/api/registry/hosts/" + hostId + "/heartbeat",
                credential(engine, hostId).authorization(), "");
    }
}
