package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.runtime.api.ReceiveTimeoutException;
import org.mpfl.testing.Await;

/**
 * A host whose engine refuses a domain's events — 410 (the run ended FAILED or CANCELLED), 404 (no such
 * run), 403 (a domain the run gave up) — aborts that domain's ranks at once instead of running them on
 * unobserved; another domain of the same host, whose engine takes its events, runs on. A real service
 * host in this JVM (Axis2 on loopback), its ranks started with {@code run} over SOAP, and two small
 * engines over real HTTP.
 */
@Timeout(120)
class EngineRefusedEventsTest {
    private static final String TYPE = "Waiter";
    private static final MpiwsClient CLIENT = new MpiwsClient(Duration.ofSeconds(20));
    private static ServiceHost host;
    private HttpServer refusing;
    /** Whether the refusing engine refuses yet: not before both ranks of its domain are started. */
    private final AtomicBoolean refuse = new AtomicBoolean();
    private HttpServer taking;

    @BeforeAll
    static void startHost() throws Exception {
        host = ServiceHost.start(ServiceHost.Options.loopback());
        // each rank waits for a message that never comes, reporting a log line every 200 ms: only an abort (or a
        // minute) ends it
        host.registerServiceType(TYPE, () -> ctx -> {
            for (int i = 0; i < 300; i++) {
                try {
                    ctx.world().recv(1 - ctx.world().rank(), 99, Duration.ofMillis(200));
                    return;
                } catch (ReceiveTimeoutException still) {
                    ctx.log("info", "still waiting");
                }
            }
        });
    }

    @AfterAll
    static void stopHost() {
        if (host != null) {
            host.close();
        }
    }

    @AfterEach
    void stopEngines() {
        if (refusing != null) {
            refusing.stop(0);
        }
        if (taking != null) {
            taking.stop(0);
        }
    }

    /**
     * A stand-in engine answering every event POST with {@code status} (and an engine's error body) once
     * {@code now} says so, 204 before.
     */
    private static HttpServer engine(int refusal, AtomicBoolean now) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext("/cb/events", ex -> {
            ex.getRequestBody().readAllBytes();
            int status = now.get() ? refusal : 204;
            byte[] body = status == 204 ? new byte[0]
                    : "{\"error\":\"run r1 has ended FAILED: abort its ranks\"}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                ex.getResponseBody().write(body);
            }
            ex.close();
        });
        s.start();
        return s;
    }

    /** A domain the test started, as the engine knows it. */
    private record Started(String domainId, String token) {
    }

    /** Starts both ranks of a new domain reporting to {@code engine}. */
    private static Started startDomain(HttpServer engine) throws Exception {
        String domainId = DomainToken.generate();
        String token = DomainToken.generate();
        List<Endpoint> eps = List.of(host.endpoint(TYPE), host.endpoint(TYPE));
        String cb = "http://127.0.0.1:" + engine.getAddress().getPort() + "/cb";
        for (int r = 0; r < 2; r++) {
            assertEquals("running", CLIENT.run(host.serviceUrl(TYPE), new RunRequest(domainId, r, eps, List.of(), Map.of(),
                    token, cb, "soap")));
        }
        return new Started(domainId, token);
    }

    /** The rank's status as the engine reads it: with the proof, so the failure message is in it. */
    private static RankStatus status(Started d, int rank) throws Exception {
        return CLIENT.status(host.serviceUrl(TYPE), d.domainId(), rank, new DomainToken(d.token()).proveStatus(d.domainId(), rank));
    }

    @ParameterizedTest
    @ValueSource(ints = {410, 404, 403})
    void aDomainWhoseEventsTheEngineRefusesIsAbortedAndAnotherRunsOn(int refusal) throws Exception {
        refusing = engine(refusal, refuse);
        taking = engine(204, new AtomicBoolean());
        Started observed = startDomain(taking);
        Started given = startDomain(refusing);
        refuse.set(true);

        for (int r = 0; r < 2; r++) {
            int rank = r;
            RankStatus s = Await.until(Duration.ofSeconds(30), "rank " + rank + " of the refused domain ends",
                    () -> status(given, rank), RankStatus::isFinal);
            // an aborted rank ends as the rank of a domain aborted by the engine does
            assertEquals("failed", s.state(), s.toString());
            assertTrue(String.valueOf(s.failure()).startsWith("DomainAbortedException"), s.toString());
            assertTrue(String.valueOf(s.failure()).contains("the engine refused this domain's events (HTTP " + refusal), s.toString());
        }
        for (int r = 0; r < 2; r++) {
            RankStatus s = status(observed, r);
            assertEquals("running", s.state(), "a domain whose events the engine takes runs on: " + s);
        }
        // the observed domain is ended here, not left to its minute
        host.registry().abortLocally(observed.domainId(), "test over");
    }
}
