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
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.relay.RelayLink;
import org.mpfl.protocol.relay.RelayServer;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;
import org.mpfl.testing.Ports;

/**
 * A host behind a relay whose relay is lost: ranks blocked on a peer (a receive without a time-out, no event to
 * post) end by themselves once the host's link to the relay has been down for the engine's relay-return bound,
 * as the announcement's answer gives it ({@code relayReturnMs}), and the link registers again soon after the relay
 * is back; when it does, ranks of a domain the engine gave up meanwhile end at once. A real service host in this JVM
 * (Axis2 on loopback), a real relay ({@link RelayServer}) and a stand-in engine that takes every announcement and
 * heartbeat, and every event until the test has it refuse them (410 with its mark: the run failed).
 */
@Timeout(120)
class RelayLossAbortTest {
    private static final String TYPE = "Blocked";
    /** The stand-in engine's relay-return bound where the ranks are to end by it: short, so the test waits seconds. */
    private static final long RELAY_RETURN_MS = 2_000;
    private static final MpiwsClient CLIENT = new MpiwsClient(Duration.ofSeconds(20));
    private ServiceHost host;
    private HttpServer engine;
    private RelayServer relay;
    private int relayPort;
    private EngineAnnouncer announcer;
    private RelayLink link;
    /** Whether the stand-in engine refuses the events (410, marked: the run ended FAILED). */
    private final AtomicBoolean refuseEvents = new AtomicBoolean();

    /** Starts the host, the relay and the stand-in engine, which gives {@code relayReturnMs} as its bound. */
    void start(long relayReturnMs) throws Exception {
        host = ServiceHost.start(ServiceHost.Options.loopback());
        // each rank waits, without a time-out, for a message nobody sends: a rank blocked on a peer across the relay
        host.registerServiceType(TYPE, () -> ctx -> ctx.world().recv(1 - ctx.world().rank(), 99));
        engine = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        engine.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            if (ex.getRequestURI().getPath().equals("/cb/events") && refuseEvents.get()) {
                ex.getResponseHeaders().add(EngineRefusal.HEADER, EngineRefusal.DOMAIN_ENDED.value());
                Http.answer(ex, 410, "{\"error\":\"run r1 has ended FAILED: abort its ranks\"}");
                return;
            }
            boolean announcement = ex.getRequestURI().getPath().equals("/api/registry/hosts") && "POST".equals(ex.getRequestMethod());
            Http.answer(ex, announcement ? 201 : 204, announcement ? "{\"heartbeatIntervalMs\":500,\"heartbeatTimeoutMs\":600000,"
                    + "\"engineLossGraceMs\":600000,\"relayReturnMs\":" + relayReturnMs + "}" : "");
        });
        engine.start();
        // outside the ephemeral range: the host's link dials the lost relay every second, and on loopback a dial of a
        // closed ephemeral port can be given that very port as its own and hold it against the relay's restart
        startRelay(Ports.outsideEphemeralRange());
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

    /** Starts both ranks of a new domain reporting to the stand-in engine; its id and token. */
    private String[] startDomain() throws Exception {
        String domainId = DomainToken.generate();
        String token = DomainToken.generate();
        List<Endpoint> eps = List.of(host.endpoint(TYPE), host.endpoint(TYPE));
        String callback = "http://127.0.0.1:" + engine.getAddress().getPort() + "/cb";
        for (int r = 0; r < 2; r++) {
            assertEquals("running", CLIENT.run(host.serviceUrl(TYPE), new RunRequest(domainId, r, eps, List.of(), Map.of(),
                    token, callback, "soap")));
        }
        return new String[] {domainId, token};
    }

    private static RankStatus status(ServiceHost host, String domainId, String token, int rank) throws Exception {
        return CLIENT.status(host.serviceUrl(TYPE), domainId, rank, new DomainToken(token).proveStatus(domainId, rank));
    }

    @Test
    void ranksBlockedBehindALostRelayEndOnceItsLinkIsDownForTheRelayReturnBound() throws Exception {
        start(RELAY_RETURN_MS);
        String[] d = startDomain();
        String domainId = d[0];
        String token = d[1];

        relay.close();
        Await.until(Duration.ofSeconds(30), "the host's link notices the relay lost", () -> link.lostForMs() > 0);
        for (int r = 0; r < 2; r++) {
            int rank = r;
            RankStatus s = Await.until(Duration.ofSeconds(30), "rank " + rank + " ends without its relay",
                    () -> status(host, domainId, token, rank), RankStatus::isFinal);
            assertEquals("failed", s.state(), s.toString());
            assertTrue(String.valueOf(s.failure()).contains("without its relay 127.0.0.1:" + relayPort), s.toString());
            assertTrue(String.valueOf(s.failure()).contains("relay-return bound (" + RELAY_RETURN_MS + " ms)"), s.toString());
        }

        // the relay back (a service manager restarted it): the host's link registers again by itself
        startRelay(relayPort);
        Await.until(Duration.ofSeconds(15), "the host registers at the relay again", () -> link.registered());
        assertEquals(0, link.lostForMs());
    }

    /**
     * The relay back well within the bound, after the engine gave the domain up (it failed the run when it lost the
     * relay, and its abort did not reach the host): the ranks, blocked with nothing to post, end as soon as the link
     * registers again, since each live rank then reports to the engine and the engine refuses the given-up domain.
     */
    @Test
    void ranksOfADomainGivenUpWhileTheRelayWasLostEndWhenTheLinkRegistersAgain() throws Exception {
        start(600_000);
        String[] d = startDomain();
        Await.until(Duration.ofSeconds(30), "both ranks run", () -> status(host, d[0], d[1], 1).state().equals("running")
                && status(host, d[0], d[1], 0).state().equals("running"));
        relay.close();
        Await.until(Duration.ofSeconds(30), "the host's link notices the relay lost", () -> link.lostForMs() > 0);
        refuseEvents.set(true);
        startRelay(relayPort);
        Await.until(Duration.ofSeconds(15), "the host registers at the relay again", () -> link.registered());

        for (int r = 0; r < 2; r++) {
            int rank = r;
            RankStatus s = Await.until(Duration.ofSeconds(30), "rank " + rank + " of the given-up domain ends",
                    () -> status(host, d[0], d[1], rank), RankStatus::isFinal);
            assertEquals("failed", s.state(), s.toString());
            assertTrue(String.valueOf(s.failure()).contains("the engine refused this domain's events (HTTP 410"), s.toString());
        }
    }
}
