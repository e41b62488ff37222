package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.RankEventPost;
import org.mpfl.protocol.digest.Sha256;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.testing.Await;
import org.mpfl.testing.Ports;

/**
 * A rank's events outlive an engine that is away (issue 14): with nothing listening at the callback
 * address, posting never blocks the rank, the backlog stays bounded while keeping the terminal events
 * and the latest progress, and everything kept arrives in order once an engine listens there again
 * (real HTTP on loopback). An engine that answers and refuses (a 404 with its {@link EngineRefusal} mark) gets no
 * retries; a 403, 404 or 410 without the mark (a proxy's), or any other refusal without it, is tried again; the
 * engine's marked rejection of a batch drops that batch only. Every POST carries
 * the headers of {@link RankEventPost}: the domain, the SHA-256 of the body and a proof that verifies with
 * the domain's token over the body the engine received.
 */
@Timeout(60)
class EventPosterTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private static final String DOMAIN = "domain";
    private static final String TOKEN = DomainToken.generate();
    private HttpServer server;
    /** POSTs whose headers did not prove their body for {@link #DOMAIN} with {@link #TOKEN}, and why. */
    private final List<String> unproved = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
        threads.shutdownNow();
    }

    private static RankEvent event(long seq, RankEvent.Type type, String state, String message, String name, Object value) {
        return new RankEvent(DOMAIN, 0, seq, System.currentTimeMillis(), type, state, null, null, message, null, name, value);
    }

    /** An engine at {@code port} answering {@code status} to every POST and recording the events it took. */
    private List<JsonNode> engine(int port, int status, AtomicInteger posts) throws Exception {
        return engine(port, n -> status, null, posts);
    }

    /**
     * A server at {@code port} answering the {@code n}th POST (from 1) with {@code status.applyAsInt(n)}, marked
     * with {@code mark} ({@code null}: no mark) when that is not a 2xx, and recording the events it took.
     */
    private List<JsonNode> engine(int port, java.util.function.IntUnaryOperator status, EngineRefusal mark, AtomicInteger posts)
            throws Exception {
        List<JsonNode> got = new CopyOnWriteArrayList<>();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.createContext("/cb/events", ex -> {
            byte[] bytes = ex.getRequestBody().readAllBytes();
            String why = unproved(ex.getRequestHeaders(), bytes);
            if (why != null) {
                unproved.add(why);
            }
            JsonNode body = JSON.readTree(bytes);
            int code = status.applyAsInt(posts.incrementAndGet());
            if (code / 100 == 2) {
                if (body.isArray()) {
                    body.forEach(got::add);
                } else {
                    got.add(body);
                }
            }
            if (code / 100 != 2 && mark != null) {
                ex.getResponseHeaders().add(EngineRefusal.HEADER, mark.value());
            }
            ex.sendResponseHeaders(code, -1);
            ex.close();
        });
        server.start();
        return got;
    }

    /**
     * Why a POST's headers do not prove its body for {@code domainId} with {@code token} as the engine checks
     * them, or {@code null} when they do (also the check of {@link ServiceHostSoapTest}'s stand-in engine).
     */
    static String unproved(String domainId, String token, com.sun.net.httpserver.Headers h, byte[] body) {
        String domain = h.getFirst(RankEventPost.DOMAIN_HEADER);
        String sha = h.getFirst(RankEventPost.SHA256_HEADER);
        String proof = h.getFirst(RankEventPost.PROOF_HEADER);
        if (!domainId.equals(domain)) {
            return "domain header " + domain;
        }
        if (!Sha256.hex(body).equals(sha)) {
            return "SHA-256 header " + sha + " is not the body's";
        }
        if (proof == null || !new DomainToken(token).verifyEvents(domain, sha, Base64.getUrlDecoder().decode(proof))) {
            return "proof " + proof + " does not verify";
        }
        return null;
    }

    private static String unproved(com.sun.net.httpserver.Headers h, byte[] body) {
        return unproved(DOMAIN, TOKEN, h, body);
    }

    private EventPoster poster(int port) {
        return new EventPoster("http://127.0.0.1:" + port + "/cb", DOMAIN, TOKEN, threads, EventPoster.client(TlsSettings.NONE));
    }

    /** A poster to the server at {@code port} whose refusal listener adds {@code HTTP status} to {@code told}. */
    private EventPoster telling(int port, List<String> told) {
        return new EventPoster("http://127.0.0.1:" + port + "/cb", DOMAIN, TOKEN, threads, EventPoster.client(TlsSettings.NONE),
                (code, message) -> told.add("HTTP " + code));
    }

    /** The sequence numbers of the events {@code got}, once a DONE state is among them (bounded wait). */
    private static List<Long> seqsOnceDone(List<JsonNode> got, AtomicInteger posts) throws Exception {
        Await.until(Duration.ofSeconds(30), () -> "the final state arrives (" + posts.get() + " POSTs)",
                () -> got.stream().anyMatch(e -> "DONE".equals(e.path("state").asText())), Boolean.TRUE::equals);
        List<Long> seqs = new ArrayList<>();
        got.forEach(e -> seqs.add(e.path("seq").asLong()));
        return seqs;
    }

    @Test
    void everyPostCarriesTheDomainAndAProofOfItsBodyMadeWithTheDomainsToken() throws Exception {
        int port = Ports.outsideEphemeralRange();
        AtomicInteger posts = new AtomicInteger();
        List<JsonNode> got = engine(port, 204, posts);
        EventPoster poster = poster(port);
        poster.post(event(0, RankEvent.Type.STATE, "RUNNING", null, null, null));
        poster.flush(Duration.ofSeconds(10));
        poster.post(event(1, RankEvent.Type.OUTPUT, null, null, "answer", 42));
        poster.post(event(2, RankEvent.Type.STATE, "DONE", null, null, null));
        poster.flush(Duration.ofSeconds(10));
        Await.until(Duration.ofSeconds(30), "the three events arrive", got::size, n -> n == 3);
        assertTrue(posts.get() >= 2, posts.get() + " POSTs");
        assertEquals(List.of(), unproved, "every POST proves its body");
        // the check can fail: the same headers do not prove another token's or another body's post
        byte[] body = JSON.writeValueAsBytes(event(3, RankEvent.Type.STATE, "FAILED", null, null, null));
        Map<String, String> other = RankEventPost.headers(DomainToken.generate(), DOMAIN, body);
        com.sun.net.httpserver.Headers h = new com.sun.net.httpserver.Headers();
        other.forEach(h::add);
        assertTrue(unproved(h, body) != null, "a proof made with another token verified");
        RankEventPost.headers(TOKEN, DOMAIN, body).forEach(h::set);
        assertEquals(null, unproved(h, body));
        assertTrue(unproved(h, JSON.writeValueAsBytes(event(4, RankEvent.Type.STATE, "FAILED", null, null, null))) != null,
                "the headers of one body proved another");
    }

    @Test
    void eventsKeptWhileTheEngineIsDownArriveInOrderWhenItIsBackAndTheResultsAreNeverDropped() throws Exception {
        // the poster dials this port while nothing listens there: outside the ephemeral range, no dial can connect to
        // itself and hold the port the engine is started at below
        int port = Ports.outsideEphemeralRange();
        EventPoster poster = poster(port);
        long seq = 0;
        long t0 = System.nanoTime();
        poster.post(event(seq++, RankEvent.Type.STATE, "RUNNING", null, null, null));
        // a chatty rank: far more routine events than the backlog holds, progress all along
        for (int i = 0; i < 3 * EventPoster.MAX_QUEUED; i++) {
            poster.post(event(seq++, RankEvent.Type.LOG, null, "line " + i, null, null));
            if (i % 10 == 0) {
                poster.post(event(seq++, RankEvent.Type.PROGRESS, null, null, null, Map.of("value", i, "total", 30_000)));
            }
        }
        poster.post(event(seq++, RankEvent.Type.PROGRESS, null, null, null, Map.of("value", 30_000, "total", 30_000)));
        poster.post(event(seq++, RankEvent.Type.OUTPUT, null, null, "answer", 42));
        poster.post(event(seq++, RankEvent.Type.STATE, "DONE", null, null, null));
        long postMs = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(postMs < 5_000, "posting took " + postMs + " ms: it must never wait for the engine");
        assertTrue(poster.queued() <= EventPoster.HARD_CAP, poster.queued() + " queued");
        assertTrue(poster.dropped() > 0, "nothing dropped: the backlog is not bounded");
        // the engine is still away for a while: nothing is lost meanwhile
        Thread.sleep(1_500);
        AtomicInteger posts = new AtomicInteger();
        List<JsonNode> got = engine(port, 200, posts);
        Await.until(Duration.ofSeconds(60), () -> "the final state arrives (" + got.size() + " events)",
                () -> got.stream().anyMatch(e -> "DONE".equals(e.path("state").asText())), Boolean.TRUE::equals);
        List<Long> seqs = new ArrayList<>();
        got.forEach(e -> seqs.add(e.path("seq").asLong()));
        for (int i = 1; i < seqs.size(); i++) {
            assertTrue(seqs.get(i) > seqs.get(i - 1), "out of order at " + i + ": " + seqs.get(i - 1) + ", " + seqs.get(i));
        }
        assertEquals("RUNNING", got.get(0).path("state").asText(), "the first event");
        assertTrue(got.stream().anyMatch(e -> "OUTPUT".equals(e.path("type").asText()) && e.path("value").asInt() == 42),
                "the output was dropped");
        JsonNode lastProgress = null;
        for (JsonNode e : got) {
            if ("PROGRESS".equals(e.path("type").asText())) {
                lastProgress = e;
            }
        }
        assertTrue(lastProgress != null && lastProgress.at("/value/value").asInt() == 30_000, "the latest progress was dropped");
        assertTrue(got.size() <= EventPoster.HARD_CAP, got.size() + " events delivered");
        assertEquals(seq - got.size(), poster.dropped(), "every event is either delivered or counted as dropped");
        assertEquals(List.of(), unproved, "every POST proves its body");
    }

    @Test
    void anEngineThatRefusesTheEventsGetsNoRetries() throws Exception {
        int port = Ports.outsideEphemeralRange();
        AtomicInteger posts = new AtomicInteger();
        engine(port, n -> 404, EngineRefusal.DOMAIN_UNKNOWN, posts);
        List<String> told = new CopyOnWriteArrayList<>();
        EventPoster poster = telling(port, told);
        poster.post(event(0, RankEvent.Type.STATE, "DONE", null, null, null));
        poster.flush(Duration.ofSeconds(10));
        Thread.sleep(1_500);
        assertEquals(1, posts.get(), "a refused batch was sent again");
        assertEquals(0, poster.queued());
        assertEquals(1, poster.dropped());
        assertEquals(List.of("HTTP 404"), told, "the engine's marked 404 ends the domain");
    }

    /**
     * Events the engine refuses because the run has left their domain (restarted on a new one, failed, cancelled) are
     * late by design, as the ranks of the old domain are being aborted: an INFO line, not a WARN (which mpflc run
     * --local shows in the user's terminal after each restart). A run the engine does not know is still a warning.
     * The domain is given up either way.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"403,DOMAIN_FOREIGN,INFO", "410,DOMAIN_ENDED,INFO", "404,DOMAIN_UNKNOWN,WARN"})
    void eventsOfADomainTheRunHasLeftAreDroppedWithoutAWarning(int status, EngineRefusal mark, String level) throws Exception {
        int port = Ports.outsideEphemeralRange();
        AtomicInteger posts = new AtomicInteger();
        engine(port, n -> status, mark, posts);
        List<String> told = new CopyOnWriteArrayList<>();
        EventPoster poster = telling(port, told);
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream said = new java.io.ByteArrayOutputStream();
        // slf4j-simple writes to whatever System.err is at the moment
        System.setErr(new java.io.PrintStream(said, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            poster.post(event(0, RankEvent.Type.STATE, "ABORTED", null, null, null));
            poster.flush(Duration.ofSeconds(10));
            Await.until(Duration.ofSeconds(10), "the refusal is told", () -> told.size() == 1);
        } finally {
            System.setErr(err);
        }
        List<String> lines = said.toString(java.nio.charset.StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains("engine refused 1 event(s) with HTTP " + status)).toList();
        assertEquals(1, lines.size(), "one line about the refusal: " + said);
        assertTrue(lines.get(0).contains(" " + level + " "), "said at " + level + ": " + lines.get(0));
        assertEquals(1, poster.dropped());
    }

    /**
     * A 403, 404 or 410 without the engine's {@link EngineRefusal} mark (a proxy in front of the engine while it
     * reloads) is not the engine's word: the batch is kept and tried again, the domain is not given up, and once
     * the engine is reached every event arrives, once and in order. So is a mark that goes with another status, and
     * any other status without the engine's mark: a proxy's 405 under a wrong path prefix, its 413 body limit, its
     * 401 login, a 400 (only the engine's {@link EngineRefusal#BATCH_REJECTED} drops a batch).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"404,", "403,", "410,", "404,DOMAIN_ENDED", "405,", "413,", "401,", "400,",
            "400,DOMAIN_UNKNOWN", "405,BATCH_REJECTED", "401,CREDENTIAL_REFUSED"})
    void anUnmarkedRefusalIsTriedAgainAndTheEventsArriveOnce(int status, EngineRefusal wrongMark) throws Exception {
        int port = Ports.outsideEphemeralRange();
        AtomicInteger posts = new AtomicInteger();
        // the first three POSTs are the stranger's; then the engine is reached
        List<JsonNode> got = engine(port, n -> n <= 3 ? status : 204, wrongMark, posts);
        List<String> told = new CopyOnWriteArrayList<>();
        EventPoster poster = telling(port, told);
        poster.post(event(0, RankEvent.Type.STATE, "RUNNING", null, null, null));
        poster.post(event(1, RankEvent.Type.LOG, null, "a line", null, null));
        poster.post(event(2, RankEvent.Type.OUTPUT, null, null, "answer", 42));
        poster.post(event(3, RankEvent.Type.STATE, "DONE", null, null, null));
        List<Long> seqs = seqsOnceDone(got, posts);
        assertEquals(List.of(0L, 1L, 2L, 3L), seqs, "every event once, in order");
        assertTrue(posts.get() >= 4, posts.get() + " POSTs: the refused ones were not tried again");
        assertEquals(List.of(), told, "a refusal without the engine's mark ended the domain");
        assertEquals(0, poster.dropped());
        assertEquals(List.of(), unproved, "every POST proves its body");
    }

    /**
     * The engine's own refusal of a batch ({@link EngineRefusal#BATCH_REJECTED}: a malformed post) drops that batch,
     * once, without ending the domain; the batches after it are delivered.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {400, 413})
    void theEnginesMarkedRejectionDropsThatBatchAndLaterOnesArrive(int status) throws Exception {
        int port = Ports.outsideEphemeralRange();
        AtomicInteger posts = new AtomicInteger();
        List<JsonNode> got = engine(port, n -> n == 1 ? status : 204, EngineRefusal.BATCH_REJECTED, posts);
        List<String> told = new CopyOnWriteArrayList<>();
        EventPoster poster = telling(port, told);
        poster.post(event(0, RankEvent.Type.STATE, "RUNNING", null, null, null));
        Await.until(Duration.ofSeconds(30), () -> "the first batch is refused and dropped (" + posts.get() + " POSTs)",
                poster::dropped, n -> n == 1);
        poster.post(event(1, RankEvent.Type.OUTPUT, null, null, "answer", 42));
        poster.post(event(2, RankEvent.Type.STATE, "DONE", null, null, null));
        List<Long> seqs = seqsOnceDone(got, posts);
        assertEquals(List.of(1L, 2L), seqs, "the rejected batch is not sent again, the later ones arrive once, in order");
        assertEquals(1, poster.dropped());
        assertEquals(List.of(), told, "a rejected batch ended the domain");
        assertEquals(List.of(), unproved, "every POST proves its body");
    }

    @Test
    void anOverloadedEngineIsTriedAgain() throws Exception {
        int port = Ports.outsideEphemeralRange();
        AtomicInteger posts = new AtomicInteger();
        engine(port, 503, posts);
        EventPoster poster = poster(port);
        poster.post(event(0, RankEvent.Type.STATE, "DONE", null, null, null));
        Await.until(Duration.ofSeconds(30), "503 retried twice", posts::get, n -> n >= 3);
        assertEquals(0, poster.dropped(), "the event is kept until the engine takes it");
    }
}
