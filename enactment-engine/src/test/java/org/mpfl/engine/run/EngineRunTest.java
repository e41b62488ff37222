package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.Http;
import org.mpfl.protocol.RankEvent;

/** Runs through the engine's REST API with in-process fake ranks: success, failures, timeouts, deadlock, host loss, cancel. */
@Timeout(60)
class EngineRunTest {
    @TempDir
    Path dir;
    Engine engine;

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
    }

    Engine start(RankInvoker invoker, RunSettings settings, Duration heartbeat) throws Exception {
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(invoker).runSettings(settings)
                .heartbeatTimeout(heartbeat));
        for (int h = 0; h < 2; h++) {
            Http.Answer a = Http.announce(engine, Map.of("hostId", "h" + h,
                    "soapUrl", "http://127.0.0.1:1/axis2/services/h" + h, "services", List.of("ring"), "capacity", 2));
            assertEquals(201, a.status(), a.body());
        }
        return engine;
    }

    static RunSettings fast() {
        return new RunSettings(Duration.ofSeconds(2), Duration.ofMillis(800), Duration.ofMillis(200), 2, "auto");
    }

    static Map<String, Object> ringPlan(int ranks) {
        return Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", ranks)));
    }

    String startRun(Map<String, Object> plan) throws Exception {
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", plan, "params", Map.of("n", 3)));
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    JsonNode awaitFinal(String id, long ms) throws Exception {
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            JsonNode d = Http.get(engine.url() + "/api/runs/" + id).json();
            String s = d.get("state").asText();
            if (s.equals("SUCCEEDED") || s.equals("FAILED") || s.equals("CANCELLED")) {
                return d;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("run " + id + " did not end within " + ms + " ms: " + Http.get(engine.url() + "/api/runs/" + id).body());
    }

    @Test
    void ringSucceedsWithOutputsAndCounters() throws Exception {
        start(new FakeRanks(r -> {
            r.event(RankEvent.Type.ACTIVITY, null, "send", "ring.mpfl.xml:9:9", null, null, null);
            r.event(RankEvent.Type.COUNTERS, null, null, null, null, null,
                    Map.of("sentTo", Map.of(String.valueOf((r.rank() + 1) % r.size()), 1), "bytesTo",
                            Map.of(String.valueOf((r.rank() + 1) % r.size()), 8)));
            r.event(RankEvent.Type.PROGRESS, null, null, null, null, null, Map.of("value", 1, "total", 1));
            r.output("token", r.rank() * 10);
            r.state("DONE");
        }), fast(), Duration.ofSeconds(30));
        String id = startRun(ringPlan(4));
        JsonNode d = awaitFinal(id, 10_000);
        assertEquals("SUCCEEDED", d.get("state").asText(), d.toString());
        assertEquals(30, d.at("/outputs/token/3").asInt());
        assertEquals(1, d.at("/matrix/messages/3/0").asInt());
        assertEquals(4, d.get("ranks").size());
        // placement: round robin by capacity 2 → ranks 0,1 on h0 and 2,3 on h1
        assertEquals("h0", d.at("/ranks/1/host").asText());
        assertEquals("h1", d.at("/ranks/2/host").asText());
        JsonNode listed = Http.get(engine.url() + "/api/runs").json();
        assertEquals(id, listed.get(0).get("id").asText());
    }

    /** Ranks that end before their run calls return: the run succeeds then, and its startupMs is still recorded. */
    @Test
    void startupIsRecordedWhenRanksEndBeforeTheFanOutReturns() throws Exception {
        FakeRanks fakes = new FakeRanks(r -> r.state("DONE"));
        fakes.returnDelayMs = 600;
        start(fakes, fast(), Duration.ofSeconds(30));
        String id = startRun(ringPlan(2));
        JsonNode d = awaitFinal(id, 10_000);
        assertEquals("SUCCEEDED", d.get("state").asText(), d.toString());
        long end = System.currentTimeMillis() + 5_000;
        while (!d.get("startupMs").isNumber() && System.currentTimeMillis() < end) {
            Thread.sleep(50);
            d = Http.get(engine.url() + "/api/runs/" + id).json();
        }
        assertTrue(d.get("startupMs").isNumber(), d.toString());
        assertTrue(d.get("startupMs").asLong() >= 600, d.toString());
        assertEquals("SUCCEEDED", d.get("state").asText());
    }

    @Test
    void failingRankFailsTheRunWithRankLocationAndMessageAndAbortsTheDomain() throws Exception {
        FakeRanks fakes = new FakeRanks(r -> {
            if (r.rank() == 2) {
                Thread.sleep(100);
                r.fail("compute org.x.Step", "ring.mpfl.xml:12:5", "division by zero");
            } else {
                r.waitFor("receive", "ring.mpfl.xml:10:9", "receive from " + ((r.rank() + 3) % 4) + " tag 0 comm world");
                if (r.awaitAbort(20_000)) {
                    r.state("ABORTED");
                }
            }
        });
        start(fakes, fast(), Duration.ofSeconds(30));
        long t0 = System.currentTimeMillis();
        String id = startRun(ringPlan(4));
        JsonNode d = awaitFinal(id, 10_000);
        assertTrue(System.currentTimeMillis() - t0 < 5_000, "failure must be reported within seconds");
        assertEquals("FAILED", d.get("state").asText());
        assertEquals(2, d.at("/error/rank").asInt());
        assertEquals("ring.mpfl.xml:12:5", d.at("/error/location").asText());
        assertEquals("division by zero", d.at("/error/message").asText());
        long end = System.currentTimeMillis() + 5_000;
        while (fakes.aborted.isEmpty() && System.currentTimeMillis() < end) {
            Thread.sleep(20);
        }
        assertEquals(1, fakes.aborted.size(), "the domain is aborted on the other ranks");
    }

    @Test
    void rankThatRefusesRunFailsTheRun() throws Exception {
        FakeRanks fakes = new FakeRanks(r -> r.awaitAbort(10_000));
        fakes.refuseRank = 1;
        start(fakes, fast(), Duration.ofSeconds(30));
        JsonNode d = awaitFinal(startRun(ringPlan(3)), 10_000);
        assertEquals("FAILED", d.get("state").asText());
        assertEquals(1, d.at("/error/rank").asInt());
        assertTrue(d.at("/error/message").asText().contains("not deployed here"), d.toString());
    }

    @Test
    void fanOutTimeoutFailsTheRun() throws Exception {
        FakeRanks fakes = new FakeRanks(r -> r.awaitAbort(10_000));
        fakes.acceptDelayMs = 3_000; // longer than the 2 s fan-out timeout
        start(fakes, fast(), Duration.ofSeconds(30));
        long t0 = System.currentTimeMillis();
        JsonNode d = awaitFinal(startRun(ringPlan(2)), 10_000);
        assertEquals("FAILED", d.get("state").asText());
        assertTrue(d.at("/error/message").asText().contains("did not accept run within 2 s"), d.toString());
        assertTrue(System.currentTimeMillis() - t0 < 2_900, "the fan-out timeout bounds the wait");
    }

    @Test
    void deadlockIsReportedWithTheWaitForCycle() throws Exception {
        start(new FakeRanks(r -> {
            int other = 1 - r.rank();
            r.event(RankEvent.Type.ACTIVITY, null, "receive", "dl.mpfl.xml:" + (9 + r.rank()) + ":9", null, null, null);
            r.waitFor("receive", "dl.mpfl.xml:" + (9 + r.rank()) + ":9", "receive from " + other + " tag 0 comm world");
            r.awaitAbort(20_000);
        }), fast(), Duration.ofSeconds(30));
        JsonNode d = awaitFinal(startRun(ringPlan(2)), 10_000);
        assertEquals("FAILED", d.get("state").asText());
        assertEquals("deadlock: rank 0 waits for rank 1 at dl.mpfl.xml:9:9 > rank 1 waits for rank 0 at dl.mpfl.xml:10:9",
                d.at("/error/message").asText());
        assertEquals(0, d.at("/error/rank").asInt());
    }

    @Test
    void lostHostFailsTheRun() throws Exception {
        start(new FakeRanks(r -> r.awaitAbort(20_000)), fast(), Duration.ofMillis(1500));
        // only h0 keeps sending heartbeats
        String id = startRun(ringPlan(4));
        long end = System.currentTimeMillis() + 10_000;
        JsonNode d = null;
        while (System.currentTimeMillis() < end) {
            Http.heartbeat(engine, "h0");
            d = Http.get(engine.url() + "/api/runs/" + id).json();
            if (d.get("state").asText().equals("FAILED")) {
                break;
            }
            Thread.sleep(200);
        }
        assertEquals("FAILED", d.get("state").asText(), d.toString());
        assertTrue(d.at("/error/message").asText().contains("service host h1"), d.toString());
        assertEquals(2, d.at("/error/rank").asInt());
        assertEquals(1, Http.get(engine.url() + "/api/registry/hosts").json().size());
    }

    @Test
    void cancelAbortsTheRun() throws Exception {
        FakeRanks fakes = new FakeRanks(r -> r.awaitAbort(20_000));
        start(fakes, fast(), Duration.ofSeconds(30));
        String id = startRun(ringPlan(2));
        Thread.sleep(300);
        assertEquals(401, Http.post(engine.url() + "/api/runs/" + id + "/cancel", "wrong", "").status());
        Http.Answer a = Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), "");
        assertEquals(200, a.status(), a.body());
        JsonNode d = awaitFinal(id, 5_000);
        assertEquals("CANCELLED", d.get("state").asText());
    }

    @Test
    void cancelWhileRanksAreStartingAbortsAgainOnceAllAreOut() throws Exception {
        FakeRanks fakes = new FakeRanks(r -> r.awaitAbort(20_000));
        fakes.acceptDelayMs = 1_000;
        start(fakes, fast(), Duration.ofSeconds(30));
        String id = startRun(ringPlan(4)); // two hosts: two service URLs
        Thread.sleep(200);
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), "").status());
        assertEquals("CANCELLED", awaitFinal(id, 5_000).get("state").asText());
        long end = System.currentTimeMillis() + 5_000;
        // one abort per service URL right at the cancel, and again after the slow run calls returned
        while (fakes.abortCalls.get() < 4 && System.currentTimeMillis() < end) {
            Thread.sleep(50);
        }
        assertEquals(4, fakes.abortCalls.get());
    }
}
