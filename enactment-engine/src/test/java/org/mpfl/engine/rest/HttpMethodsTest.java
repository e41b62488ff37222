package org.mpfl.engine.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
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
 * The methods HTTP gives every resource, as a careful client uses them over real HTTP: a method a path does not take
 * is answered 405 with the API's JSON error and {@code Allow}; {@code HEAD} is the {@code GET} without its body;
 * {@code OPTIONS} answers {@code Allow}. All three were 405 with an empty body (found using the API with curl).
 */
@Timeout(60)
class HttpMethodsTest {
    @TempDir
    Path dir;
    Engine engine;

    @BeforeEach
    void start() throws Exception {
        engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir)
                .token("admin-token").invoker(new FakeRanks(r -> r.state("DONE"))));
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void aMethodThePathDoesNotTakeIsSaidInJsonWithAllow() throws Exception {
        for (String[] c : List.of(new String[] {"PATCH", "/api/runs", "GET, HEAD, POST, OPTIONS"},
                new String[] {"DELETE", "/api/runs/r1/cancel", "POST, OPTIONS"},
                new String[] {"PUT", "/api/registry/hosts/h1", "GET, HEAD, DELETE, OPTIONS"},
                new String[] {"POST", "/api/runs/r1/events", "GET, HEAD, OPTIONS"},
                new String[] {"HEAD", "/api/registry/relays/check", "POST, OPTIONS"})) {
            Http.Answer a = Http.send(c[0], engine.url() + c[1], "Bearer admin-token", null);
            assertEquals(405, a.status(), c[0] + " " + c[1] + ": " + a.body());
            assertEquals(c[2], a.headers().firstValue("Allow").orElse(null), c[0] + " " + c[1]);
            if (!c[0].equals("HEAD")) {
                assertEquals("application/json", a.headers().firstValue("Content-Type").orElse(null), c[1]);
                assertEquals(c[0] + " is not allowed on " + c[1] + ": it takes " + c[2], a.json().get("error").asText());
            }
        }
    }

    @Test
    void headIsTheGetWithoutItsBody() throws Exception {
        HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
        Http.Answer run = Http.post(engine.url() + "/api/runs", "admin-token",
                Map.of("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "ranks", 1)))));
        assertEquals(201, run.status(), run.body());
        String id = run.json().get("id").asText();
        for (String path : List.of("/api/engine", "/api/runs?limit=1", "/api/runs/" + id, "/api/runs/" + id + "/logs",
                "/api/runs/" + id + "/events", "/api/runs/nope", "/api/registry/hosts", "/api/audit?limit=1", "/api/runs?limit=0")) {
            Http.Answer get = Http.send("GET", engine.url() + path, "Bearer admin-token", null);
            Http.Answer head = Http.send("HEAD", engine.url() + path, "Bearer admin-token", null);
            assertEquals(get.status(), head.status(), path + ": " + head.body());
            assertEquals("", head.body(), path);
            for (String h : List.of("Content-Type", "X-Total-Count", "Content-Security-Policy")) {
                assertEquals(get.headers().firstValue(h), head.headers().firstValue(h), path + ": " + h);
            }
        }
        assertEquals(400, Http.send("HEAD", engine.url() + "/api/runs?limit=0", "Bearer admin-token", null).status(), "the GET's query");
        assertEquals(401, Http.send("HEAD", engine.url() + "/api/audit", "Bearer wrong", null).status(), "the GET's access check");
        // over HTTP/1.1 nothing follows the head: the connection's next answer would be read from a body's bytes
        String answer = ClientMistakesTest.raw(engine.url(), "HEAD /api/engine HTTP/1.1\r\nAuthorization: Bearer admin-token\r\n");
        assertTrue(answer.startsWith("HTTP/1.1 200 "), answer);
        assertTrue(answer.endsWith("\r\n\r\n"), answer);
        assertTrue(answer.toLowerCase(Locale.ROOT).contains("content-type: application/json"), answer);
    }

    @Test
    void optionsAnswersAllow() throws Exception {
        for (String[] c : List.of(new String[] {"/api/engine", "GET, HEAD, OPTIONS"},
                new String[] {"/api/runs", "GET, HEAD, POST, OPTIONS"},
                new String[] {"/api/runs/r1/cancel", "POST, OPTIONS"},
                new String[] {"/api/registry/credentials/c1", "DELETE, OPTIONS"})) {
            Http.Answer a = Http.send("OPTIONS", engine.url() + c[0], "Bearer admin-token", null);
            assertEquals(204, a.status(), c[0] + ": " + a.body());
            assertEquals(c[1], a.headers().firstValue("Allow").orElse(null), c[0]);
        }
        Http.Answer unknown = Http.send("OPTIONS", engine.url() + "/api/nope", "Bearer admin-token", null);
        assertEquals(404, unknown.status(), unknown.body());
        assertEquals("no such API endpoint: OPTIONS /api/nope (GET /api/openapi lists them)", unknown.json().get("error").asText());
        Http.Answer withBody = Http.send("OPTIONS", engine.url() + "/api/runs", "Bearer admin-token", "{}");
        assertEquals(400, withBody.status(), "a read announcing a body is still refused: " + withBody.body());
        assertEquals("a OPTIONS request takes no body", withBody.json().get("error").asText());
    }
}
