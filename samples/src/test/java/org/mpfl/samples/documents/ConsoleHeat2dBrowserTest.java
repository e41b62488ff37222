package org.mpfl.samples.documents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.testing.browser.HeadlessChromium;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.Await;
import org.mpfl.testing.StartsProcesses;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The console over real heat2d runs (issue 24, "real parts, not mocks"): a real engine, two real
 * service-host processes, the sample's activity code, and headless Chromium. A run that converges
 * before {@code maxIter} shows "ended at K of MAX" with K the iterations the run itself output (read
 * through the REST API, not known to the test beforehand); a run cancelled midway and resumed with
 * the console's resume button (after the engine token, a wrong one refused) shows two attempts with their outcomes on its page, in its timeline and in the
 * runs list, with no negative startup and attempts that fit inside the run's wall time.
 *
 * <p>On the same engine and hosts (started with a Python interpreter: issue 25, one engine and two host JVMs
 * fewer than a class of its own), heat2d-py with checkpoints: a Python kernel worker SIGKILLed in the middle of
 * a run (as the OOM killer would) is an infrastructure fault — the run restarts from its last complete
 * checkpoint under {@code --restarts 1} with new workers (module state rebuilt) and ends with exactly the
 * undisturbed run's iterations and residual.
 */
@Timeout(600)
@StartsProcesses
class ConsoleHeat2dBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    static Path data;
    static Engine engine;
    static HostProcesses hosts;
    static HeadlessChromium browser;

    @BeforeAll
    static void start() throws Exception {
        // the browser first: without Chromium the test fails at once with what to install
        browser = HeadlessChromium.start(1400, 1000);
        data = Files.createTempDirectory("mpfl-console-heat2d-");
        // 15 s heartbeat timeout as in Heat2dRestartTest: hosts on a loaded 2-core machine missed 3 s
        engine = Engine.start(new EngineConfig().port(0).bindHost("127.0.0.1").dataDir(data).heartbeatTimeout(Duration.ofSeconds(15))
                .runSettings(new RunSettings(Duration.ofSeconds(20), Duration.ofSeconds(10), Duration.ofMillis(500), 2, "auto")));
        hosts = HostProcesses.builder().count(2).readyTimeout(Duration.ofSeconds(120))
                .environmentOf(LocalCluster.credentialsOf(engine, new ArrayList<>()))
                .hostArg("--engine").hostArg(engine.url()).hostArg("--capacity").hostArg("2")
                .hostArg("--python").hostArg(System.getProperty("mpfl.test.python", "/usr/bin/python3")).start();
        Await.until(Duration.ofSeconds(120), "2 hosts registered", () -> engine.registry().hosts(), hs -> hs.size() >= 2);
    }

    @AfterAll
    static void stop() {
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            try {
                if (hosts != null) {
                    hosts.close();
                }
            } finally {
                if (engine != null) {
                    engine.close();
                }
            }
        }
    }

    static SampleDocuments.Result mpflc(String command, List<String> extra) {
        List<String> args = new ArrayList<>(List.of(command));
        args.addAll(extra);
        args.addAll(List.of("--json", "--engine", engine.url(), "--data", data.toString()));
        return SampleDocuments.mpflc(args);
    }

    static List<String> heat2d(String... params) {
        List<String> args = new ArrayList<>(List.of(SampleDocuments.document("heat2d").toString()));
        for (String p : params) {
            args.add("--param");
            args.add(p);
        }
        return args;
    }

    static List<String> heat2dPy(List<String> params) {
        List<String> args = new ArrayList<>(List.of(SampleDocuments.document("heat2d-py").toString()));
        params.forEach(p -> args.addAll(List.of("--param", p)));
        return args;
    }

    static JsonNode run(String id) throws Exception {
        return Http.get(engine.url() + "/api/runs/" + id).json();
    }

    @Test
    void aConvergedRunShowsTheIterationCountItOutput() throws Exception {
        // progressEvery=1: the last <progress> is the last iteration, so the console can show the run's own count
        SampleDocuments.Result r = mpflc("run", heat2d("rows=16", "columns=16", "ranks=4", "maxIter=500", "tolerance=1e-2",
                "progressEvery=1"));
        JsonNode summary = SamplesRunTest.lastJsonObject(r.out());
        assertEquals("SUCCEEDED", summary.path("state").asText(), r.out() + r.err());
        String id = summary.path("run").asText();
        JsonNode ended = run(id);
        int iterations = ended.at("/outputs/iterations/0").asInt(-1);
        assertTrue(ended.at("/outputs/converged/0").asBoolean(), ended.path("outputs").toString());
        assertTrue(iterations > 0 && iterations < 500, "converged before maxIter: " + ended.path("outputs"));
        assertTrue(ended.path("startupMs").asLong(-1) >= 0, ended.toString());

        browser.driver().get(engine.url() + "/#/runs/" + id);
        browser.await("the page shows the run ended", WAIT, d -> "SUCCEEDED".equals(browser.attribute("#run-title .badge", "data-state")));
        browser.await("rank 0 ended at the run's own iteration count", WAIT,
                d -> browser.text("#rank-row-0 .progress-note").contains("ended at " + iterations + " of 500"));
        assertTrue(browser.text("#run-attempts").contains("1 attempt"), browser.text("#run-attempts"));
        browser.picture("run-converged.png");
    }

    @Test
    void aCancelledAndResumedRunShowsBothAttemptsWithTheirOutcomes() throws Exception {
        // long enough to be cancelled after a few checkpoints (a checkpoint every 5 of 180 iterations: the cancel
        // comes after iteration 15; a 16 × 16 plate's 381 and a 24 × 24 plate's 729 only made the resumed attempt longer)
        CompletableFuture<SampleDocuments.Result> first = CompletableFuture.supplyAsync(() -> mpflc("run",
                heat2d("rows=10", "columns=10", "ranks=4", "maxIter=3000", "tolerance=1e-3", "checkpointEvery=5", "progressEvery=1")));
        JsonNode running = Await.until(Duration.ofSeconds(180), "a heat2d run with 3 checkpoints", () -> {
            JsonNode runs = Http.get(engine.url() + "/api/runs").json(); // newest first; the converged run has ended
            return runs.size() > 0 ? run(runs.get(0).path("id").asText()) : null;
        }, d -> d != null && d.path("state").asText().equals("RUNNING") && d.path("checkpointsTaken").asInt() >= 3);
        String id = running.path("id").asText();
        Http.Answer cancel = Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), Map.of());
        assertEquals(200, cancel.status(), cancel.body());
        SampleDocuments.Result cancelled = first.get();
        assertTrue(cancelled.out().contains("CANCELLED"), cancelled.out());

        // resumed from the console, as a person would: the engine token first (a wrong one is refused), then the button
        browser.driver().get(engine.url() + "/#/runs/" + id);
        browser.await("the resume button of a cancelled run", WAIT, d -> browser.count("#resume-run") == 1);
        WebElement input = browser.driver().findElement(By.id("token-input"));
        input.sendKeys("not-the-token");
        browser.driver().findElement(By.id("token-save")).click();
        browser.await("a wrong token is said to be refused", WAIT, d -> "refused".equals(browser.attribute("#token-status", "data-verdict")));
        assertEquals("token refused", browser.text("#token-status"));
        input.sendKeys(engine.token());
        browser.driver().findElement(By.id("token-save")).click();
        browser.await("the right token is accepted", WAIT, d -> "token accepted".equals(browser.text("#token-status")));
        browser.driver().findElement(By.id("resume-run")).click();
        // the console asks first, as for a cancel
        browser.await("resume asks first", WAIT, d -> browser.count("#resume-confirm") == 1);
        browser.driver().findElement(By.id("resume-confirm")).click();
        // the click only starts the console's request: until the engine has it, the run is still the cancelled
        // one (ended, CANCELLED, one attempt), so the wait is for the second attempt's end, not for any end
        JsonNode done = Await.until(Duration.ofSeconds(300), "the resumed run ended", () -> run(id),
                d -> d.path("attemptLog").size() >= 2 && d.hasNonNull("endedMs"));
        assertEquals("SUCCEEDED", done.path("state").asText(), done.toString());
        assertEquals("resumed by user", done.at("/attemptLog/1/cause").asText(), done.toString());
        JsonNode log = done.path("attemptLog");
        assertEquals(2, log.size(), log.toString());
        assertEquals("CANCELLED", log.get(0).path("outcome").asText(), log.toString());
        assertEquals("SUCCEEDED", log.get(1).path("outcome").asText(), log.toString());
        assertTrue(done.path("startupMs").asLong(-1) >= 0, "startupMs of the resumed attempt: " + done.path("startupMs"));
        long wall = done.path("endedMs").asLong() - done.path("createdMs").asLong();
        long active = 0;
        for (JsonNode a : log) {
            assertTrue(a.path("endMs").asLong() >= a.path("startMs").asLong(), a.toString());
            active += a.path("endMs").asLong() - a.path("startMs").asLong();
        }
        assertTrue(active <= wall, "the attempts' time " + active + " ms fits in the wall time " + wall + " ms");

        browser.driver().get(engine.url() + "/#/runs/" + id);
        browser.await("both attempts with their outcomes", WAIT,
                d -> "SUCCEEDED".equals(browser.attribute("#attempts-table tr[data-attempt='2'] .attempt-outcome", "data-outcome")));
        assertEquals("CANCELLED", browser.attribute("#attempts-table tr[data-attempt='1'] .attempt-outcome", "data-outcome"));
        assertEquals("2 attempts · resumed", browser.text("#run-attempts"));
        browser.await("the timeline's attempt bands", WAIT,
                d -> browser.count("#timeline .attempt-band") == 2);
        assertEquals("CANCELLED", browser.attribute("#timeline .attempt-band[data-attempt='1']", "data-outcome"));
        assertEquals("SUCCEEDED", browser.attribute("#timeline .attempt-band[data-attempt='2']", "data-outcome"));
        assertTrue(!browser.text("#run-active").equals("–") && !browser.text("#run-duration").isBlank(), browser.text("#run-active"));
        int iterations = done.at("/outputs/iterations/0").asInt(-1);
        browser.await("rank 0 ended at the resumed run's own count", WAIT,
                d -> browser.text("#rank-row-0 .progress-note").contains("ended at " + iterations + " of 3000"));
        browser.picture("run-resumed.png");

        browser.driver().get(engine.url() + "/#/runs?q=" + id);
        browser.await("the list shows the attempts", WAIT,
                d -> browser.text("#runs-table tr[data-run-id='" + id + "'] .col-attempts").equals("2 attempts · resumed"));
    }

    /** 180 iterations to converge (16 × 16: 381, 24 × 24: 729, each twice the time of the one before for the same
     *  checks); the kill comes after 3 checkpoints (iteration 30), with 150 iterations still to go. */
    static final List<String> PYTHON_RESTART_PARAMS = List.of("rows=10", "columns=10", "ranks=4", "tolerance=1e-3", "maxIter=3000",
            "checkpointEvery=10", "progressEvery=1");

    @Test
    void aPythonKernelWorkerKilledMidRunRestartsFromTheLastCheckpointWithTheUndisturbedResult() throws Exception {
        SampleDocuments.Result undisturbed = mpflc("run", heat2dPy(PYTHON_RESTART_PARAMS));
        JsonNode undisturbedSummary = SamplesRunTest.lastJsonObject(undisturbed.out());
        JsonNode reference = undisturbedSummary.path("outputs");
        assertTrue(reference.at("/converged/0").asBoolean(), undisturbed.out() + undisturbed.err());
        String undisturbedId = undisturbedSummary.path("run").asText();

        CompletableFuture<SampleDocuments.Result> disturbed = CompletableFuture.supplyAsync(() -> {
            List<String> args = heat2dPy(PYTHON_RESTART_PARAMS);
            args.addAll(List.of("--restarts", "1"));
            return mpflc("run", args);
        });
        // the newest run once it is not the undisturbed one (this class's other runs have ended before)
        JsonNode d = Await.until(Duration.ofSeconds(180), "a second heat2d-py run with 3 checkpoints", () -> {
            JsonNode runs = Http.get(engine.url() + "/api/runs").json(); // newest first
            return runs.size() > 0 && !runs.get(0).path("id").asText().equals(undisturbedId) ? run(runs.get(0).path("id").asText()) : null;
        }, x -> x != null && Heat2dRestartTest.running(x, 3));
        ProcessHandle worker = hosts.hosts().stream().flatMap(h -> h.process().descendants())
                .filter(p -> p.info().commandLine().orElse("").contains("mpfl_kernel.py")).findFirst()
                .orElseThrow(() -> new AssertionError("no python kernel worker under the hosts"));
        worker.destroyForcibly(); // SIGKILL, as the OOM killer sends
        SampleDocuments.Result result = disturbed.get();
        JsonNode summary = SamplesRunTest.lastJsonObject(result.out());
        assertEquals("SUCCEEDED", summary.path("state").asText(), result.out() + result.err());
        assertEquals(reference, summary.path("outputs"), "exactly the iterations and residual of the undisturbed run");
        JsonNode after = run(d.path("id").asText());
        assertEquals(1, after.at("/restarts/used").asInt(), after.toString());
        JsonNode attempt = after.at("/attemptLog/1");
        assertTrue(attempt.path("cause").asText().contains("kernel worker lost:")
                && attempt.path("cause").asText().contains("SIGKILL"), attempt.toString());
        assertTrue(attempt.path("resumedFrom").asLong() >= 3, "resumed from a checkpoint: " + attempt);
    }
}
