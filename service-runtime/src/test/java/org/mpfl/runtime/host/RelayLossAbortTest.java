package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.relay.RelayLink;
import org.mpfl.protocol.relay.RelayServer;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * A host behind a relay whose relay is lost: ranks blocked on a peer (a receive without a time-out, no event to
 * post) end by themselves once the host's link to the relay has been down for the engine's relay-return bound,
 * as the announcement's answer gives it ({@code relayReturnMs}), and the link registers again soon after the relay
 * is back. A real service host in this JVM (Axis2 on loopback), a real relay ({@link RelayServer}) and a
 * stand-in engine that takes every announcement, heartbeat and event (so no refusal of events ends the ranks).
 */
@Timeout(120)
class RelayLossAbortTest {
    private static final String TYPE = "Blocked";
    /** The stand-in engine's relay-return bound: short, so the test waits seconds for the ranks to end. */
    private static final long RELAY_RETURN_MS = 2_000;
    private static final MpiwsClient CLIENT = new MpiwsClient(Duration.ofSeconds(20));
    private ServiceHost host;
    private HttpServer engine;
    private RelayServer relay;
    private int relayPort;
    private EngineAnnouncer announcer;
    private RelayLink link;

    @BeforeEach
    void start() throws Exception {
        host = ServiceHost.start(ServiceHost.Options.loopback());
        // each rank waits, without a time-out, for a message nobody sends: a rank blocked on a peer across the relay
        host.registerServiceType(TYPE, () -> ctx -> ctx.world().recv(1 - ctx.world().rank(), 99));
        engine = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        engine.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            boolean announcement = ex.getRequestURI().getPath().equals("/api/registry/hosts") && "POST".equals(ex.getRequestMethod());
            Http.answer(ex, announcement ? 201 : 204, announcement ? "{\"heartbeatIntervalMs\":500,\"heartbeatTimeoutMs\":600000,"
                    + "\"engineLossGraceMs\":600000,\"relayReturnMs\":" + RELAY_RETURN_MS + "}" : "");
        });
        engine.start();
        startRelay(0);
        String engineUrl = "http://127.0.0.1:" + engine.getAddress().getPort();
        HostCredential credential = HostCredential.generate(engineUrl, host.hostId());
        String relayAddress = "127.0.0.1:" + relayPort;
        announcer = new EngineAnnouncer(host, engineUrl, credential, 2, false, "s2");
        announcer.relay(relayAddress);
        announcer.onFirstAnnouncement(() -> {
            link = HostRelay.link(host, credential, relayAddress, "s2");
            announcer.relayLink(link);
        });
        announcer.start();
        Await.until(Duration.ofSeconds(30), "the host registers at the relay", () -> link != null && link.registered());
    }

    /** A relay that takes this host's registration of its own addresses (as the engine's verdict allows). */
    private void startRelay(int port) throws Exception {
        relay = new RelayServer("rly", "relay-engine-key", TlsSettings.NONE,
                (op, hostId, nonce, proof) -> new RelayServer.Verdict(true, hostAddresses(), "c-" + hostId),
                RelayServer.Limits.DEFAULT, "127.0.0.1", port);
        relayPort = relay.port();
    }

    private List<String> hostAddresses() {
        List<String> out = new ArrayList<>();
        URI base = URI.create(host.baseUrl());
        out.add(base.getHost() + ":" + base.getPort());
        if (host.binaryAddress() != null) {
            out.add(host.binaryAddress());
        }
        return out;
    }

    @AfterEach
    void stop() {
        if (announcer != null) {
            announcer.close();
        }
        if (link != null) {
            link.close();
        }
        if (relay != null) {
            relay.close();
        }
        if (engine != null) {
            engine.stop(0);
        }
        if (host != null) {
            host.close();
        }
    }

    @Test
    void ranksBlockedBehindALostRelayEndOnceItsLinkIsDownForTheRelayReturnBound() throws Exception {
        String domainId = DomainToken.generate();
        String token = DomainToken.generate();
        List<Endpoint> eps = List.of(host.endpoint(TYPE), host.endpoint(TYPE));
        String callback = "http://127.0.0.1:" + engine.getAddress().getPort() + "/cb";
        for (int r = 0; r < 2; r++) {
            assertEquals("running", CLIENT.run(host.serviceUrl(TYPE), new RunRequest(domainId, r, eps, List.of(), Map.of(),
                    token, callback, "soap")));
        }

        relay.close();
        Await.until(Duration.ofSeconds(30), "the host's link notices the relay lost", () -> link.lostForMs() > 0);
        for (int r = 0; r < 2; r++) {
            int rank = r;
            RankStatus s = Await.until(Duration.ofSeconds(30), "rank " + rank + " ends without its relay", () -> CLIENT.status(
                    host.serviceUrl(TYPE), domainId, rank, new DomainToken(token).proveStatus(domainId, rank)), RankStatus::isFinal);
            assertEquals("failed", s.state(), s.toString());
            assertTrue(String.valueOf(s.failure()).contains("without its relay 127.0.0.1:" + relayPort), s.toString());
            assertTrue(String.valueOf(s.failure()).contains("relay-return bound (" + RELAY_RETURN_MS + " ms)"), s.toString());
        }

        // the relay back (a service manager restarted it): the host's link registers again by itself
        startRelay(relayPort);
        Await.until(Duration.ofSeconds(15), "the host registers at the relay again", () -> link.registered());
        assertEquals(0, link.lostForMs());
    }
}
