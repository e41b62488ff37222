package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.protocol.RankEvent;
import org.mpfl.testing.Await;
import org.mpfl.engine.HostCalls;

/**
 * Runs through the engine's REST API with in-process fake ranks: success, failures, timeouts, deadlock, host loss, cancel,
 * and hosts that refuse run (quarantine and re-placement).
 */
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
        return start(invoker, settings, heartbeat, 2, 2);
    }

    /**
     * Hosts h0, h1… of these capacities (capacity is honoured: a re-placement on the one host left needs
     * room there for the whole run).
     */
    Engine start(RankInvoker invoker, RunSettings settings, Duration heartbeat, int... capacities) throws Exception {
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(invoker).runSettings(settings)
                .heartbeatTimeout(heartbeat));
        for (int h = 0; h < capacities.length; h++) {
            Http.Answer a = HostCalls.announce(engine, Map.of("hostId", "h" + h,
                    "soapUrl", "http://127.0.0.1:1/axis2/services/h" + h, "services", List.of("ring"), "capacity", capacities[h]));
            assertEquals(201, a.status(), a.body());
        }
        return engine;
    }

    /** Ranks that output their number and end: the fixture of the re-placement tests, whose hosts fail them instead. */
    static FakeRanks ranksThatOutputTheirNumber() {
        return new FakeRanks(r -> {
            r.output("rank", r.rank());
            r.state("DONE");
        });
    }

    /** h0 of capacity 2, which the test makes fail, and h1 of 4, room for the whole 4-rank run placed again there. */
    Engine startOnTwoHostsOfCapacity2And4(FakeRanks fakes) throws Exception {
        return start(fakes, fast(), Duration.ofSeconds(30), 2, 4);
    }

    /**
     * Short deadlock grace and status polls. The fan-out bound stays long: a fake rank's run call that a loaded
     * machine delays by seconds must not turn into a host fault in tests about something else.
     */
    static RunSettings fast() {
        return withFanOutTimeout(Duration.ofSeconds(30));
    }

    /** {@link #fast()} with the fan-out bound the test is about. */
    static RunSettings withFanOutTimeout(Duration fanOut) {
        return new RunSettings(fanOut, Duration.ofMillis(800), Duration.ofMillis(200), 2, "auto");
    }

    static Map<String, Object> ringPlan(int ranks) {
        return Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", ranks)));
    }

    String startRun(Map<String, Object> plan) throws Exception {
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", plan, "params", Map.of("n", 3)));
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    JsonNode detail(String id) throws Exception {
        return Http.get(engine.url() + "/api/runs/" + id).json();
    }

    JsonNode awaitFinal(String id) throws Exception {
        return Await.runEnds(Duration.ofSeconds(30), () -> detail(id));
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
        JsonNode d = awaitFinal(id);
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

    /**
     * A host sends a batch of events again when its POST timed out although the engine took it (as after an
     * engine restart, when every kept event arrives at once), also after the run ended: the run's log holds each
     * rank event once, as its detail does (a run's log had 144 lines for the 72 of its detail).
     */
    @Test
    void anEventSentAgainIsLoggedOnce() throws Exception {
        List<FakeRanks.Rank> ranks = new java.util.concurrent.CopyOnWriteArrayList<>();
        start(new FakeRanks(r -> {
            ranks.add(r);
            r.event(RankEvent.Type.LOG, null, null, null, "hello from " + r.rank(), null, null);
            r.post(r.sent.get(r.sent.size() - 1));
            r.state("DONE");
        }), fast(), Duration.ofSeconds(30));
        String id = startRun(ringPlan(2));
        assertEquals("SUCCEEDED", awaitFinal(id).get("state").asText());
        for (FakeRanks.Rank r : ranks) {
            for (RankEvent e : r.sent) {
                int status = r.post(e);
                assertTrue(status >= 200 && status < 300, "an event sent again after the run ended is taken: " + status);
            }
        }
        Map<String, Integer> copies = new LinkedHashMap<>();
        for (JsonNode e : Http.get(engine.url() + "/api/runs/" + id + "/log").json()) {
            if (e.path("type").asText().equals("rank")) {
                copies.merge(e.at("/body/rank").asText() + "/" + e.at("/body/seq").asText(), 1, Integer::sum);
            }
        }
        assertEquals(6, copies.size(), copies.toString());
        copies.forEach((event, n) -> assertEquals(1, n, "rank/seq " + event + " logged " + n + " times"));
        assertEquals(1, detail(id).at("/ranks/0/logs").size(), detail(id).toString());
    }

    /** Ranks that end before their run calls return: the run succeeds then, and its startupMs is still recorded. */
    @Test
    void startupIsRecordedWhenRanksEndBeforeTheFanOutReturns() throws Exception {
        FakeRanks fakes = new FakeRanks(r -> r.state("DONE"));
        fakes.returnDelayMs = 600;
        start(fakes, fast(), Duration.ofSeconds(30));
        String id = startRun(ringPlan(2));
        JsonNode d = awaitFinal(id);
        assertEquals("SUCCEEDED", d.get("state").asText(), d.toString());
        d = Await.until(Duration.ofSeconds(30), "the run's startup time recorded", () -> detail(id), x -> x.get("startupMs").isNumber());
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
        JsonNode d = awaitFinal(id);
        // the point of the test: a failing rank ends the run at once, not after the other ranks' 20 s waits.
        // 12 s holds on a loaded 2-core machine and is still well below those 20 s.
        assertTrue(System.currentTimeMillis() - t0 < 12_000, "failure must be reported within seconds");
        assertEquals("FAILED", d.get("state").asText());
        assertEquals(2, d.at("/error/rank").asInt());
        assertEquals("ring.mpfl.xml:12:5", d.at("/error/location").asText());
        assertEquals("division by zero", d.at("/error/message").asText());
        Await.until(Duration.ofSeconds(30), "the domain aborted on the other ranks", () -> fakes.aborted.size(), n -> n >= 1);
        assertEquals(1, fakes.aborted.size(), "the domain is aborted on the other ranks");
    }

    /**
     * A run that ended FAILED or CANCELLED answers its domain's late events 410 (they are still applied): a
     * rank the abort did not reach must hear that nobody observes it any more, and its host aborts it; a 204
     * let it run on unobserved. The 410 carries the engine's mark ({@code X-MPFL-Refusal: domain-ended}), without which
     * the host would take it for a proxy's answer. A live run's events are answered 204.
     */
    @Test
    void eventsOfARunThatEndedFailedOrCancelledAreAnswered410() throws Exception {
        java.util.List<FakeRanks.Rank> ranks = new java.util.concurrent.CopyOnWriteArrayList<>();
        FakeRanks fakes = new FakeRanks(r -> {
            ranks.add(r);
            r.awaitAbort(30_000);
        });
        start(fakes, fast(), Duration.ofSeconds(30));
        String failed = startRun(ringPlan(2));
        Await.until(Duration.ofSeconds(30), "both ranks started", ranks::size, n -> n == 2);
        FakeRanks.Rank survivor = ranks.stream().filter(r -> r.rank() == 0).findFirst().orElseThrow();
        assertEquals(204, survivor.event(RankEvent.Type.LOG, null, null, null, "while the run lives", null, null));
        assertEquals(null, survivor.lastMark(), "a 204 carries no mark");
        ranks.stream().filter(r -> r.rank() == 1).findFirst().orElseThrow().fail("compute", "ring.mpfl.xml:1:1", "boom");
        assertEquals("FAILED", awaitFinal(failed).get("state").asText());
        assertEquals(410, survivor.event(RankEvent.Type.LOG, null, null, null, "after the run failed", null, null));
        // the engine's own word, on which alone the host stops the domain's ranks
        assertEquals(org.mpfl.protocol.EngineRefusal.DOMAIN_ENDED.value(), survivor.lastMark());
        assertTrue(Http.get(engine.url() + "/api/runs/" + failed + "/log").body().contains("after the run failed"),
                "a late event is still applied");

        ranks.clear();
        String cancelled = startRun(ringPlan(2));
        Await.until(Duration.ofSeconds(30), "both ranks started", ranks::size, n -> n == 2);
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + cancelled + "/cancel", engine.token(), Map.of()).status());
        assertEquals("CANCELLED", awaitFinal(cancelled).get("state").asText());
        assertEquals(410, ranks.get(0).state("ABORTED"));
        assertEquals(org.mpfl.protocol.EngineRefusal.DOMAIN_ENDED.value(), ranks.get(0).lastMark());
    }

    /**
     * A rank refused wherever it goes: each host is quarantined in turn, and when none is left the run
     * fails saying so, naming every host and what it answered.
     */
    @Test
    void rankThatRefusesRunOnEveryHostFailsTheRunNamingEachHost() throws Exception {
        FakeRanks fakes = new FakeRanks(r -> r.awaitAbort(10_000));
        fakes.refuseRank = 1;
        start(fakes, fast(), Duration.ofSeconds(30), 2, 3);
        JsonNode d = awaitFinal(startRun(ringPlan(3)));
        assertEquals("FAILED", d.get("state").asText());
        String message = d.at("/error/message").asText();
        assertTrue(message.startsWith("no capacity: 3 ranks of process 'ring' (service 'ring') need hosts; "), message);
        assertTrue(message.contains("h0 quarantined until "), message);
        assertTrue(message.contains("h1 quarantined until "), message);
        assertTrue(message.contains("rank 1 refused run: service 'ring' is not deployed here"), message);
        assertEquals(2, d.get("hostFaults").size(), d.toString());
        assertEquals(2, d.get("attempts").asInt(), d.toString());
    }

    /**
     * A host that refuses run is quarantined and the run is placed again, on the other host, under a
     * new domain: the ranks that had started under the first one are aborted, no domain mixes ranks of
     * two placements, and the run record and the registry say what happened.
     */
    @Test
    void hostThatRefusesRunIsQuarantinedAndTheRunIsPlacedAgainUnderANewDomain() throws Exception {
        FakeRanks fakes = ranksThatOutputTheirNumber();
        fakes.refuseHost = "h0";
        startOnTwoHostsOfCapacity2And4(fakes);
        String id = startRun(ringPlan(4));
        JsonNode d = awaitFinal(id);
        assertEquals("SUCCEEDED", d.get("state").asText(), d.toString());
        d.get("ranks").forEach(r -> assertEquals("h1", r.get("host").asText(), "every rank on the host that is left"));
        assertEquals(2, d.get("attempts").asInt());
        JsonNode fault = d.at("/hostFaults/0");
        assertEquals("h0", fault.get("host").asText(), d.toString());
        assertEquals(1, fault.get("attempt").asInt());
        assertEquals("placing again", fault.get("action").asText());
        assertTrue(fault.get("reason").asText().contains("refused run: service 'ring' is not deployed here"), fault.toString());
        assertTrue(fault.get("quarantinedUntilMs").asLong() > System.currentTimeMillis() + 30_000, "quarantined for the default minute");

        // two domains: the first had ranks 2 and 3 start on h1 and was aborted; the second has all four
        Map<String, List<FakeRanks.Started>> byDomain = new LinkedHashMap<>();
        fakes.started.forEach(s -> byDomain.computeIfAbsent(s.domainId(), k -> new ArrayList<>()).add(s));
        assertEquals(2, byDomain.size(), fakes.started.toString());
        List<String> domains = List.copyOf(byDomain.keySet());
        assertEquals(List.of(2, 3), byDomain.get(domains.get(0)).stream().map(FakeRanks.Started::rank).sorted().toList());
        assertEquals(List.of(0, 1, 2, 3), byDomain.get(domains.get(1)).stream().map(FakeRanks.Started::rank).sorted().toList());
        assertTrue(fakes.aborted.contains(domains.get(0)), "the half-started domain is aborted");
        assertFalse(fakes.aborted.contains(domains.get(1)), "the domain that ran is not");

        JsonNode hosts = Http.get(engine.url() + "/api/registry/hosts").json();
        JsonNode h0 = hosts.get(0);
        assertEquals("h0", h0.get("hostId").asText());
        assertTrue(h0.at("/quarantine/active").asBoolean(), hosts.toString());
        assertEquals(1, h0.at("/quarantine/offences").asInt());
        assertTrue(h0.at("/quarantine/reason").asText().contains("not deployed here"), hosts.toString());
        assertTrue(hosts.get(1).get("quarantine").isNull(), hosts.toString());

        String log = Http.get(engine.url() + "/api/runs/" + id + "/log").body();
        assertTrue(log.contains("\"placement\"") && log.contains("attempt 1: host h0 quarantined until "), log);

        // a later run does not go near h0 while it is quarantined
        JsonNode next = awaitFinal(startRun(ringPlan(2)));
        assertEquals("SUCCEEDED", next.get("state").asText(), next.toString());
        assertEquals(1, next.get("attempts").asInt(), next.toString());
        assertEquals(0, next.get("hostFaults").size());
    }

    /** A rank that fails in its workflow while others are still being started is not a host fault: no retry. */
    @Test
    void rankFailingWhileTheOthersStartFailsTheRunWithoutPlacingAgain() throws Exception {
        FakeRanks fakes = new FakeRanks(r -> {
            if (r.rank() == 0) {
                r.fail("compute org.x.Step", "ring.mpfl.xml:12:5", "boom at start");
            } else {
                r.awaitAbort(10_000);
            }
        });
        fakes.returnDelayMs = 500; // run calls return after rank 0 has failed
        start(fakes, fast(), Duration.ofSeconds(30));
        JsonNode d = awaitFinal(startRun(ringPlan(2)));
        assertEquals("FAILED", d.get("state").asText(), d.toString());
        assertEquals(0, d.at("/error/rank").asInt(), d.toString());
        assertEquals("boom at start", d.at("/error/message").asText());
        assertEquals(1, d.get("attempts").asInt());
        assertEquals(1, fakes.started.stream().map(FakeRanks.Started::domainId).distinct().count());
    }

    /**
     * A host too slow to accept run (as one busy with strangers' connections) that answers the health
     * probe is not quarantined: the run is placed again without it, and its record says what was seen.
     */
    @Test
    void hostSlowToAcceptRunButAnsweringItsHealthProbeIsNotQuarantined() throws Exception {
        FakeRanks fakes = ranksThatOutputTheirNumber();
        fakes.slowHost = "h0";
        fakes.slowAcceptMs = 8_000; // far beyond the 2 s fan-out timeout
        fakes.healthyHosts = java.util.Set.of("h0", "h1");
        start(fakes, withFanOutTimeout(Duration.ofSeconds(2)), Duration.ofSeconds(30), 2, 4);
        JsonNode d = awaitFinal(startRun(ringPlan(4)));
        assertEquals("SUCCEEDED", d.get("state").asText(), d.toString());
        JsonNode fault = d.at("/hostFaults/0");
        assertEquals("h0", fault.get("host").asText(), d.toString());
        assertTrue(fault.get("reason").asText().matches("rank \\d did not accept run within 2 s but host h0 answered its"
                + " health probe \\(\\d+ ms\\): slow, not quarantined"), fault.toString());
        assertTrue(fault.get("quarantinedUntilMs").isNull(), fault.toString());
        JsonNode hosts = Http.get(engine.url() + "/api/registry/hosts").json();
        hosts.forEach(h -> assertTrue(h.get("quarantine").isNull(), "no host quarantined: " + hosts));
    }

    @Test
    void fanOutTimeoutFailsTheRun() throws Exception {
        FakeRanks fakes = new FakeRanks(r -> r.awaitAbort(10_000));
        fakes.acceptDelayMs = 8_000; // far longer than the 2 s fan-out timeout
        start(fakes, withFanOutTimeout(Duration.ofSeconds(2)), Duration.ofSeconds(30));
        long t0 = System.currentTimeMillis();
        JsonNode d = awaitFinal(startRun(ringPlan(4))); // ranks on both hosts
        assertEquals("FAILED", d.get("state").asText());
        // both hosts let the fan-out time out: both are quarantined, and no host is left
        assertTrue(d.at("/error/message").asText().startsWith("no capacity: "), d.toString());
        assertTrue(d.at("/error/message").asText().contains("did not accept run within 2 s"), d.toString());
        // the point of the test: the 2 s fan-out timeout, not the 8 s the hosts take, ends the wait. The run
        // fails at about 2 s; 6 s leaves a loaded 2-core machine 4 s of margin and is still clearly below 8 s
        assertTrue(System.currentTimeMillis() - t0 < 6_000, "the fan-out timeout bounds the wait");
    }

    @Test
    void deadlockIsReportedWithTheWaitForCycle() throws Exception {
        start(new FakeRanks(r -> {
            int other = 1 - r.rank();
            r.event(RankEvent.Type.ACTIVITY, null, "receive", "dl.mpfl.xml:" + (9 + r.rank()) + ":9", null, null, null);
            r.waitFor("receive", "dl.mpfl.xml:" + (9 + r.rank()) + ":9", "receive from " + other + " tag 0 comm world");
            r.awaitAbort(20_000);
        }), fast(), Duration.ofSeconds(30));
        JsonNode d = awaitFinal(startRun(ringPlan(2)));
        assertEquals("FAILED", d.get("state").asText());
        assertEquals("deadlock: rank 0 waits for rank 1 at dl.mpfl.xml:9:9 > rank 1 waits for rank 0 at dl.mpfl.xml:10:9",
                d.at("/error/message").asText());
        assertEquals(0, d.at("/error/rank").asInt());
    }

    @Test
    void lostHostFailsTheRun() throws Exception {
        FakeRanks fakes = new FakeRanks(r -> r.awaitAbort(20_000));
        fakes.unreachableHost = "h1"; // its process is gone: the abort cannot reach it
        start(fakes, fast(), Duration.ofMillis(3000));
        // only h0 keeps sending heartbeats, every 200 ms for the whole test: 15 to a timeout, which holds on a loaded
        // machine (heartbeats sent only while the test polled for the run's end let h0 expire too, once, in CI)
        java.util.concurrent.ScheduledExecutorService h0 = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try {
            h0.scheduleWithFixedDelay(() -> {
                try {
                    HostCalls.heartbeat(engine, "h0");
                } catch (java.io.IOException e) {
                    // the next one goes 200 ms later
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, 0, 200, java.util.concurrent.TimeUnit.MILLISECONDS);
            String id = startRun(ringPlan(4));
            JsonNode d = Await.runIn(Duration.ofSeconds(30), "FAILED", () -> detail(id));
            assertEquals("FAILED", d.get("state").asText(), d.toString());
            assertTrue(d.at("/error/message").asText().contains("service host h1"), d.toString());
            assertEquals(2, d.at("/error/rank").asInt());
            assertEquals(1, Http.get(engine.url() + "/api/registry/hosts").json().size());
            // the lost host's ranks never report their end: in the ended run they read ABORTED, not RUNNING
            JsonNode ended = Await.until(Duration.ofSeconds(30), "the lost host's ranks read as lost", () -> detail(id),
                    x -> x.at("/ranks/2/state").asText().equals("ABORTED"));
            assertEquals("ABORTED", ended.at("/ranks/3/state").asText(), ended.toString());
            assertTrue(ended.at("/ranks/3/error").asText().contains("host h1 could not be reached"), ended.toString());
        } finally {
            h0.shutdownNow();
            h0.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void cancelAbortsTheRun() throws Exception {
        FakeRanks fakes = new FakeRanks(r -> r.awaitAbort(20_000));
        start(fakes, fast(), Duration.ofSeconds(30));
        String id = startRun(ringPlan(2));
        Await.until(Duration.ofSeconds(30), "both ranks started", () -> fakes.started.size(), n -> n == 2);
        assertEquals(401, Http.post(engine.url() + "/api/runs/" + id + "/cancel", "wrong", "").status());
        Http.Answer a = Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), "");
        assertEquals(200, a.status(), a.body());
        JsonNode d = awaitFinal(id);
        assertEquals("CANCELLED", d.get("state").asText());
    }

    @Test
    void cancelWhileRanksAreStartingAbortsAgainOnceAllAreOut() throws Exception {
        FakeRanks fakes = new FakeRanks(r -> r.awaitAbort(20_000));
        // the cancel must come while the run calls are in this delay (they have been entered, they have not
        // returned): 3 s leaves a loaded 2-core machine ample time for the one POST in between
        fakes.acceptDelayMs = 3_000;
        start(fakes, fast(), Duration.ofSeconds(30));
        String id = startRun(ringPlan(4)); // two hosts: two service URLs
        Await.until(Duration.ofSeconds(30), "the run calls entered", () -> fakes.runCalls.get(), n -> n >= 2);
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), "").status());
        assertEquals("CANCELLED", awaitFinal(id).get("state").asText());
        // one abort per service URL right at the cancel, and again after the slow run calls returned
        Await.until(Duration.ofSeconds(30), "four aborts", () -> fakes.abortCalls.get(), n -> n >= 4);
        assertEquals(4, fakes.abortCalls.get());
    }
}
