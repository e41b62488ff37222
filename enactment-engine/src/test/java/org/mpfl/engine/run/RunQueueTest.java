package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.testing.Http;
import org.mpfl.testing.Await;

/**
 * The run queue through the engine's REST API, with in-process fake ranks on hosts of capacity 2:
 * capacity is honoured across runs, a run that does not fit waits QUEUED (all-or-nothing) with its
 * reason and position, in priority order, can be cancelled, fails after its queue timeout, may
 * oversubscribe when it asks to, and still waits after an engine restart.
 */
@Timeout(90)
class RunQueueTest {
    @TempDir
    Path dir;
    Engine engine;
    final GatedRanks ranks = new GatedRanks();

    /** In-process fake ranks that each wait on their run's "gate" parameter and end DONE once the test opens it. */
    static final class GatedRanks {
        final Set<String> open = ConcurrentHashMap.newKeySet();
        final AtomicInteger live = new AtomicInteger();
        /** The most ranks alive at once, to check capacity is honoured across runs. */
        final AtomicInteger mostLive = new AtomicInteger();
        final FakeRanks fakes = new FakeRanks(r -> {
            mostLive.accumulateAndGet(live.incrementAndGet(), Math::max);
            try {
                String gate = String.valueOf(r.request().params().get("gate"));
                long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (!open.contains(gate) && System.nanoTime() < end) {
                    Thread.sleep(20);
                }
            } finally {
                live.decrementAndGet();
            }
            r.state("DONE");
        });

        void open(String gate) {
            open.add(gate);
        }
    }

    @AfterEach
    void stop() {
        ranks.open("*");
        if (engine != null) {
            engine.close();
        }
    }

