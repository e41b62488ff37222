package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.runtime.api.ReceiveTimeoutException;
import org.mpfl.testing.Await;
import org.mpfl.testing.ReloadingProxy;
import org.mpfl.testing.Http;

/**
 * A host whose engine refuses a domain's events — 410 (the run ended FAILED or CANCELLED), 404 (no such
 * run), 403 (a domain the run gave up), each with the engine's {@link EngineRefusal} mark — aborts that
 * domain's ranks at once instead of running them on unobserved; another domain of the same host, whose engine
 * takes its events, runs on. A 404 without the mark (or a 405, 413, 401), from a proxy in front of the engine, ends nothing: the
 * events are posted again until they reach the engine, which gets each once. A real service host in this JVM
 * (Axis2 on loopback), its ranks started with {@code run} over SOAP, and small engines and a proxy over real HTTP.
 */
@Timeout(120)
class EngineRefusedEventsTest {
    private static final String TYPE = "Waiter";
    /** Logs three lines, then waits for {@link #RELEASE} and ends with an output. */
    private static final String TALKER = "Talker";
    private static final AtomicBoolean RELEASE = new AtomicBoolean();
    private static final MpiwsClient CLIENT = new MpiwsClient(Duration.ofSeconds(20));
    private static final ObjectMapper JSON = new ObjectMapper();
    private static ServiceHost host;
    private HttpServer refusing;
    /** Whether the refusing engine refuses yet: not before both ranks of its domain are started. */
    private final AtomicBoolean refuse = new AtomicBoolean();
    private HttpServer taking;
    private ReloadingProxy proxy;

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
        host.registerServiceType(TALKER, () -> ctx -> {
            for (int i = 0; i < 3; i++) {
                ctx.log("info", "hello " + i);
            }
            // an abort of the domain ends the wait with DomainAbortedException (the rank fails)
            for (int i = 0; i < 300 && !RELEASE.get(); i++) {
                try {
                    ctx.world().recv(1 - ctx.world().rank(), 98, Duration.ofMillis(200));
                } catch (ReceiveTimeoutException still) {
                    // not released yet
                }
            }
            ctx.output("rank", ctx.world().rank());
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
        if (proxy != null) {
            proxy.close();
        }
    }

    /**
     * A stand-in engine answering every event POST with {@code status} (and an engine's error body and its
     * {@link EngineRefusal} mark) once {@code now} says so, 204 before.
     */
    private static HttpServer engine(int refusal, AtomicBoolean now) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext("/cb/events", ex -> {
            ex.getRequestBody().readAllBytes();
            int status = now.get() ? refusal : 204;
            if (status != 204) {
                ex.getResponseHeaders().add(EngineRefusal.HEADER, java.util.Arrays.stream(EngineRefusal.values())
                        .filter(m -> m.status() == status).findFirst().orElseThrow().value());
            }
            Http.answer(ex, status, status == 204 ? "" : "{\"error\":\"run r1 has ended FAILED: abort its ranks\"}");
        });
        s.start();
        return s;
    }

    /** A domain the test started, as the engine knows it. */
    private record Started(String domainId, String token) {
    }

    /** Starts both ranks of a new domain reporting to {@code engine}. */
    private static Started startDomain(HttpServer engine) throws Exception {
        Started d = new Started(DomainToken.generate(), DomainToken.generate());
        startDomain(d, TYPE, "http://127.0.0.1:" + engine.getAddress().getPort() + "/cb");
        return d;
    }

