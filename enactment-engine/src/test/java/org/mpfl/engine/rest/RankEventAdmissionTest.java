package org.mpfl.engine.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.RankEventPost;
import org.mpfl.protocol.RunRequest;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * Rank events are authorised by the domain's token, not by its ID ({@link RankEventPost}), against a
 * real engine over HTTP: someone who knows a run's domain ID but not its token cannot post its state
 * or outputs; a post is refused from its headers before its body is read (raw sockets announcing
 * 200 MB and sending none); a body that is not the one the proof covers is refused, nothing applied. The
 * refusals that end the domain for the engine carry its {@link EngineRefusal} mark, and no other answer does.
 */
@Timeout(120)
class RankEventAdmissionTest {
    /** A bound for answers that must not wait for the body: generous for a loaded 2-core machine. */
    private static final long PROMPT_MS = 15_000;

    @TempDir
    Path dir;
    Engine engine;
    /** The run's one rank, once it started. */
    final BlockingQueue<FakeRanks.Rank> started = new LinkedBlockingQueue<>();
    /** Lets the rank report its real output and end. */
    final CountDownLatch finish = new CountDownLatch(1);

    @BeforeEach
    void start() throws Exception {
        engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir)
                .invoker(new FakeRanks(r -> {
                    started.add(r);
                    assertTrue(finish.await(60, TimeUnit.SECONDS), "the test let the rank finish");
                    r.output("x", "real");
                    r.state("DONE");
                })));
        HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
    }

    @AfterEach
    void stop() {
        finish.countDown();
        engine.close();
    }

    /** Starts a one-rank run and returns its id once its rank runs. */
    private String runningRun() throws Exception {
        String id = Http.post(engine.url() + "/api/runs", engine.token(), RestApiTest.start(1)).json().get("id").asText();
        Await.runIn(Duration.ofSeconds(30), "RUNNING", () -> detail(id));
        return id;
    }

    private RunRequest rankRequest() throws InterruptedException {
        FakeRanks.Rank r = started.poll(30, TimeUnit.SECONDS);
        assertNotNull(r, "the rank started");
        return r.request();
    }

    private JsonNode detail(String id) throws Exception {
        return Http.get(engine.url() + "/api/runs/" + id).json();
    }

    private String eventsUrl(String id) {
        return engine.url() + "/api/runs/" + id + "/ranks/" + RankEventPost.PATH;
    }

    private static Map<String, Object> event(String domainId, long seq, String type, String key, Object value) {
        Map<String, Object> e = new LinkedHashMap<>(Map.of("domainId", domainId, "rank", 0, "seq", seq, "timeMs", 1, "type", type));
        e.put(key, value);
        if (type.equals("STATE")) {
            e.put("message", "forged by the attacker");
        }
        return e;
    }

    /** The run is still RUNNING, holds no forged output and none of the forged text; then it finishes with its real output. */
    private void assertUnharmedAndFinishes(String id) throws Exception {
        JsonNode d = detail(id);
        assertEquals("RUNNING", d.path("state").asText(), d.toString());
        assertFalse(d.toString().contains("forged"), d.toString());
        assertFalse(Http.get(engine.url() + "/api/runs/" + id + "/log").body().contains("forged"));
        finish.countDown();
        JsonNode end = Await.runIn(Duration.ofSeconds(30), "SUCCEEDED", () -> detail(id));
        assertEquals("real", end.path("outputs").path("x").path("0").asText(), end.toString());
        assertFalse(end.toString().contains("forged"), end.toString());
    }

    @Test
    void whoKnowsTheDomainIdButNotItsTokenCannotPostStatesOrOutputs() throws Exception {
        String id = runningRun();
        RunRequest rank = rankRequest();
        String domain = rank.domainId();
        String guessedToken = DomainToken.generate();
        Http.Answer failed = Http.postRankEvents(eventsUrl(id), guessedToken, domain, event(domain, 1000, "STATE", "state", "FAILED"));
        assertEquals(403, failed.status(), failed.body());
        Http.Answer output = Http.postRankEvents(eventsUrl(id), guessedToken, domain, event(domain, 1001, "OUTPUT", "name", "x"));
        assertEquals(403, output.status(), output.body());
        // as before: the domain ID alone, no headers
        Http.Answer bare = Http.post(eventsUrl(id), null, event(domain, 1002, "STATE", "state", "FAILED"));
        assertEquals(401, bare.status(), bare.body());
        // a checkpoint proof of the same domain and body is no events proof (labels differ)
        byte[] body = Json.write(event(domain, 1003, "STATE", "state", "FAILED")).getBytes(StandardCharsets.UTF_8);
        Map<String, String> h = new LinkedHashMap<>(RankEventPost.headers(rank.token(), domain, body));
        h.put(RankEventPost.PROOF_HEADER, java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                new DomainToken(rank.token()).proveCheckpoint(domain, 0, 1, h.get(RankEventPost.SHA256_HEADER))));
        assertEquals(403, post(eventsUrl(id), h, body));
        // the legitimate holder of the token is heard
        Http.Answer log = Http.postRankEvents(eventsUrl(id), rank.token(), domain, event(domain, 1004, "LOG", "message", "from the rank"));
        assertEquals(204, log.status(), log.body());
        assertTrue(Http.get(engine.url() + "/api/runs/" + id + "/log").body().contains("from the rank"));
        assertUnharmedAndFinishes(id);
    }

    @Test
    void aPostIsRefusedFromItsHeadersBeforeItsBodyIsRead() throws Exception {
        String id = runningRun();
        RunRequest rank = rankRequest();
        String domain = rank.domainId();
        String sha = "0".repeat(64);
        String wrongDomainProof = proof(DomainToken.generate(), "guessed", sha);
        record Case(String what, String path, Map<String, String> headers, int status) {
        }
        List<Case> cases = List.of(
                new Case("no headers", "/api/runs/" + id + "/ranks/events", Map.of(), 401),
                new Case("unknown run", "/api/runs/nope/ranks/events", Map.of(RankEventPost.DOMAIN_HEADER, domain,
                        RankEventPost.SHA256_HEADER, sha, RankEventPost.PROOF_HEADER, proof(rank.token(), domain, sha)), 404),
                new Case("wrong domain", "/api/runs/" + id + "/ranks/events", Map.of(RankEventPost.DOMAIN_HEADER, "guessed",
                        RankEventPost.SHA256_HEADER, sha, RankEventPost.PROOF_HEADER, wrongDomainProof), 403),
                new Case("bad proof", "/api/runs/" + id + "/ranks/events", Map.of(RankEventPost.DOMAIN_HEADER, domain,
                        RankEventPost.SHA256_HEADER, sha, RankEventPost.PROOF_HEADER, proof(DomainToken.generate(), domain, sha)), 403));
        for (Case c : cases) {
            long t0 = System.nanoTime();
            java.util.Map<String, String> headers = new java.util.LinkedHashMap<>(c.headers());
            headers.put("Content-Type", "application/json");
            String head = Http.postHeadOnly(engine.url(), c.path(), headers, 200_000_000L, (int) PROMPT_MS * 2);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(head.startsWith("HTTP/1.1 " + c.status()), c.what() + ": " + head);
            // the point: answered without the body, which never comes (waiting for it would hang until the socket's timeout)
            assertTrue(ms < PROMPT_MS, c.what() + " answered after " + ms + " ms");
        }
        // a proved post announcing more than the server's bound: the engine's own 413, marked (the host drops it),
        // at once and without the body
        Map<String, String> proved = new java.util.LinkedHashMap<>(Map.of(RankEventPost.DOMAIN_HEADER, domain,
                RankEventPost.SHA256_HEADER, sha, RankEventPost.PROOF_HEADER, proof(rank.token(), domain, sha), "Content-Type", "application/json"));
        List<String> head = Http.postHeadOnlyAnswer(engine.url(), "/api/runs/" + id + "/ranks/events", proved, 300L * 1024 * 1024,
                (int) PROMPT_MS * 2);
        assertTrue(head.get(0).startsWith("HTTP/1.1 413"), "too large: " + head);
        assertTrue(head.stream().anyMatch(h -> h.equalsIgnoreCase(EngineRefusal.HEADER + ": " + EngineRefusal.BATCH_REJECTED.value())),
                "too large: " + head);
        assertUnharmedAndFinishes(id);
    }

    @Test
    void aBodyThatIsNotTheOneProvedIsRefusedAndNothingOfItApplied() throws Exception {
        String id = runningRun();
        RunRequest rank = rankRequest();
        String domain = rank.domainId();
        // headers captured from a harmless post, carrying a forged body
        byte[] harmless = Json.write(event(domain, 2000, "LOG", "message", "harmless")).getBytes(StandardCharsets.UTF_8);
        Map<String, String> captured = RankEventPost.headers(rank.token(), domain, harmless);
        byte[] forged = Json.write(List.of(event(domain, 2001, "OUTPUT", "name", "x"), event(domain, 2002, "STATE", "state", "FAILED")))
                .getBytes(StandardCharsets.UTF_8);
        assertEquals(400, post(eventsUrl(id), captured, forged));
        // a proved body whose events name another domain (a token of a domain the run may have given up
        // must not speak for its current one): refused as a whole
        byte[] mixed = Json.write(List.of(event(domain, 2003, "LOG", "message", "mixed in"),
                event("another-domain", 2004, "STATE", "state", "FAILED"))).getBytes(StandardCharsets.UTF_8);
        assertEquals(403, post(eventsUrl(id), RankEventPost.headers(rank.token(), domain, mixed), mixed));
        assertFalse(Http.get(engine.url() + "/api/runs/" + id + "/log").body().contains("mixed in"), "nothing of it applied");
        assertUnharmedAndFinishes(id);
    }

    /**
     * The refusals that end a domain for the engine carry its {@link EngineRefusal} mark, on which alone a host
     * stops the domain's ranks; a post it will never take as it is (missing or malformed headers, a body that is not
     * the proved one, not JSON, not rank events) carries {@link EngineRefusal#BATCH_REJECTED}, on which alone a host
     * drops the batch; the engine's own refusal of a path it does not serve (a wrong prefix, as a misconfigured proxy
     * would send) carries none (a host keeps the batch and tries again).
     */
    @Test
    void theRefusalsThatEndADomainAndOnlyTheyCarryTheEnginesMark() throws Exception {
        String id = runningRun();
        RunRequest rank = rankRequest();
        String domain = rank.domainId();
        byte[] body = Json.write(event(domain, 3000, "LOG", "message", "a line")).getBytes(StandardCharsets.UTF_8);
        Map<String, String> proved = RankEventPost.headers(rank.token(), domain, body);
        byte[] otherBody = Json.write(event("guessed", 3001, "LOG", "message", "a line")).getBytes(StandardCharsets.UTF_8);
        byte[] forged = Json.write(event(domain, 3002, "STATE", "state", "FAILED")).getBytes(StandardCharsets.UTF_8);
        byte[] notJson = "{not json".getBytes(StandardCharsets.UTF_8);
        byte[] notEvent = "[1, 2]".getBytes(StandardCharsets.UTF_8);
        /** {@code status} 0: any 4xx. */
        record Case(String what, String url, Map<String, String> headers, byte[] body, int status, EngineRefusal mark) {
        }
        List<Case> cases = List.of(
                new Case("unknown run", engine.url() + "/api/runs/nope/ranks/events", proved, body, 404, EngineRefusal.DOMAIN_UNKNOWN),
                new Case("another domain", eventsUrl(id), RankEventPost.headers(DomainToken.generate(), "guessed", otherBody), otherBody,
                        403, EngineRefusal.DOMAIN_FOREIGN),
                new Case("a proof made with another token", eventsUrl(id), RankEventPost.headers(DomainToken.generate(), domain, body),
                        body, 403, EngineRefusal.FORBIDDEN),
                // the engine will never take these as they are: the host drops the batch on this mark alone
                new Case("no headers", eventsUrl(id), Map.of(), body, 401, EngineRefusal.BATCH_REJECTED),
                new Case("a malformed SHA-256 header", eventsUrl(id), Map.of(RankEventPost.DOMAIN_HEADER, domain,
                        RankEventPost.SHA256_HEADER, "not-hex", RankEventPost.PROOF_HEADER, "AAAA"), body, 400, EngineRefusal.BATCH_REJECTED),
                new Case("a body that is not the proved one", eventsUrl(id), proved, forged, 400, EngineRefusal.BATCH_REJECTED),
                new Case("a proved body that is not JSON", eventsUrl(id), RankEventPost.headers(rank.token(), domain, notJson), notJson,
                        400, EngineRefusal.BATCH_REJECTED),
                new Case("a proved body that is not a rank event", eventsUrl(id), RankEventPost.headers(rank.token(), domain, notEvent),
                        notEvent, 400, EngineRefusal.BATCH_REJECTED),
                // whatever the engine answers there (405 today: the console's GET-only routes), it is no word on the domain
                new Case("a path the engine does not serve", engine.url() + "/prefix/api/runs/" + id + "/ranks/events", proved, body,
                        0, null));
        for (Case c : cases) {
            java.net.http.HttpResponse<String> r = answer(c.url(), c.headers(), c.body());
            if (c.status() == 0) {
                assertEquals(4, r.statusCode() / 100, c.what() + ": " + r.statusCode() + " " + r.body());
            } else {
                assertEquals(c.status(), r.statusCode(), c.what() + ": " + r.body());
            }
            assertEquals(java.util.Optional.ofNullable(c.mark()).map(EngineRefusal::value), r.headers().firstValue(EngineRefusal.HEADER),
                    c.what());
        }
        assertUnharmedAndFinishes(id);
    }

    private static String proof(String token, String domain, String sha) {
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(new DomainToken(token).proveEvents(domain, sha));
    }

    /** POSTs {@code body} with the headers given (no others but the content type); returns the status. */
    private static int post(String url, Map<String, String> headers, byte[] body) throws Exception {
        return answer(url, headers, body).statusCode();
    }

    /** POSTs {@code body} with the headers given (no others but the content type); returns the answer. */
    private static java.net.http.HttpResponse<String> answer(String url, Map<String, String> headers, byte[] body) throws Exception {
        java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(b::header);
        return java.net.http.HttpClient.newHttpClient().send(b.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    }
}