    void start(RunSettings settings) throws Exception {
        // the hosts here announce once and never heartbeat: with the default 10 s timeout they were lost mid-test
        // at load 38 on 2 cores ("service host h0 ... was lost"), and host loss is not what this class tests
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(ranks.fakes).runSettings(settings)
                .heartbeatTimeout(Duration.ofMinutes(5)));
    }

    /** The usual fixture: an engine with {@link #fast()} settings and one host, h0, of capacity 2. */
    void startWithH0OfCapacity2() throws Exception {
        start(fast());
        host("h0", 2);
    }

    void host(String id, int capacity) throws Exception {
        Http.Answer a = HostCalls.announce(engine, Map.of("hostId", id, "soapUrl", "http://127.0.0.1:1/axis2/services/" + id,
                "services", List.of("ring"), "capacity", capacity));
        assertEquals(201, a.status(), a.body());
    }

    String run(int ranks, String gate, Map<String, Object> more) throws Exception {
        Map<String, Object> body = new LinkedHashMap<>(more);
        body.put("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", ranks))));
        body.put("params", Map.of("gate", gate));
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), body);
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    JsonNode detail(String id) throws Exception {
        return Http.get(engine.url() + "/api/runs/" + id).json();
    }

    JsonNode awaitState(String id, String state) throws Exception {
        return Await.until(Duration.ofSeconds(30), () -> "run " + id + " " + state, () -> detail(id),
                d -> d.path("state").asText().equals(state));
    }

    JsonNode awaitFinal(String id) throws Exception {
        return Await.runEnds(Duration.ofSeconds(30), () -> detail(id));
    }

    static RunSettings fast() {
        return new RunSettings(Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMillis(200), 2, "auto");
    }

    /**
     * A run restarted after losing a host waits for it (the other hosts lack the room) while the registry holds the
     * process that was lost, its reason naming the host kept out and why; the host back as a new process (restarted
     * after a SIGKILL: same host id, new instance) takes the run's ranks again. Before, a lost host was kept out of
     * the run for ever: the run stayed QUEUED "waiting for more hosts to join" with every host back and free.
     */
    @Test
    void aRestartWaitsForItsLostHostUntilItComesBackAsANewProcess() throws Exception {
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(ranks.fakes).runSettings(fast())
                .heartbeatTimeout(Duration.ofMillis(1500)));
        Set<String> beating = ConcurrentHashMap.newKeySet();
        Thread heart = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    for (String h : beating) {
                        HostCalls.heartbeat(engine, h);
                    }
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    // the engine is closing at the end of the test
                }
            }
        }, "heartbeats");
        heart.setDaemon(true);
        heart.start();
        try {
            for (String h : List.of("h1", "h2")) {
                announce(h, h + "-first");
                beating.add(h);
            }
            String id = run(4, "g", Map.of("restarts", 1));
            awaitState(id, "RUNNING");
            beating.remove("h1"); // h1 is SIGKILLed: its heartbeats stop and the registry loses it
            JsonNode q = Await.until(Duration.ofSeconds(30), "the restart waits for room", () -> detail(id),
                    d -> d.path("state").asText().equals("QUEUED") && d.at("/restarts/used").asInt() == 1);
            // the same process announces itself again (it was only cut off): its ranks may still run, it stays out
            announce("h1", "h1-first");
            beating.add("h1");
            q = Await.until(Duration.ofSeconds(30), "the reason names the host kept out", () -> detail(id),
                    d -> d.at("/queue/reason").asText().contains("kept out: h1"));
            String reason = q.at("/queue/reason").asText();
            assertTrue(reason.contains("h1 (lost: service host h1") && reason.contains("until it comes back as a new process"),
                    reason);
            assertEquals("QUEUED", q.path("state").asText(), q.toString());
            // h1 restarted: a new process under the same host id, which has none of the run's old ranks; the old one was
            // killed, so its beats stop, and the new one takes the entry once they are missed (while they go on, a second
            // live process of h1 would be refused)
            beating.remove("h1");
            Await.until(Duration.ofSeconds(30), "the restarted h1 takes its entry", () -> HostCalls.announce(engine, Map.of("hostId",
                    "h1", "soapUrl", "http://127.0.0.1:1/axis2/services/h1", "services", List.of("ring"), "capacity", 2,
                    "instance", "h1-second")), a -> a.status() == 201);
            beating.add("h1");
            JsonNode d = Await.until(Duration.ofSeconds(30), "the second attempt runs on h1 and h2", () -> detail(id),
                    x -> x.path("state").asText().equals("RUNNING") && x.at("/attemptLog/1/runningMs").isNumber());
            assertEquals(2, d.get("attempts").asInt(), d.toString());
            assertTrue(d.at("/attemptLog/1/hosts").toString().contains("h1"), d.toString());
            ranks.open("g");
            assertEquals("SUCCEEDED", awaitFinal(id).path("state").asText());
        } finally {
            heart.interrupt();
        }
    }

    void announce(String id, String instance) throws Exception {
        Http.Answer a = HostCalls.announce(engine, Map.of("hostId", id, "soapUrl", "http://127.0.0.1:1/axis2/services/" + id,
                "services", List.of("ring"), "capacity", 2, "instance", instance));
        assertEquals(201, a.status(), a.body());
    }

    @Test
    void aSecondRunWaitsQueuedUntilTheFirstFreesTheHostThenSucceeds() throws Exception {
        startWithH0OfCapacity2();
        String first = run(2, "a", Map.of());
        awaitState(first, "RUNNING");
        String second = run(2, "b", Map.of());
        JsonNode q = awaitState(second, "QUEUED");
        assertEquals(1, q.at("/queue/position").asInt(), q.toString());
        String reason = q.at("/queue/reason").asText();
        assertTrue(reason.contains("needs 2 ranks of 'ring'") && reason.contains("0 free"), reason);
        assertFalse(reason.contains("more than they have in all"), "it fits once the first run ends: " + reason);
        // its plan's size (it was 0, the ranks placed so far, as if it were a run of none)
        assertEquals(2, q.get("size").asInt(), "a queued run's size is its plan's: " + q);
        JsonNode listed = Http.get(engine.url() + "/api/runs?state=QUEUED").json();
        assertEquals(second, listed.get(0).get("id").asText(), listed.toString());
        assertEquals(2, listed.get(0).path("size").asInt(), "listed with its plan's size too: " + listed);

        ranks.open("a");
        assertEquals("SUCCEEDED", awaitFinal(first).path("state").asText());
        ranks.open("b");
        JsonNode d = awaitFinal(second);
        assertEquals("SUCCEEDED", d.path("state").asText(), d.toString());
        assertTrue(ranks.mostLive.get() <= 2, "never more ranks at once than the host's capacity 2, saw " + ranks.mostLive.get());
        // the state events say the second run waited: PENDING → QUEUED → PENDING → RUNNING → SUCCEEDED
        JsonNode events = Http.get(engine.url() + "/api/runs/" + second + "/log").json();
        assertTrue(events.toString().contains("QUEUED"), events.toString());
    }

    @Test
    void aRunLargerThanTheFreeCapacityIsNeverOversubscribedAndFailsAfterItsQueueTimeout() throws Exception {
        startWithH0OfCapacity2();
        long t0 = System.nanoTime();
        String big = run(4, "x", Map.of("queueTimeoutS", 2));
        JsonNode q = awaitState(big, "QUEUED");
        assertTrue(q.at("/queue/reason").asText().contains("needs 4 ranks of 'ring' (service 'ring'); 2 free (capacity 2 on 1 host"
                + " able to run it), more than they have in all: it waits for more hosts to join, unless it may oversubscribe (mpflc run --oversubscribe)"),
                q.toString());
        assertTrue(q.at("/queue/deadlineMs").isNumber(), q.toString());
        JsonNode d = awaitFinal(big);
        assertEquals("FAILED", d.path("state").asText());
        String why = d.at("/error/message").asText();
        assertTrue(why.contains("queue timeout 2 s") && why.contains("needs 4 ranks"), why);
        assertTrue(System.nanoTime() - t0 >= Duration.ofSeconds(2).toNanos(), "not before its queue timeout");
        assertEquals(0, ranks.fakes.runCalls.get(), "no rank of it was ever started");
    }

    @Test
    void aRunThatAsksToOversubscribeIsPlacedBeyondCapacity() throws Exception {
        startWithH0OfCapacity2();
        ranks.open("o");
        JsonNode d = awaitFinal(run(4, "o", Map.of("oversubscribe", true)));
        assertEquals("SUCCEEDED", d.path("state").asText(), d.toString());
        assertEquals(4, d.get("ranks").size());
    }

    @Test
    void queuedRunsAreServedByPriorityThenInOrderAndCanBeCancelled() throws Exception {
        startWithH0OfCapacity2();
        String holder = run(2, "a", Map.of());
        awaitState(holder, "RUNNING");
        String low = run(2, "low", Map.of());
        String gone = run(2, "gone", Map.of());
        String high = run(2, "high", Map.of("priority", 5));
        JsonNode h = awaitState(high, "QUEUED");
        Await.until(Duration.ofSeconds(10), "positions updated", () -> detail(high).at("/queue/position").asInt() == 1);
        assertEquals(2, detail(low).at("/queue/position").asInt());
        assertTrue(detail(low).at("/queue/reason").asText().startsWith("waiting behind run " + high), detail(low).toString());

        Http.Answer c = Http.post(engine.url() + "/api/runs/" + gone + "/cancel", engine.token(), Map.of());
        assertEquals(200, c.status(), c.body());
        assertEquals("CANCELLED", awaitFinal(gone).path("state").asText());

        ranks.open("a");
        awaitFinal(holder);
        // the high-priority run came later but goes first; the low one still waits behind it
        awaitState(high, "RUNNING");
        assertEquals("QUEUED", detail(low).path("state").asText());
        ranks.open("high");
        ranks.open("low");
        assertEquals("SUCCEEDED", awaitFinal(high).path("state").asText());
        assertEquals("SUCCEEDED", awaitFinal(low).path("state").asText());
        assertEquals(3 * 2, ranks.fakes.runCalls.get(), "the cancelled run never started a rank");
        assertTrue(h.path("queue").isObject());
    }

    @Test
    void aQueuedRunStillWaitsAfterAnEngineRestartAndStartsWhenCapacityJoins() throws Exception {
        startWithH0OfCapacity2();
        String big = run(4, "r", Map.of());
        awaitState(big, "QUEUED");
        engine.close();
        engine = null;

        start(fast());
        // (h0's credential is still on record: the hosts of the new engine get ids of their own)
        host("h1", 2);
        awaitState(big, "QUEUED");
        // until the host joins it waits for hosts (not failing: they announce again after a restart), then for room
        Await.until(Duration.ofSeconds(10), "the reason counts the host that joined",
                () -> detail(big).at("/queue/reason").asText().contains("needs 4 ranks of 'ring' (service 'ring'); 2 free (capacity 2 on 1 host"));
        ranks.open("r");
        host("h2", 2);
        JsonNode d = awaitFinal(big);
        assertEquals("SUCCEEDED", d.path("state").asText(), d.toString());
        assertEquals(Set.of("h1", "h2"), Set.of(d.at("/ranks/0/host").asText(), d.at("/ranks/3/host").asText()));
        assertFalse(d.has("queue"), "no queue place once placed: " + d);
    }
}