    /** Starts both ranks of domain {@code d}, of service type {@code type}, reporting to {@code callbackUrl}. */
    private static void startDomain(Started d, String type, String callbackUrl) throws Exception {
        List<Endpoint> eps = List.of(host.endpoint(type), host.endpoint(type));
        for (int r = 0; r < 2; r++) {
            assertEquals("running", CLIENT.run(host.serviceUrl(type), new RunRequest(d.domainId(), r, eps, List.of(), Map.of(),
                    d.token(), callbackUrl, "soap")));
        }
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

    /**
     * A reverse proxy in front of the engine ({@link ReloadingProxy}) answers the first {@code N} event POSTs 404
     * (its own page, no {@link EngineRefusal} mark: it is reloading), or 405 (a wrong path prefix during an upgrade),
     * or 413 (its body limit), or 401 (a login), then forwards them. The domain's ranks are not aborted:
     * the host keeps the events, posts them again with its back-off, and the engine behind the proxy gets
     * every event of both ranks exactly once, through their final state.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {404, 405, 413, 401})
    void aProxysUnmarkedRefusalDoesNotStopTheDomainAndTheEventsArriveOnce(int status) throws Exception {
        final int refusals = 4;
        RELEASE.set(false);
        Started d = new Started(DomainToken.generate(), DomainToken.generate());
        // the engine behind the proxy: takes every post whose headers prove its body, records each event
        List<JsonNode> got = new CopyOnWriteArrayList<>();
        List<String> unproved = new CopyOnWriteArrayList<>();
        taking = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        taking.createContext("/cb/events", ex -> {
            byte[] bytes = ex.getRequestBody().readAllBytes();
            String why = EventPosterTest.unproved(d.domainId(), d.token(), ex.getRequestHeaders(), bytes);
            if (why != null) {
                unproved.add(why);
            }
            JsonNode body = JSON.readTree(bytes);
            if (body.isArray()) {
                body.forEach(got::add);
            } else {
                got.add(body);
            }
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        taking.start();
        proxy = new ReloadingProxy("http://127.0.0.1:" + taking.getAddress().getPort(), refusals, status);
        startDomain(d, TALKER, proxy.url() + "/cb");

        // each rank's poster posts again after the proxy's refusals: once both ranks' events reach the engine, every
        // 404 was heard (an abort would have come before the next post of the same rank)
        Await.until(Duration.ofSeconds(60), () -> "both ranks' events pass the proxy (" + proxy.requests() + " POSTs)",
                () -> got.stream().map(e -> e.path("rank").asInt()).distinct().count(), n -> n == 2);
        assertTrue(proxy.requests() > refusals, proxy.requests() + " POSTs");
        for (int r = 0; r < 2; r++) {
            RankStatus s = status(d, r);
            assertEquals("running", s.state(), "the proxy's " + status + " stopped the domain: " + s);
        }
        RELEASE.set(true);
        for (int r = 0; r < 2; r++) {
            int rank = r;
            RankStatus s = Await.until(Duration.ofSeconds(30), "rank " + rank + " ends", () -> status(d, rank), RankStatus::isFinal);
            assertEquals("done", s.state(), s.toString());
        }
        Await.until(Duration.ofSeconds(60), "both ranks' final states reach the engine",
                () -> got.stream().filter(e -> "DONE".equals(e.path("state").asText())).count(), n -> n == 2);
        for (int r = 0; r < 2; r++) {
            int rank = r;
            List<Long> seqs = got.stream().filter(e -> e.path("rank").asInt() == rank).map(e -> e.path("seq").asLong()).toList();
            // every event once, in order, none missing: 0, 1, 2, … up to the final state
            assertEquals(java.util.stream.LongStream.range(0, seqs.size()).boxed().toList(), seqs, "rank " + rank);
            List<String> lines = got.stream().filter(e -> e.path("rank").asInt() == rank && "LOG".equals(e.path("type").asText()))
                    .map(e -> e.path("message").asText()).toList();
            assertEquals(List.of("hello 0", "hello 1", "hello 2"), lines, "rank " + rank);
            assertTrue(got.stream().anyMatch(e -> e.path("rank").asInt() == rank && "OUTPUT".equals(e.path("type").asText())
                    && e.path("value").asInt(-1) == rank), "rank " + rank + "'s output");
        }
        assertEquals(List.of(), unproved, "every forwarded post proves its body");
    }
}
