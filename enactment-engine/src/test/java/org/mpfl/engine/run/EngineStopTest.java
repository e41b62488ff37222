package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * An engine stopped on purpose while it starts a run's ranks: the stop neither fails the run (its successor on the
 * same data decides, as for any run an engine left unfinished, and aborts what of its domain may have started) nor
 * waits for the hosts' answers (the calls it would have waited for are interrupted: before, the stop failed the run as
 * "the engine could not start the run: Exception occurred during execution on the exchange: …", logged its stack
 * trace, and waited 10 s for Camel's in-flight exchanges). The same holds for what an engine does in the background
 * when its runs end or fail: a stop leaves it to the successor, as a kill would.
 */
@Timeout(120)
class EngineStopTest {
    @TempDir
    Path dir;
    private final RunSettings settings = new RunSettings(Duration.ofSeconds(100), Duration.ofSeconds(5), Duration.ofMillis(200), 2, "auto");

    @Test
    void anEngineStoppedWhileRanksAreBeingStartedLeavesTheRunToItsSuccessor() throws Exception {
        FakeRanks slowToAccept = new FakeRanks(r -> r.state("DONE"));
        slowToAccept.acceptDelayMs = 100_000; // hosts that have not answered run when the engine stops
        String id;
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(slowToAccept).runSettings(settings))) {
            id = startRing(engine);
            Await.until(Duration.ofSeconds(30), "both ranks' run calls under way", () -> slowToAccept.runCalls.get() == 2);
        }
        assertEquals(2, slowToAccept.runCallsInterrupted.get(), "the stop ends the calls it would otherwise wait for");

        FakeRanks successorsHosts = new FakeRanks(r -> { });
        try (Engine successor = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(successorsHosts).runSettings(settings))) {
            JsonNode run = Http.get(successor.url() + "/api/runs/" + id).json();
            assertEquals("FAILED", run.path("state").asText(), run.toString());
            assertEquals("engine restarted", run.at("/error/message").asText(),
                    "the successor's verdict on a run left unfinished, not one the stop made up: " + run);
            // whatever of the domain a host may have started meanwhile is not left running
            Await.until(Duration.ofSeconds(30), "the successor aborts the domain the stop left", () -> successorsHosts.abortCalls() >= 1);
        }
    }

    /**
     * The engine's fan-out has one thread here, so while the first rank's {@code run} call waits for its host the second
     * waits for the thread. A stop ends both: the first is interrupted, the second ends without being made, so the
     * fan-out completes and Camel's stop has no exchange in flight to wait for. Before, the stop shut the fan-out's pool
     * down, which dropped the queued call: its fan-out never completed and Camel waited its full 10 s ("Timeout occurred
     * during graceful shutdown"); an engine closed right after it accepted a run did so about one time in three. The stop
     * takes well under a second on an idle machine; 8 s leaves a loaded one its margin and stays below Camel's 10 s.
     */
    @Test
    void aStopEndsTheCallsItsFanOutHasQueuedWithoutWaitingForCamel() throws Exception {
        FakeRanks slowToAccept = new FakeRanks(r -> r.state("DONE"));
        slowToAccept.acceptDelayMs = 100_000;
        Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(slowToAccept).runSettings(settings).fanOutThreads(1));
        long stopNanos;
        try {
            startRing(engine);
            Await.until(Duration.ofSeconds(30), "the first rank's run call under way", () -> slowToAccept.runCalls.get() == 1);
        } finally {
            long before = System.nanoTime();
            engine.close();
            stopNanos = System.nanoTime() - before;
        }
        assertEquals(1, slowToAccept.runCallsInterrupted.get(), "the call under way is interrupted");
        assertEquals(1, slowToAccept.runCalls.get(), "the queued call is not made");
        assertTrue(stopNanos < TimeUnit.SECONDS.toNanos(8), "the stop took " + TimeUnit.NANOSECONDS.toMillis(stopNanos) + " ms");
    }

    /**
     * A run fails and the engine aborts its domain, but the host is slow to answer the abort and the engine is stopped
     * meanwhile: the domain stays recorded as live, so the successor aborts it. Before, the stop cut the abort call short
     * and the engine then forgot the domain as if it had been aborted (logging Camel's "Exception occurred during
     * execution on the exchange"), so no engine ever aborted it.
     */
    @Test
    void aDomainWhoseAbortTheStopCutShortIsAbortedByTheSuccessor() throws Exception {
        FakeRanks slowToAbort = new FakeRanks(r -> r.fail("compute", "stop.mpfl.xml:7:5", "boom"));
        slowToAbort.abortDelayMs = 100_000;
        String id;
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(slowToAbort).runSettings(settings))) {
            id = startRing(engine);
            Await.until(Duration.ofSeconds(30), "the failed run's abort under way", () -> slowToAbort.abortCalls() == 1);
            assertEquals("FAILED", Http.get(engine.url() + "/api/runs/" + id).json().path("state").asText());
        }
        assertEquals(1, slowToAbort.abortCallsInterrupted.get(), "the stop ends the abort call it would otherwise wait for");
        String domain = slowToAbort.aborted.iterator().next();

        FakeRanks successorsHosts = new FakeRanks(r -> { });
        try (Engine successor = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(successorsHosts).runSettings(settings))) {
            Await.until(Duration.ofSeconds(30), "the successor aborts the domain whose abort the stop cut short",
                    () -> successorsHosts.aborted.contains(domain));
            JsonNode run = Http.get(successor.url() + "/api/runs/" + id).json();
            assertEquals("FAILED", run.path("state").asText(), run.toString());
            assertEquals("boom", run.at("/error/message").asText(), "the run keeps its own verdict: " + run);
        }
    }

    /**
     * Ranks report after the engine's run service stopped but while its HTTP server still answers (the stop's last
     * moments): the events are taken (2xx), and what the engine would have decided in the background (here: every rank
     * aborted) is left to the successor. Before, the second event's answer was a 500 and the engine logged a
     * RejectedExecutionException with its stack trace.
     */
    @Test
    void eventsArrivingWhileTheEngineStopsAreTakenAndTheirDecisionIsLeftToTheSuccessor() throws Exception {
        CountDownLatch report = new CountDownLatch(1);
        ConcurrentLinkedQueue<Integer> answers = new ConcurrentLinkedQueue<>();
        FakeRanks ranks = new FakeRanks(r -> {
            if (report.await(60, TimeUnit.SECONDS)) {
                answers.add(r.state("ABORTED"));
            }
        });
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir)
                .invoker(ranks).runSettings(settings))) {
            String id = startRing(engine);
            Await.until(Duration.ofSeconds(30), "both ranks running",
                    () -> Http.get(engine.url() + "/api/runs/" + id).json().path("state").asText().equals("RUNNING"));
            engine.runs().close(); // what Engine.close does first
            report.countDown();
            Await.until(Duration.ofSeconds(30), "both ranks' events answered", () -> answers.size() == 2);
            assertTrue(answers.stream().allMatch(status -> status / 100 == 2), "answers to the ranks' events: " + answers);
        }
    }

    /** Announces one host of capacity 2 and starts a 2-rank ring on it; returns the run's id. */
    private static String startRing(Engine engine) throws Exception {
        assertEquals(201, HostCalls.announce(engine, Map.of("hostId", "h0", "soapUrl", "http://127.0.0.1:1/axis2/services/h0",
                "services", List.of("ring"), "capacity", 2)).status());
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(),
                Map.of("plan", EngineRunTest.ringPlan(2), "params", Map.of()));
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }
}
