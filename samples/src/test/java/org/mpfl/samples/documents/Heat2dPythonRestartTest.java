package org.mpfl.samples.documents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.Await;
import org.mpfl.testing.StartsProcesses;

/**
 * heat2d-py with checkpoints on two host processes: a Python kernel worker SIGKILLed in the middle of
 * a run (as the OOM killer would) is an infrastructure fault — the run restarts from its last complete
 * checkpoint under {@code --restarts 1} with new workers (module state rebuilt) and ends with exactly
 * the undisturbed run's iterations and residual.
 */
@Timeout(600)
@StartsProcesses
class Heat2dPythonRestartTest {
    /** 180 iterations to converge (16 × 16: 381, 24 × 24: 729, each twice the time of the one before for the same
     *  checks); the kill comes after 3 checkpoints (iteration 30), with 150 iterations still to go. */
    static final List<String> PARAMS = List.of("rows=10", "columns=10", "ranks=4", "tolerance=1e-3", "maxIter=3000",
            "checkpointEvery=10", "progressEvery=1");
    static Path data;
    static Engine engine;
    static HostProcesses hosts;

    @BeforeAll
    static void start() throws Exception {
        data = Files.createTempDirectory("mpfl-heat2d-py-restart-");
        // 15 s heartbeat timeout, as Heat2dRestartTest: hosts on a loaded 2-core machine missed 3 s
        engine = Engine.start(new EngineConfig().port(0).dataDir(data).heartbeatTimeout(Duration.ofSeconds(15))
                .runSettings(new RunSettings(Duration.ofSeconds(20), Duration.ofSeconds(10), Duration.ofMillis(500), 2, "auto")));
        hosts = HostProcesses.builder().count(2).readyTimeout(Duration.ofSeconds(120))
                .environmentOf(LocalCluster.credentialsOf(engine, new ArrayList<>()))
                .hostArg("--engine").hostArg(engine.url()).hostArg("--capacity").hostArg("2")
                .hostArg("--python").hostArg(System.getProperty("mpfl.test.python", "/usr/bin/python3")).start();
        Await.until(Duration.ofSeconds(120), "2 hosts registered", () -> engine.registry().hosts(), hs -> hs.size() >= 2);
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

    static SampleDocuments.Result run(List<String> extra) {
        List<String> args = new ArrayList<>(List.of("run", SampleDocuments.document("heat2d-py").toString()));
        PARAMS.forEach(p -> args.addAll(List.of("--param", p)));
        args.addAll(extra);
        args.addAll(List.of("--json", "--engine", engine.url(), "--data", data.toString()));
        return SampleDocuments.mpflc(args);
    }

    static JsonNode get(String path) throws Exception {
        return Heat2dRestartTest.get(engine, path);
    }

    @Test
    void aKernelWorkerKilledMidRunRestartsFromTheLastCheckpointWithTheUndisturbedResult() throws Exception {
        SampleDocuments.Result undisturbed = run(List.of());
        JsonNode reference = SamplesRunTest.lastJsonObject(undisturbed.out()).path("outputs");
        assertTrue(reference.at("/converged/0").asBoolean(), undisturbed.out() + undisturbed.err());

        CompletableFuture<SampleDocuments.Result> disturbed = CompletableFuture.supplyAsync(() -> run(List.of("--restarts", "1")));
        JsonNode d = Await.until(Duration.ofSeconds(180), "a second run with 3 checkpoints", () -> {
            JsonNode runs = get("/api/runs");
            return runs.size() > 1 ? get("/api/runs/" + runs.get(0).path("id").asText()) : null;
        }, x -> x != null && Heat2dRestartTest.running(x, 3));
        ProcessHandle worker = hosts.hosts().stream().flatMap(h -> h.process().descendants())
                .filter(p -> p.info().commandLine().orElse("").contains("mpfl_kernel.py")).findFirst()
                .orElseThrow(() -> new AssertionError("no python kernel worker under the hosts"));
        worker.destroyForcibly(); // SIGKILL, as the OOM killer sends
        SampleDocuments.Result result = disturbed.get();
        JsonNode summary = SamplesRunTest.lastJsonObject(result.out());
        assertEquals("SUCCEEDED", summary.path("state").asText(), result.out() + result.err());
        assertEquals(reference, summary.path("outputs"), "exactly the iterations and residual of the undisturbed run");
        JsonNode after = get("/api/runs/" + d.path("id").asText());
        assertEquals(1, after.at("/restarts/used").asInt(), after.toString());
        JsonNode attempt = after.at("/attemptLog/1");
        assertTrue(attempt.path("cause").asText().contains("kernel worker lost:")
                && attempt.path("cause").asText().contains("SIGKILL"), attempt.toString());
        assertTrue(attempt.path("resumedFrom").asLong() >= 3, "resumed from a checkpoint: " + attempt);
    }
}
