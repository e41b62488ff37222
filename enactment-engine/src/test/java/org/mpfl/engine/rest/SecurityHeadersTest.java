package org.mpfl.engine.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
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
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.testing.Http;

/**
 * Every answer tells a browser not to sniff its type, not to let another site frame it, and what it may run: the
 * console its own scripts only, an API answer nothing. Before, no answer carried any of these headers.
 */
@Timeout(60)
class SecurityHeadersTest {
    @TempDir
    Path dir;
    Engine engine;

    @BeforeEach
    void start() throws Exception {
        engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir)
                .invoker(new FakeRanks(r -> r.state("DONE"))));
        HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void consoleFilesMayRunOnlyTheConsolesOwnScripts() throws Exception {
        for (String path : List.of("/", "/index.html", "/js/app.js", "/console.css", "/nothing.js")) {
            HttpHeaders h = get(path, null).headers();
            common(path, h);
            String csp = h.firstValue("Content-Security-Policy").orElse("");
            assertEquals(SecurityHeaders.CONSOLE_POLICY, csp, path);
            assertTrue(csp.contains("script-src 'self'") && csp.contains("object-src 'none'") && csp.contains("base-uri 'none'"), csp);
            assertFalse(csp.contains("unsafe-inline") || csp.contains("unsafe-eval"), csp);
        }
    }

    @Test
    void apiAnswersRunNothingWhoeverWritesThem() throws Exception {
        String id = Http.post(engine.url() + "/api/runs", engine.token(),
                Map.of("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "ranks", 1))))).json().get("id").asText();
        // Camel's routes (200, 404, 401), the access filter's refusal, the event stream of an ended run, Vert.x's own 404
        for (String path : List.of("/api/runs", "/api/runs/nope", "/api/openapi", "/api/auth", "/api/runs/" + id + "/log",
                "/api/no-such-route")) {
            HttpResponse<String> r = get(path, engine.token());
            common(path, r.headers());
            assertEquals(SecurityHeaders.API_POLICY, r.headers().firstValue("Content-Security-Policy").orElse(""), path);
        }
        HttpResponse<String> refused = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(engine.url() + "/api/runs"))
                .header("Authorization", "Bearer wrong").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(401, refused.statusCode());
        common("refused POST", refused.headers());
        HttpResponse<String> stream = get("/api/runs/" + id + "/events", engine.token());
        assertTrue(stream.body().contains("event: snapshot"), stream.body());
        common("event stream", stream.headers());
    }

    private static void common(String what, HttpHeaders h) {
        assertEquals("nosniff", h.firstValue("X-Content-Type-Options").orElse(""), what);
        assertEquals("DENY", h.firstValue("X-Frame-Options").orElse(""), what);
        assertEquals("same-origin", h.firstValue("Referrer-Policy").orElse(""), what);
        assertTrue(h.firstValue("Content-Security-Policy").orElse("").contains("frame-ancestors 'none'"), what);
    }

    private HttpResponse<String> get(String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(engine.url() + path)).timeout(Duration.ofSeconds(20));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
