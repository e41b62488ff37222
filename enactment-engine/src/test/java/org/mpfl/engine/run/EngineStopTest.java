package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * trace, and waited 10 s for Camel's in-flight exchanges).
 */
@Timeout(120)
class EngineStopTest {
    @TempDir
    Path dir;

    @Test
    void anEngineStoppedWhileRanksAreBeingStartedLeavesTheRunToItsSuccessor() throws Exception {
        FakeRanks slowToAccept = new FakeRanks(r -> r.state("DONE"));
        slowToAccept.acceptDelayMs = 100_000; // hosts that have not answered run when the engine stops
        RunSettings settings = new RunSettings(Duration.ofSeconds(100), Duration.ofSeconds(5), Duration.ofMillis(200), 2, "auto");
        String id;
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(slowToAccept).runSettings(settings))) {
            assertEquals(201, HostCalls.announce(engine, Map.of("hostId", "h0", "soapUrl", "http://127.0.0.1:1/axis2/services/h0",
                    "services", List.of("ring"), "capacity", 2)).status());
            Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(),
                    Map.of("plan", EngineRunTest.ringPlan(2), "params", Map.of()));
            assertEquals(201, a.status(), a.body());
            id = a.json().get("id").asText();
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
}
