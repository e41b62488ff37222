package org.mpfl.engine.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.protocol.HostCredential;
import org.mpfl.runtime.host.EngineAnnouncer;
import org.mpfl.runtime.host.ServiceHost;
import org.mpfl.testing.Await;

/** A service host that stops leaves the engine's registry at once, not after the heartbeat timeout. */
@Timeout(60)
class HostLeavesRegistryTest {
    @TempDir
    Path dir;

    @Test
    void closingTheAnnouncerRemovesTheHost() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).heartbeatTimeout(Duration.ofMinutes(5)))) {
            HostCredential credential = engine.issueHostCredential(null);
            try (ServiceHost host = ServiceHost.start(new ServiceHost.Options("127.0.0.1", 0, null, credential.hostId(), null, true))) {
                leaves(engine, host, credential);
            }
        }
    }

    private static void leaves(Engine engine, ServiceHost host, HostCredential credential) throws Exception {
        EngineAnnouncer announcer = new EngineAnnouncer(host, engine.url(), credential, 1);
        announcer.start();
        Await.until(Duration.ofSeconds(30), "the host registered", () -> engine.registry().host(host.hostId()).isPresent());
        announcer.close();
        assertEquals(0, engine.registry().hosts().size(), "still registered: " + engine.registry().hosts());
    }
}
