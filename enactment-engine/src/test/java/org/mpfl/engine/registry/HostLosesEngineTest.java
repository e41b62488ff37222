package org.mpfl.engine.registry;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.HostCredential;
import org.mpfl.runtime.host.EngineAnnouncer;
import org.mpfl.runtime.host.ServiceHost;
import org.mpfl.runtime.p2p.Domain;
import org.mpfl.testing.Await;

/**
 * A host that has lost its engine for longer than the engine's heartbeat timeout and its
 * engine-loss grace aborts its domains (the engine gave up on its ranks, and its abort cannot arrive),
 * not before (an engine restarted within the grace re-attaches to them); a host without an engine keeps
 * its own. Real HTTP on loopback; the engine is stopped to lose it.
 */
@Timeout(60)
class HostLosesEngineTest {
    @TempDir
    Path dir;

    private static String openDomain(ServiceHost host) {
        String id = DomainToken.generate();
        host.registry().open(id, 0, DomainToken.generate(), List.of(new Endpoint("x", null, host.hostId())),
                host.selector(), "local");
        return id;
    }

    @Test
    void aHostAbortsItsDomainsOnceItMissedTheEngineLongerThanItsHeartbeatTimeout() throws Exception {
        Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).heartbeatTimeout(Duration.ofMillis(1500))
                .engineLossGrace(Duration.ofMillis(10_000)));
        HostCredential credential = engine.issueHostCredential(null);
        try (ServiceHost host = ServiceHost.start(new ServiceHost.Options("127.0.0.1", 0, null, credential.hostId(), null, true));
             ServiceHost alone = ServiceHost.start(new ServiceHost.Options("127.0.0.1", 0, null, "no-engine", null, true))) {
            EngineAnnouncer announcer = new EngineAnnouncer(host, engine.url(), credential, 1);
            try {
                announcer.start();
                Await.until(Duration.ofSeconds(30), "the host registered", () -> engine.registry().host(host.hostId()).isPresent());
                String id = openDomain(host);
                String own = openDomain(alone);
                // with the engine there, heartbeats succeed: nothing is aborted past the timeout
                Thread.sleep(2500);
                assertFalse(host.registry().domain(id).isAborted(), "aborted while the engine answers");
                engine.close();
                long t0 = System.currentTimeMillis();
                Domain d = host.registry().domain(id);
                // within the engine-loss grace (10 s, longer than the heartbeat timeout) the ranks run on:
                // a restarted engine would re-attach to them. The grace counts from the host's last answer,
                // up to a beat before the close began, and the close itself may take seconds on a loaded
                // 2-core machine: looking 2 s after it leaves ~6 s for both (5 s of grace left 2.5 s)
                Thread.sleep(2000);
                assertFalse(d.isAborted(), "aborted within the engine-loss grace");
                Await.until(Duration.ofSeconds(30), "the domain aborted after the engine went", d::isAborted);
                String why = org.junit.jupiter.api.Assertions.assertThrows(
                        org.mpfl.runtime.api.DomainAbortedException.class, d::checkNotAborted).getMessage();
                assertTrue(why.contains("heartbeat timeout") && why.contains("engine-loss grace (10000 ms)"), why);
                assertFalse(alone.registry().domain(own).isAborted(), "a host without an engine lost its domain");
            } finally {
                announcer.close();
            }
        } finally {
            engine.close();
        }
    }
}
