package org.mpfl.engine.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.RankEvent;
import org.mpfl.testing.Await;
import org.mpfl.engine.HostCalls;

/** The REST surface: token checks, OpenAPI, console files, the live event stream, foreign events. */
@Timeout(60)
class RestApiTest {
    @TempDir
    Path dir;
    Engine engine;
    /** The ranks report their progress, output and end only once this is released (a test that must watch them). */
    volatile CountDownLatch reportWhen = new CountDownLatch(0);

    @BeforeEach
    void start() throws Exception {
        engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir).invoker(new FakeRanks(r -> {
            Thread.sleep(300);
            assertTrue(reportWhen.await(60, TimeUnit.SECONDS), "the test let the ranks report");
            r.event(RankEvent.Type.PROGRESS, null, null, null, null, null, Map.of("value", 1, "total", 2));
            r.output("x", r.rank());
            r.state("DONE");
        })));
        HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    static Map<String, Object> start(int ranks) {
        return Map.of("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "ranks", ranks))));
    }

    @Test
    void mutatingRequestsNeedTheEngineToken() throws Exception {
        Http.Answer none = Http.post(engine.url() + "/api/runs", null, start(1));
        assertEquals(401, none.status());
        assertTrue(none.json().get("error").asText().contains("Authorization: Bearer"));
        Http.Answer wrong = Http.post(engine.url() + "/api/runs", "not-the-token", start(1));
        assertEquals(401, wrong.status());
        assertEquals("wrong engine token", wrong.json().get("error").asText());
        assertEquals(0, Http.get(engine.url() + "/api/runs").json().size(), "a refused start leaves no run");
        assertEquals(401, Http.post(engine.url() + "/api/deployments", "x", Map.of()).status());
        assertEquals(401, Http.post(engine.url() + "/api/workflows", null, Map.of()).status());
        assertEquals(201, Http.post(engine.url() + "/api/runs", engine.token(), start(1)).status());
    }

    @Test
    void tokenFileIsPrivate() throws Exception {
        Path file = dir.resolve(Engine.TOKEN_FILE);
        assertEquals(engine.token(), Files.readString(file).strip());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertTrue(engine.token().length() >= 43, "256 bits, base64url");
    }

    @Test
    void authorizationIsNotEchoedAndErrorsAreJson() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(engine.url() + "/api/runs"))
                .header("Authorization", "Bearer " + engine.token()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{not json")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(400, r.statusCode());
        assertTrue(r.headers().firstValue("Authorization").isEmpty());
        assertTrue(r.body().contains("not valid JSON"), r.body());
        assertEquals(404, Http.get(engine.url() + "/api/runs/nope").status());
    }

    /**
     * A run log's {@code after} and {@code limit} out of range are the caller's mistake (400, saying what is
     * wanted), not the engine's: a negative limit reached the database and came back as a 500 carrying the SQL
     * statement and the database's version, to anyone who may read the run.
     */
    @Test
    void badLogParametersAre400AndNoAnswerShowsTheEnginesInternals() throws Exception {
        String id = Http.post(engine.url() + "/api/runs", engine.token(), start(1)).json().get("id").asText();
        for (String query : List.of("limit=-5", "limit=0", "after=-1", "after=abc", "limit=1e3")) {
            Http.Answer a = Http.get(engine.url() + "/api/runs/" + id + "/log?" + query);
            assertEquals(400, a.status(), query + ": " + a.body());
            String name = query.substring(0, query.indexOf('='));
            assertTrue(a.json().get("error").asText().startsWith(name + " must be a whole number"), a.body());
            assertFalse(a.body().contains("SELECT") || a.body().contains("Exception"), a.body());
        }
        assertEquals(200, Http.get(engine.url() + "/api/runs/" + id + "/log?after=0&limit=1000000").status(),
                "a limit above the largest page is served as the largest page, as before");
    }

    @Test
    void openApiAndConsoleAreServed() throws Exception {
        Http.Answer api = Http.get(engine.url() + "/api/openapi");
        assertEquals(200, api.status());
        assertTrue(api.body().startsWith("openapi: 3"));
        Http.Answer index = Http.get(engine.url() + "/");
        assertEquals(200, index.status());
        assertTrue(index.body().contains("<html"));
        assertEquals(404, Http.get(engine.url() + "/nothing.js").status());
    }

    @Test
    void eventStreamDeliversRankAndRunEventsLive() throws Exception {
        // the ranks end once the stream is open: on a loaded machine the run could end before the stream's request came,
        // and a stream that starts with an ended run's snapshot ("state":"SUCCEEDED") is all the reader below took
        CountDownLatch streamOpen = new CountDownLatch(1);
        reportWhen = streamOpen;
        String id = Http.post(engine.url() + "/api/runs", engine.token(), start(2)).json().get("id").asText();
        List<String> lines = new CopyOnWriteArrayList<>();
        HttpClient client = HttpClient.newHttpClient();
        CompletableFuture<HttpResponse<Stream<String>>> f = client.sendAsync(
                HttpRequest.newBuilder(URI.create(engine.url() + "/api/runs/" + id + "/events?after=0")).build(),
                HttpResponse.BodyHandlers.ofLines());
        HttpResponse<Stream<String>> resp = f.get(10, TimeUnit.SECONDS);
        assertEquals("text/event-stream; charset=utf-8", resp.headers().firstValue("Content-Type").orElse(""));
        Thread reader = new Thread(() -> resp.body().takeWhile(l -> !(l.contains("\"state\":\"SUCCEEDED\"")))
                .forEach(lines::add));
        reader.setDaemon(true);
        reader.start();
        Await.until(Duration.ofSeconds(30), "the stream's snapshot", () -> lines.contains("event: snapshot"));
        streamOpen.countDown();
        reader.join(30_000); // a bound for a broken build: the stream ends with the run
        assertFalse(reader.isAlive(), "the stream reported the end of the run: " + lines);
        assertEquals("event: snapshot", lines.get(0));
        assertTrue(lines.contains("event: rank"));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("data: ") && l.contains("\"type\":\"OUTPUT\"")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("id: ")));
        resp.body().close();
    }

    @Test
    void eventsOfAnotherDomainAreRefused() throws Exception {
        String id = Http.post(engine.url() + "/api/runs", engine.token(), start(1)).json().get("id").asText();
        // proved with a token of its own: a domain ID and token guessed together (RankEventAdmissionTest: the ID alone)
        Http.Answer a = Http.postRankEvents(engine.url() + "/api/runs/" + id + "/ranks/events", DomainToken.generate(), "guess",
                Map.of("domainId", "guess", "rank", 0, "seq", 99, "timeMs", 1, "type", "STATE", "state", "FAILED"));
        assertEquals(403, a.status());
        Http.Answer missing = Http.postRankEvents(engine.url() + "/api/runs/nope/ranks/events", DomainToken.generate(), "guess",
                Map.of("domainId", "guess", "rank", 0, "seq", 1, "timeMs", 1, "type", "LOG"));
        assertEquals(404, missing.status());
        Await.runIn(Duration.ofSeconds(30), "SUCCEEDED", () -> Http.get(engine.url() + "/api/runs/" + id).json());
        assertNull(Http.get(engine.url() + "/api/runs/" + id).json().get("domainId"), "the domain ID is a secret");
        String log = Http.get(engine.url() + "/api/runs/" + id + "/log").body();
        assertTrue(log.contains("\"type\":\"OUTPUT\""), log);
        assertTrue(!log.contains("domainId"), "stored rank events do not carry the domain ID: " + log);
    }
}
