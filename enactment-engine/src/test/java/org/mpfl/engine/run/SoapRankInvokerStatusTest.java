package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RunRequest;
import org.mpfl.runtime.host.ServiceHost;
import org.mpfl.testing.Await;

/**
 * The engine's status poller against a real service host over SOAP: ranks without a callback (no events
 * reach the engine) bring their outputs and failure message through {@code status} alone, because the
 * engine's {@code status} carries the domain token's proof — a host answers them to no one else.
 */
class SoapRankInvokerStatusTest {
    private static final String TYPE = "Answering";
    private static ServiceHost host;
    private static SoapRankInvoker invoker;

    @BeforeAll
    static void start() throws Exception {
        host = ServiceHost.start(ServiceHost.Options.loopback());
        host.registerServiceType(TYPE, () -> ctx -> {
            if (Boolean.TRUE.equals(ctx.params().get("fail"))) {
                throw new IllegalStateException("no answer today");
            }
            ctx.output("answer", 42);
        });
        invoker = new SoapRankInvoker(Duration.ofSeconds(20), hostId -> null);
    }

    @AfterAll
    static void stop() {
        if (invoker != null) {
            invoker.close();
        }
        if (host != null) {
            host.close();
        }
    }

    /** Runs a one-rank domain without a callback; its status once final, as the engine's poller reads it. */
    private static RankStatus runAndPoll(String domainId, String token, boolean fail) throws Exception {
        Endpoint endpoint = host.endpoint(TYPE);
        RankPlacement p = new RankPlacement(0, "p", TYPE, "h", endpoint);
        invoker.run(p, new RunRequest(domainId, 0, List.of(endpoint), List.of(), Map.of("fail", fail), token, null, "soap"));
        return Await.until(Duration.ofSeconds(30), "the rank ends", () -> invoker.status(p, domainId, token),
                s -> s.state().equals("DONE") || s.state().equals("FAILED"));
    }

    @Test
    void theEnginesStatusGetsTheOutputsThatOnlyStatusBrings() throws Exception {
        String domainId = DomainToken.generate();
        RankStatus s = runAndPoll(domainId, DomainToken.generate(), false);
        assertEquals("DONE", s.state(), s.toString());
        assertEquals(Map.of("answer", 42), s.outputs());
        assertNull(s.message());
        // what a caller who knows the domain ID but not the token reads at the same host
        try (MpiwsClient stranger = new MpiwsClient(Duration.ofSeconds(20))) {
            org.mpfl.protocol.RankStatus seen = stranger.status(host.serviceUrl(TYPE), domainId, 0);
            assertEquals("done", seen.state());
            assertEquals(Map.of(), seen.outputsJson(), "the outputs are the engine's: " + seen);
        }
    }

    @Test
    void theEnginesStatusGetsTheFailureMessage() throws Exception {
        RankStatus s = runAndPoll(DomainToken.generate(), DomainToken.generate(), true);
        assertEquals("FAILED", s.state(), s.toString());
        assertTrue(String.valueOf(s.message()).contains("no answer today"), s.toString());
    }
}
