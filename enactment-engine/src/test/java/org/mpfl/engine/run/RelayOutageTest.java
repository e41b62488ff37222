package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.relay.RelayDialer;
import org.mpfl.protocol.relay.RelayServer;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * A relay lost while it carries a run, as the engine sees it: a real relay ({@link RelayServer}, in
 * this JVM on loopback) that the engine watches, hosts of site s2 behind it, a host of site s1 that
 * accepts inbound connections, fake ranks. The run's error names the relay, its site and only the
 * run's hosts behind it; the hosts behind it stay out of placement while it is lost, without a
 * quarantine, and are placed again once it announces itself again.
 */
@Timeout(120)
class RelayOutageTest {
    @TempDir
    Path dir;
    Engine engine;
    RelayServer relay;
    int relayPort;
    String relayAddress;
    HostCredential relayCredential;
    final List<String> routed = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        FakeRanks ranks = new FakeRanks(r -> r.awaitAbort(60_000));
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(ranks).runSettings(EngineRunTest.fast())
                .heartbeatTimeout(Duration.ofMinutes(10)));
        relayCredential = engine.issueRelayCredential("rly");
        startRelay(0);
        relayAddress = "127.0.0.1:" + relayPort;
        announceRelay();
        host("s1h1", "s1", null, "ring", 11);
        host("s2h1", "s2", relayAddress, "ring", 12);
        host("s2h2", "s2", relayAddress, "ring", 13);
        // behind the same relay, but offers no service of the runs below: never one of their hosts
        host("s2h3", "s2", relayAddress, "other", 14);
    }

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
        if (relay != null) {
            relay.close();
        }
        // the dialer is the process's: the routes the hosts' announcements made go with the test
        routed.forEach(a -> RelayDialer.shared().routeVia(a, null, null));
    }

    void startRelay(int port) throws Exception {
        relay = new RelayServer("rly", relayCredential.engineKey(), TlsSettings.NONE, (op, host, nonce, proof) -> RelayServer.Verdict.REFUSED,
                RelayServer.Limits.DEFAULT, "127.0.0.1", port);
        relayPort = relay.port();
    }

    void announceRelay() throws Exception {
        Http.Answer a = Http.send("POST", engine.url() + "/api/registry/relays", relayCredential.authorization(),
                Map.of("address", relayAddress));
        assertEquals(201, a.status(), a.body());
    }

    /** Announces a host of capacity 1 at a fake address of its own (loopback port {@code port}, never dialled). */
    void host(String id, String site, String relayAddr, String service, int port) throws Exception {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("hostId", id);
        h.put("soapUrl", "http://127.0.0.1:" + port + "/axis2/services");
        h.put("services", List.of(service));
        h.put("capacity", 1);
        h.put("site", site);
        h.put("instance", id + "-1");
        if (relayAddr != null) {
            h.put("relay", relayAddr);
        }
        routed.add("127.0.0.1:" + port);
        Http.Answer a = HostCalls.announce(engine, h);
        assertEquals(201, a.status(), a.body());
    }

    String startRun(int ranks) throws Exception {
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", EngineRunTest.ringPlan(ranks)));
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    JsonNode detail(String id) throws Exception {
        return Http.get(engine.url() + "/api/runs/" + id).json();
    }

    JsonNode hosts() throws Exception {
        return Http.send("GET", engine.url() + "/api/registry/hosts", "Bearer " + engine.token(), null).json();
    }

    @Test
    void aLostRelayFailsTheRunNamingTheRelayItsSiteAndOnlyThisRunsHostsBehindIt() throws Exception {
        String id = startRun(3);
        Await.until(Duration.ofSeconds(30), "the run is RUNNING on s1h1, s2h1, s2h2", () -> detail(id),
                d -> d.path("state").asText().equals("RUNNING"));

        relay.close();

        JsonNode d = Await.until(Duration.ofSeconds(30), "the run fails for the lost relay", () -> detail(id),
                x -> x.path("state").asText().equals("FAILED"));
        String message = d.path("error").path("message").asText();
        assertTrue(message.startsWith("relay rly at " + relayAddress + " (site s2) was lost"), message);
        assertTrue(message.contains("this run's hosts s2h1, s2h2 behind it"), message);
        assertFalse(message.contains("s2h3"), "s2h3 is behind the relay but not a host of this run: " + message);
        assertFalse(message.contains("s1h1"), "s1h1 is reached directly: " + message);
    }

    @Test
    void hostsBehindALostRelayAreLeftOutOfPlacementWithoutQuarantineAndComeBackWithTheRelay() throws Exception {
        relay.close();
        Await.until(Duration.ofSeconds(30), "the engine saw the relay lost",
                () -> Http.send("GET", engine.url() + "/api/registry/relays", "Bearer " + engine.token(), null).json(), r -> r.size() == 0);

        String id = startRun(3);
        JsonNode queued = Await.until(Duration.ofSeconds(30), "the run waits for room", () -> detail(id),
                d -> d.path("state").asText().equals("QUEUED") && d.toString().contains("relay rly"));
        assertTrue(queued.toString().contains("which is lost"), queued.toString());
        for (JsonNode h : hosts()) {
            assertTrue(h.path("quarantine").isNull(), "a host behind a lost relay is healthy, not quarantined: " + h);
        }

        startRelay(relayPort);
        announceRelay();

        Await.until(Duration.ofSeconds(30), "the run is placed once the relay is back", () -> detail(id),
                d -> d.path("state").asText().equals("RUNNING"));
    }
}
