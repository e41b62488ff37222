package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.engine.cli.ResumeCommand;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.Await;

/**
 * Restarts and resumes with real service-host processes: a paced ring on three hosts with
 * {@code restarts 1} loses a host to SIGKILL in the middle and still succeeds with the undisturbed
 * result, the attempt on record (no checkpoint: from the start); a workflow's own fault is not
 * retried; {@code mpflc resume} of a run cancelled mid-way succeeds with the undisturbed result. The
 * host-kill test runs last (it leaves two hosts).
 */
@Timeout(240)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@StartsProcesses
class RestartTest {
    static final int ROUNDS = 30;
    static Path dataDir;
    static Engine engine;
    static HostProcesses hosts;

    @BeforeAll
    static void start() throws Exception {
        dataDir = Files.createTempDirectory("mpfl-restart-");
        // 15 s, not 3: hosts on a loaded 2-core machine (load 25 seen) missed 3 s and were declared lost
        engine = Engine.start(new EngineConfig().port(0).dataDir(dataDir).heartbeatTimeout(Duration.ofSeconds(15))
                .runSettings(new RunSettings(Duration.ofSeconds(20), Duration.ofSeconds(3), Duration.ofMillis(500), 2, "auto")));
        hosts = HostProcesses.builder().count(3).service("paced", PacedRingProgram.class).service("failing", FailingProgram.class)
                .environmentOf(LocalCluster.credentialsOf(engine, new ArrayList<>()))
                // --oversubscribe: after a host is killed, a 3-rank run restarts on the two hosts left
                .hostArg("--engine").hostArg(engine.url()).hostArg("--capacity").hostArg("1").hostArg("--oversubscribe").start();
        Await.until(Duration.ofSeconds(90), "3 hosts registered", () -> engine.registry().hosts(), hs -> hs.size() >= 3);
    }

    @AfterAll
    static void stop() {
        if (hosts != null) {
            hosts.close();
        }
        if (engine != null) {
            engine.close();
        }
    }

    static String startRun(String service, Map<String, Object> params, Integer restarts) throws Exception {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("params", params);
        body.put("plan", Map.of("workflow", service, "processes", List.of(Map.of("name", service, "service", service, "ranks", 3))));
        if (restarts != null) {
            body.put("restarts", restarts);
        }
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), body);
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    static JsonNode awaitProgress(String id, double atLeast) throws Exception {
        return Await.until(Duration.ofSeconds(60), "the run RUNNING at " + atLeast, () -> Http.get(engine.url() + "/api/runs/" + id).json(),
                d -> d.get("state").asText().equals("RUNNING") && d.get("progress").asDouble() >= atLeast);
    }

    @Test
    @Order(1)
    void aWorkflowFaultIsNotRetried() throws Exception {
        JsonNode d = PlanRuns.awaitEnd(engine, startRun("failing", Map.of(), 2), 30_000);
        assertEquals("FAILED", d.get("state").asText(), d.toString());
        assertTrue(d.at("/error/message").asText().contains("boom in rank 1"), d.toString());
        // restarts were left (a busy machine may have made one for a host that missed its status polls),
        // and none was made for the workflow's own fault
        assertTrue(d.at("/restarts/used").asInt() < 2, d.toString());
        d.get("attemptLog").forEach(a -> assertFalse(a.get("cause").asText().contains("boom"), d.toString()));
    }

    @Test
    @Order(2)
    void resumeOfARunCancelledMidwaySucceedsWithTheUndisturbedResult() throws Exception {
        String id = startRun("paced", Map.of("rounds", ROUNDS, "pauseMs", 100), null);
        awaitProgress(id, 0.2);
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), null).status());
        JsonNode cancelled = PlanRuns.awaitEnd(engine, id, 20_000);
        assertEquals("CANCELLED", cancelled.get("state").asText());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = new ResumeCommand().run(List.of(id, "--engine", engine.url(), "--data", dataDir.toString(), "--follow", "--json"),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String answer = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, answer + err.toString(StandardCharsets.UTF_8));
        assertTrue(answer.contains("\"state\":\"SUCCEEDED\""), answer);
        JsonNode d = Http.get(engine.url() + "/api/runs/" + id).json();
        assertEquals(3L * ROUNDS, d.at("/outputs/token/0").asLong(), d.toString());
        assertEquals(2, d.get("attemptLog").size(), d.toString());
        assertEquals("resumed by user", d.at("/attemptLog/1/cause").asText());
        assertTrue(d.at("/attemptLog/1/resumedFrom").isNull(), "no checkpoint: from the start");
        // a second resume of the succeeded run is refused with the reason
        ByteArrayOutputStream err2 = new ByteArrayOutputStream();
        assertEquals(1, new ResumeCommand().run(List.of(id, "--engine", engine.url(), "--data", dataDir.toString()),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), new PrintStream(err2, true, StandardCharsets.UTF_8)));
        assertTrue(err2.toString(StandardCharsets.UTF_8).contains("only a FAILED or CANCELLED run can be resumed"), err2.toString());
    }

    @Test
    @Order(3)
    void aRingThatLosesAHostToSigkillRestartsAndSucceedsWithTheUndisturbedResult() throws Exception {
        String id = startRun("paced", Map.of("rounds", ROUNDS, "pauseMs", 100), 1);
        JsonNode before = awaitProgress(id, 0.2);
        String victim = before.at("/ranks/2/host").asText();
        assertNotEquals(before.at("/ranks/0/host").asText(), victim);
        org.mpfl.protocol.launch.HostProcess h = hosts.hosts().stream().filter(x -> x.hostId().equals(victim)).findFirst().orElseThrow();
        long killedMs = System.currentTimeMillis();
        h.process().destroyForcibly(); // SIGKILL
        JsonNode d = PlanRuns.awaitEnd(engine, id, 60_000);
        assertEquals("SUCCEEDED", d.get("state").asText(), d.toString());
        assertEquals(3L * ROUNDS, d.at("/outputs/token/0").asLong(), d.toString());
        assertEquals(1, d.at("/restarts/used").asInt(), d.toString());
        JsonNode attempt = d.at("/attemptLog/1");
        assertEquals(2, attempt.get("attempt").asInt(), d.toString());
        assertTrue(attempt.get("cause").asText().startsWith("restart after: "), attempt.toString());
        assertTrue(attempt.get("resumedFrom").isNull(), "no checkpoint: from the start");
        d.get("ranks").forEach(r -> assertFalse(r.get("host").asText().equals(victim), "placed again without the lost host: " + d));
        long allRunning = attempt.get("runningMs").asLong();
        // what docs/benchmarks.md quotes: from the SIGKILL to every rank running again
        System.out.println("RESTART-RECOVERY: host SIGKILLed -> all 3 ranks running again in " + (allRunning - killedMs)
                + " ms (fault noticed after " + (attempt.get("faultMs").asLong() - killedMs) + " ms, new attempt running "
                + attempt.get("recoveryMs").asLong() + " ms after that); cause: " + attempt.get("cause").asText());
    }
}
