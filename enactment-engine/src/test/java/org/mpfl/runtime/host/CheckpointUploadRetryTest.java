package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.RunRequest;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;
import org.mpfl.testing.ReloadingProxy;

/**
 * A rank's checkpoint part goes through a reverse proxy ({@link ReloadingProxy}) to a real engine, uploaded by the
 * host's own {@link CheckpointUploader} with the domain, rank and token the engine gave the run's one rank:
 * <ul>
 * <li>the proxy's own 503 or 404 (no {@link EngineRefusal} mark: it reloads) for the first tries does not lose the
 *     part: it is sent again with a back-off and the engine stores it, once;</li>
 * <li>the engine's marked refusal (a proof that does not verify, a part above the engine's bound) is final: one try;</li>
 * <li>a proxy that never forwards costs the part its window and no more, and the report names its last answer;</li>
 * <li>an abort of the domain ends the retries at once, well inside the window.</li>
 * </ul>
 */
@Timeout(120)
class CheckpointUploadRetryTest {
    /** The engine's bound on a part in this test. */
    static final long MAX_PART = 4096;
    /** The proxy's refusals before it forwards. */
    static final int REFUSALS = 3;

    @TempDir
    Path dir;
    Engine engine;
    ReloadingProxy proxy;
    String runId;
    /** The run request the engine sent the run's one rank. */
    RunRequest rank;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() throws Exception {
        List<FakeRanks.Rank> started = new CopyOnWriteArrayList<>();
        FakeRanks ranks = new FakeRanks(r -> {
            started.add(r);
            r.awaitAbort(60_000);
        });
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(ranks).heartbeatTimeout(Duration.ofMinutes(10))
                .checkpointMaxBytes(MAX_PART));
        Http.Answer a = HostCalls.announce(engine, Map.of("hostId", "h0", "soapUrl", "http://127.0.0.1:1/axis2/services/h0",
                "services", List.of("ring"), "capacity", 1));
        assertEquals(201, a.status(), a.body());
        a = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "ring",
                "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", 1)))));
        assertEquals(201, a.status(), a.body());
        runId = a.json().get("id").asText();
        rank = Await.until(Duration.ofSeconds(30), "the run's rank is started", () -> started.isEmpty() ? null : started.get(0),
                r -> r != null).request();
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (engine != null) {
            engine.close();
        }
    }

    /** The rank's run request with its callback address under the proxy, and {@code token} to prove with. */
    RunRequest viaProxy(String token) {
        String callback = rank.callbackUrl().replace(engine.url(), proxy.url());
        assertTrue(callback.startsWith(proxy.url()), callback);
        return new RunRequest(rank.domainId(), rank.rank(), rank.endpoints(), rank.processes(), rank.params(), token, callback,
                rank.transport(), null);
    }

    CheckpointUploader uploader(RunRequest as, Duration window, java.util.function.BooleanSupplier aborted) {
        return new CheckpointUploader(as, http, aborted, window);
    }

    JsonNode detail() throws Exception {
        return Http.get(engine.url() + "/api/runs/" + runId).json();
    }

    static byte[] part(long seq) {
        return ("{\"rank\":0,\"checkpoint\":" + seq + "}").getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(ints = {503, 404})
    void aProxysUnmarkedAnswersDoNotLoseThePart(int status) throws Exception {
        proxy = new ReloadingProxy(engine.url(), REFUSALS, status);
        String failure = uploader(viaProxy(rank.token()), Duration.ofSeconds(30), () -> false).upload(1, part(1));
        assertNull(failure, "stored after the proxy's " + REFUSALS + " answers " + status);
        assertEquals(REFUSALS + 1, proxy.requests(), "sent again until the engine took it, then no more");
        assertEquals(1, proxy.forwarded());
        JsonNode d = detail();
        assertEquals(1, d.get("checkpointsTaken").asInt(), d.toString());
        assertTrue(d.at("/checkpoints/0/complete").asBoolean(), d.toString());
    }

    @Test
    void theEnginesMarkedRefusalIsFinalAfterOneTry() throws Exception {
        proxy = new ReloadingProxy(engine.url(), 0);
        // a token that is not the domain's: the proof does not verify (403 forbidden)
        String failure = uploader(viaProxy(DomainToken.generate()), Duration.ofSeconds(30), () -> false).upload(1, part(1));
        assertTrue(failure != null && failure.contains("HTTP 403 (" + EngineRefusal.FORBIDDEN.value() + ")"), failure);
        assertEquals(1, proxy.requests(), failure);
        // a part above the engine's bound (413 batch-rejected)
        byte[] big = new byte[(int) MAX_PART + 1];
        java.util.Arrays.fill(big, (byte) 'a');
        failure = uploader(viaProxy(rank.token()), Duration.ofSeconds(30), () -> false).upload(1, big);
        assertTrue(failure != null && failure.contains("HTTP 413 (" + EngineRefusal.BATCH_REJECTED.value() + ")"), failure);
        assertEquals(2, proxy.requests(), failure);
        assertEquals(0, detail().get("checkpoints").size());
    }

    @Test
    void aProxyThatNeverForwardsCostsThePartItsWindowAndNoMore() throws Exception {
        proxy = new ReloadingProxy(engine.url(), Integer.MAX_VALUE, 503);
        // 6 s: several tries fit even when the proxy's first answer takes seconds on a loaded machine (with 2 s, at load
        // ~25 on 2 cores, no answer came within the window: "the engine did not answer within 2000 ms")
        long window = 6_000;
        long t0 = System.nanoTime();
        String failure = uploader(viaProxy(rank.token()), Duration.ofMillis(window), () -> false).upload(1, part(1));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(failure != null && failure.startsWith("not stored within " + window + " ms") && failure.contains("last: HTTP 503"),
                failure);
        assertTrue(proxy.requests() > 1, "tried again: " + proxy.requests());
        // the window bounds it (a slow machine may add to the last try's answer, not another back-off)
        assertTrue(ms <= window + 3_000, ms + " ms for a window of " + window + " ms");
        assertEquals(0, detail().get("checkpoints").size());
    }

    @Test
    void anAbortOfTheDomainEndsTheRetriesAtOnce() throws Exception {
        proxy = new ReloadingProxy(engine.url(), Integer.MAX_VALUE, 502);
        long t0 = System.nanoTime();
        // the domain is aborted once the proxy has answered twice
        String failure = uploader(viaProxy(rank.token()), Duration.ofSeconds(60), () -> proxy.requests() >= 2).upload(1, part(1));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals("the domain was aborted while the part was being stored", failure);
        assertEquals(2, proxy.requests());
        assertTrue(ms < 15_000, ms + " ms, of a 60 s window");
    }
}
