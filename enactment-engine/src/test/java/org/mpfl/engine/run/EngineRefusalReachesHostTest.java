package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.runtime.host.ServiceHost;
import org.mpfl.testing.Await;
import org.mpfl.testing.ReloadingProxy;

/**
 * The engine's own refusal of a domain's events stops the domain's ranks on a real service host, and a reverse
 * proxy's 404 in front of the engine does not: a real engine, a real host in this JVM (ranks started with
 * {@code run} over SOAP) and a {@link ReloadingProxy} that answers the first posts with its own 404 page (no
 * {@link EngineRefusal} mark, as while it reloads) and then forwards them, answer and headers, to the engine. The
 * domain's callback names a run the engine does not have, so the engine, once reached, refuses the events (404,
 * {@code domain-unknown}); the ranks end aborted for the engine's reason, never for the proxy's.
 */
@Timeout(120)
class EngineRefusalReachesHostTest {
    private static final String TYPE = "Waiter";
    /** Posts the proxy answers with its own 404 before it forwards. */
    private static final int PROXY_404S = 3;

    @TempDir
    Path dir;

    @Test
    void theEnginesRefusalStopsTheDomainAndTheProxys404sBeforeItDoNot() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir));
             ServiceHost host = ServiceHost.start(ServiceHost.Options.loopback());
             ReloadingProxy proxy = new ReloadingProxy(engine.url(), PROXY_404S)) {
            // each rank waits for a message that never comes: only an abort ends it before its minute is up
            host.registerServiceType(TYPE, () -> ctx -> ctx.world().recv(1 - ctx.world().rank(), 99, Duration.ofSeconds(60)));
            String domainId = DomainToken.generate();
            String token = DomainToken.generate();
            List<Endpoint> eps = List.of(host.endpoint(TYPE), host.endpoint(TYPE));
            MpiwsClient client = new MpiwsClient(Duration.ofSeconds(20));
            for (int r = 0; r < 2; r++) {
                assertEquals("running", client.run(host.serviceUrl(TYPE), new RunRequest(domainId, r, eps, List.of(), Map.of(),
                        token, proxy.url() + "/api/runs/no-such-run/ranks", "soap")));
            }
            for (int r = 0; r < 2; r++) {
                int rank = r;
                RankStatus s = Await.until(Duration.ofSeconds(60), () -> "rank " + rank + " ends (" + proxy.requests() + " posts, "
                        + proxy.forwarded() + " forwarded)", () -> client.status(host.serviceUrl(TYPE), domainId, rank,
                        new DomainToken(token).proveStatus(domainId, rank)), RankStatus::isFinal);
                assertEquals("failed", s.state(), s.toString());
                String why = String.valueOf(s.failure());
                assertTrue(why.startsWith("DomainAbortedException"), why);
                // the engine's reason (its 404 and its message), not the proxy's page
                assertTrue(why.contains("the engine refused this domain's events (HTTP 404") && why.contains("no run 'no-such-run'"), why);
                assertFalse(why.contains("nginx"), why);
            }
            assertTrue(proxy.requests() > PROXY_404S && proxy.forwarded() >= 1,
                    proxy.requests() + " posts, " + proxy.forwarded() + " forwarded");
        }
    }
}
