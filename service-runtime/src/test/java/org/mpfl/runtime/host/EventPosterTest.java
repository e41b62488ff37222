package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.testing.Await;

/**
 * A rank's events outlive an engine that is away (issue 14): with nothing listening at the callback
 * address, posting never blocks the rank, the backlog stays bounded while keeping the terminal events
 * and the latest progress, and everything kept arrives in order once an engine listens there again
 * (real HTTP on loopback). An engine that answers and refuses (404) gets no retries.
 */
@Timeout(60)
class EventPosterTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
        threads.shutdownNow();
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static RankEvent event(long seq, RankEvent.Type type, String state, String message, String name, Object value) {
        return new RankEvent("domain", 0, seq, System.currentTimeMillis(), type, state, null, null, message, null, name, value);
    }

    /** An engine at {@code port} answering {@code status} to every POST and recording the events it took. */
    private List<JsonNode> engine(int port, int status, AtomicInteger posts) throws Exception {
        List<JsonNode> got = new CopyOnWriteArrayList<>();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.createContext("/cb/events", ex -> {
            JsonNode body = JSON.readTree(ex.getRequestBody());
            posts.incrementAndGet();
            if (status / 100 == 2) {
                if (body.isArray()) {
                    body.forEach(got::add);
                } else {
                    got.add(body);
                }
            }
            ex.sendResponseHeaders(status, -1);
            ex.close();
        });
        server.start();
        return got;
    }

    @Test
    void eventsKeptWhileTheEngineIsDownArriveInOrderWhenItIsBackAndTheResultsAreNeverDropped() throws Exception {
        int port = freePort();
        EventPoster poster = new EventPoster("http://127.0.0.1:" + port + "/cb", threads, EventPoster.client(TlsSettings.NONE));
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
    }

    @Test
    void anEngineThatRefusesTheEventsGetsNoRetries() throws Exception {
        int port = freePort();
        AtomicInteger posts = new AtomicInteger();
        engine(port, 404, posts);
        EventPoster poster = new EventPoster("http://127.0.0.1:" + port + "/cb", threads, EventPoster.client(TlsSettings.NONE));
        poster.post(event(0, RankEvent.Type.STATE, "DONE", null, null, null));
        poster.flush(Duration.ofSeconds(10));
        Thread.sleep(1_500);
        assertEquals(1, posts.get(), "a refused batch was sent again");
        assertEquals(0, poster.queued());
        assertEquals(1, poster.dropped());
    }

    @Test
    void anOverloadedEngineIsTriedAgain() throws Exception {
        int port = freePort();
        AtomicInteger posts = new AtomicInteger();
        engine(port, 503, posts);
        EventPoster poster = new EventPoster("http://127.0.0.1:" + port + "/cb", threads, EventPoster.client(TlsSettings.NONE));
        poster.post(event(0, RankEvent.Type.STATE, "DONE", null, null, null));
        Await.until(Duration.ofSeconds(30), "503 retried twice", posts::get, n -> n >= 3);
        assertEquals(0, poster.dropped(), "the event is kept until the engine takes it");
    }
}
