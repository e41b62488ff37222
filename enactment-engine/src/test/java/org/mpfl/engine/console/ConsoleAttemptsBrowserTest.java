package org.mpfl.engine.console;

import org.mpfl.testing.browser.HeadlessChromium;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.Engine;
import org.mpfl.testing.Http;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.engine.run.HandMadeUploads;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.protocol.RankEvent;
import org.mpfl.testing.Await;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.engine.HostCalls;
import org.openqa.selenium.By;

/**
 * The console's attempts and checkpoints, in a real headless Chromium against a real engine whose
 * ranks are played in-process (they report over HTTP and upload their checkpoint parts by hand):
 * a run takes two checkpoints, the second turns out corrupt, a transport failure restarts the run
 * from the first; the run page lists both attempts (cause, resumed from, note about the unusable
 * checkpoint, time until the ranks ran again) and the checkpoints with size, arrival span and status.
 *
 * <p>Its picture {@code run-attempts.png} is taken as {@link ConsoleBrowserTest}'s are: only with
 * {@code -Dmpfl.console.screenshots=DIR} (how the copy in {@code docs/console/}, shown by {@code docs/console.md},
 * is refreshed).
 */
@Timeout(120)
@StartsProcesses
class ConsoleAttemptsBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    static FakeRankEngine fakes;
    static Engine engine;
    static Path dataDir;
    static HeadlessChromium browser;

    @BeforeAll
    static void start() throws Exception {
        browser = HeadlessChromium.start(1400, 1000);
        fakes = FakeRankEngine.start("attempts", new RunSettings(FakeRankEngine.FAN_OUT_TIMEOUT, Duration.ofSeconds(30), Duration.ofMillis(200), 2, "auto"),
                Duration.ofSeconds(60), 1, r -> r.awaitAbort(90_000));
        engine = fakes.engine;
        dataDir = fakes.dataDir;
    }

    @AfterAll
    static void stop() {
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            if (fakes != null) {
                fakes.close();
            }
        }
    }

    /** The ranks of run runId's attempt (the class has two runs: of any run would be either's). */
    static List<FakeRanks.Rank> domain(String runId, int attempt) throws Exception {
        return fakes.ranks(runId, attempt, 2, Duration.ofSeconds(20));
    }

    static String text(String css) {
        return browser.text(css);
    }

    static String attribute(String css, String name) {
        return browser.attribute(css, name);
    }

    @Test
    void aRestartedRunShowsEachAttemptAndItsCheckpoints() throws Exception {
        Http.Answer started = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("restarts", 1,
                "plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", 2)))));
        assertEquals(201, started.status(), started.body());
        String id = started.json().get("id").asText();
        List<FakeRanks.Rank> first = domain(id, 1);
        for (long seq = 1; seq <= 2; seq++) {
            // rank 0's progress when it reports the checkpoint: the table's "Progress then" (40 of 100, then 80 of 100)
            first.get(0).event(RankEvent.Type.PROGRESS, null, null, null, null, null, Map.of("value", 40 * seq, "total", 100));
            for (FakeRanks.Rank r : first) {
                byte[] body = HandMadeUploads.part(r.rank(), seq).getBytes(StandardCharsets.UTF_8);
                assertEquals(201, HandMadeUploads.upload(engine.url(), id, r.request(), seq, body, Map.of()).statusCode());
            }
            first.get(0).event(RankEvent.Type.CHECKPOINT, null, null, null, null, null,
                    Map.of("checkpoint", seq, "bytes", 10, "ms", 3, "stored", true));
        }
        Path corrupt = dataDir.resolve("checkpoints").resolve(id).resolve("2").resolve("rank-0.json");
        Files.writeString(corrupt, "{\"tampered\":true}");
        first.get(1).failInInfrastructure("send", "ring.mpfl.xml:12:7", "DeliveryException: send to rank 0 failed: connection reset");
        domain(id, 2);

        browser.driver().get(engine.url() + "/#/runs/" + id);
        browser.await("both attempts shown", WAIT, d -> attribute("#attempts-table tr[data-attempt='2'] .attempt-resumed",
                "data-resumed-from") != null && text("#attempts-table tr[data-attempt='2'] td:nth-of-type(4)").matches(".*\\d.*"));
        assertEquals("1", attribute("#attempts-table tr[data-attempt='2'] .attempt-resumed", "data-resumed-from"));
        assertEquals("checkpoint 1", text("#attempts-table tr[data-attempt='2'] .attempt-resumed"));
        assertEquals("start", text("#attempts-table tr[data-attempt='1'] .attempt-resumed"));
        String cause = text("#attempts-table tr[data-attempt='2'] .attempt-cause");
        assertTrue(cause.contains("restart after: DeliveryException: send to rank 0 failed"), cause);
        assertTrue(cause.contains("checkpoint 2 unusable: rank 0's part does not match its SHA-256"), cause);
        assertTrue(text("#restarts-summary").contains("1 of 1 used"), text("#restarts-summary"));
        assertEquals("true", attribute("#checkpoints-table tr[data-seq='1']", "data-complete"));
        assertEquals("false", attribute("#checkpoints-table tr[data-seq='1']", "data-unusable"));
        assertEquals("true", attribute("#checkpoints-table tr[data-seq='2']", "data-unusable"));
        assertTrue(text("#checkpoints-table tr[data-seq='1']").contains("2 / 2"), text("#checkpoints-table"));
        assertEquals("40 of 100", text("#checkpoints-table tr[data-seq='1'] .checkpoint-progress"));
        assertEquals("80 of 100", text("#checkpoints-table tr[data-seq='2'] .checkpoint-progress"));
        assertTrue(text("#checkpoints-table tr[data-seq='2'] .checkpoint-status").contains("does not match its SHA-256"));
        assertEquals("2 attempts · restarted", text("#run-attempts"));
        // rank 0 of attempt 1 reported nothing after it started: its lane ends with the attempt, and attempt 2's start opens
        // a segment of its own, rather than attempt 1's "running" stretching over the restart
        browser.await("attempt 2 on the timeline", WAIT, d -> browser.count("#timeline .attempt-band[data-attempt='2']") == 1);
        assertEquals(List.of(), browser.script("const start = Number(document.querySelector(\"#timeline .attempt-band[data-attempt='2'] .band-bg\")"
                + ".getAttribute('x'));"
                + "return Array.from(document.querySelectorAll(\"#timeline rect.seg[data-rank='0']\"), r => [Number(r.getAttribute('x')),"
                + " Number(r.getAttribute('x')) + Number(r.getAttribute('width')), start]).filter(([a, b, s]) => a < s - 1 && b > s + 1)"),
                "no segment of rank 0 crosses the start of attempt 2");
        browser.await("rank 0's segment of attempt 2", WAIT, d -> (Boolean) browser.script("const start = Number(document.querySelector("
                + "\"#timeline .attempt-band[data-attempt='2'] .band-bg\").getAttribute('x'));"
                + "return Array.from(document.querySelectorAll(\"#timeline rect.seg[data-rank='0']\")).some(r => Number(r.getAttribute('x')) >= start - 1)"));
        // the column is the ranks' running time, not a second "Active time" beside the header's (the attempts' wall times)
        List<String> columns = headings("#attempts-table");
        assertTrue(columns.contains("Ranks running") && !columns.contains("Active time"), columns.toString());
        // the progress the engine had seen, not the checkpoint's own iteration
        List<String> checkpointColumns = headings("#checkpoints-table");
        assertTrue(checkpointColumns.contains("Progress then") && !checkpointColumns.contains("At progress"), checkpointColumns.toString());
        browser.picture("run-attempts.png");

        // attempt 2, live, has one of the two parts of its checkpoint 3: being written, not "incomplete"
        List<FakeRanks.Rank> second = domain(id, 2);
        assertEquals(201, HandMadeUploads.upload(engine.url(), id, second.get(0).request(), 3,
                HandMadeUploads.part(0, 3).getBytes(StandardCharsets.UTF_8), Map.of()).statusCode());
        browser.await("the newest checkpoint being written", WAIT,
                d -> "being written".equals(text("#checkpoints-table tr[data-seq='3'] .checkpoint-status")));
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), Map.of()).status());
        browser.await("once the run ended it stays incomplete", WAIT,
                d -> "incomplete".equals(text("#checkpoints-table tr[data-seq='3'] .checkpoint-status")));

        // resumed elsewhere (mpflc resume, another tab) while this page shows the run as ended, its stream closed: the
        // page notices the new attempt and follows it live, as if it had been opened now
        browser.await("the page reads as ended, its stream closed by the engine", WAIT,
                d -> "ended".equals(attribute("#connection", "data-state")) && "closed".equals(attribute("#connection", "data-stream")));
        Http.Answer resumed = Http.post(engine.url() + "/api/runs/" + id + "/resume", engine.token(), Map.of());
        assertEquals(200, resumed.status(), resumed.body());
        domain(id, 3);
        browser.await("the page follows the resumed run", WAIT, d -> "RUNNING".equals(attribute("#view", "data-run-state"))
                && text("#run-attempts").startsWith("3 attempts") && "live".equals(attribute("#connection", "data-state")));
        assertEquals(1, browser.count("#cancel-run"), "a live run is cancelled, not resumed");
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), Map.of()).status());
        browser.await("and its end again", WAIT, d -> "CANCELLED".equals(attribute("#view", "data-run-state")));
    }

    /**
     * A run resumed from a checkpoint with the console's button: once its new attempt runs, the button's "Resumed: a new
     * attempt is pending." is gone or says "running" (it was said on while the run ran), and until the new attempt's
     * ranks report their own progress each reads the progress the run had at that checkpoint (40 of 100), not 0; the
     * header's running time, the ranks' times, their logs and message counts are the current attempt's, and say so.
     */
    @Test
    void aRunResumedFromACheckpointShowsTheProgressItHadAndNoStaleMessage() throws Exception {
        String id = post("resumed", 0);
        List<FakeRanks.Rank> first = checkpointAt40(id);
        for (FakeRanks.Rank r : first) {
            progress(r, 60); // past the checkpoint: what a resume from it goes back to is 40
        }
        first.get(0).event(RankEvent.Type.LOG, null, null, null, "a line of attempt 1", null, null);
        browser.driver().get(engine.url() + "/#/runs/" + id);
        browser.await("attempt 1 at 60 %", WAIT, d -> "0.6000".equals(attribute(".run-progress .progress", "data-progress")));
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), Map.of()).status());
        browser.script("sessionStorage.setItem('mpfl.engineToken', arguments[0])", engine.token());
        browser.await("the resume button", WAIT, d -> "Resume from checkpoint".equals(text("#resume-run")));
        browser.driver().findElement(By.id("resume-run")).click();
        browser.await("resume asks first", WAIT, d -> browser.count("#resume-confirm") == 1);
        browser.driver().findElement(By.id("resume-confirm")).click();

        List<FakeRanks.Rank> second = fakes.ranks(id, 2, 2, Duration.ofSeconds(60));
        browser.await("attempt 2 running", WAIT, d -> "RUNNING".equals(attribute("#view", "data-run-state"))
                && text("#run-attempts").startsWith("2 attempts") && "RUNNING".equals(attribute("#rank-row-1", "data-state")));
        // the engine: the new attempt's ranks start where the run was at checkpoint 1, and say so
        JsonNode detail = Http.get(engine.url() + "/api/runs/" + id).json();
        assertEquals(1, detail.at("/ranks/1/progressFromCheckpoint").asInt(), detail.toString());
        assertEquals(40.0, detail.at("/ranks/1/progress/value").asDouble(), detail.toString());
        assertEquals(0.4, detail.path("progress").asDouble(), 1e-9, detail.toString());
        assertEquals(1, detail.path("progressFromCheckpoint").asInt(), detail.toString());
        // the page: no "a new attempt is pending" beside a running run, and no 0 %
        // (the page may follow the new attempt before the engine's answer to the button arrives: then it says "running")
        browser.await("the resume's message true of the running attempt", WAIT, d -> List.of("", "Resumed: a new attempt is running.")
                .contains(text("#cancel-message")));
        browser.await("the checkpoint's progress", WAIT, d -> "resumed at 40 of 100 · checkpoint 1".equals(text("#rank-row-1 .progress-note")));
        assertEquals("0.4000", attribute(".run-progress .progress", "data-progress"));
        String note = text("#run-progress-note");
        assertTrue(note.contains("40 %") && note.contains("as at checkpoint 1, not yet reported in attempt 2"), note);
        // the header's running time is the attempt's, since its placement, not the wall time since the run's creation
        assertEquals("Running for (attempt 2)", browser.script("return document.getElementById('run-running').previousElementSibling.textContent"));
        assertEquals(detail.at("/attemptLog/1/startMs").asText(), attribute("#run-running", "data-since"));
        // the ranks' times are the current attempt's: said in the heading and each cell's tooltip
        assertEquals("Time (attempt 2)", text("#ranks-table th.col-time"));
        assertTrue(attribute("#rank-row-1 .rank-time", "title").startsWith("attempt 2: started "), attribute("#rank-row-1 .rank-time", "title"));

        // the logs shown are the new attempt's ranks', and say where the earlier attempt's are: in the full log
        browser.await("the logs of attempt 2", WAIT, d -> "2".equals(attribute("#log-counts", "data-attempt")));
        assertEquals("no line yet in attempt 2; earlier attempts' lines are in the full log", text("#log-counts"));
        assertTrue(Http.get(engine.url() + "/" + attribute("#log-download", "href").replaceFirst("^.*?/api/", "api/")).body()
                .contains("rank 0 INFO a line of attempt 1"));

        // so are the message counts: the new attempt's ranks count from 0
        assertTrue(text("#matrix-note").startsWith("No messages counted yet in attempt 2"), text("#matrix-note"));

        // the runs list says whose progress its bar shows
        browser.driver().get(engine.url() + "/#/runs?q=" + id);
        browser.await("the run listed as at checkpoint 1", WAIT,
                d -> "as at checkpoint 1".equals(text("#runs-table tr[data-run-id='" + id + "'] .progress-from")));
        browser.driver().get(engine.url() + "/#/runs/" + id);
        browser.await("the run page again", WAIT, d -> "RUNNING".equals(attribute("#rank-row-1", "data-state")));

        // the rank's own report replaces the checkpoint's
        progress(second.get(0), 45);
        browser.await("rank 0's own progress", WAIT, d -> "45 of 100".equals(text("#rank-row-0 .progress-note")));
        assertEquals("resumed at 40 of 100 · checkpoint 1", text("#rank-row-1 .progress-note"));
        assertTrue(Http.get(engine.url() + "/api/runs/" + id).json().at("/ranks/0/progressFromCheckpoint").isNull());
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), Map.of()).status());
        browser.await("cancelled again", WAIT, d -> "CANCELLED".equals(attribute("#view", "data-run-state")));
        browser.await("no word of the resume beside the ended run", WAIT, d -> text("#cancel-message").isEmpty());
        browser.script("sessionStorage.removeItem('mpfl.engineToken')");
    }

    /**
     * A run resumed from a checkpoint while another run holds every rank slot waits in the run queue without ranks: its
     * ranks table says so and what it waits for (the engine's queue reason), and that the progress shown is where the
     * run was at that checkpoint — not "Ranks are being placed…", which is what it said before. Once the other run ends
     * it is placed, and the queue is no longer named anywhere on the page.
     */
    @Test
    void aResumedRunWaitingInTheQueueSaysWhatItWaitsFor() throws Exception {
        String id = post("waiting", 0);
        checkpointAt40(id);
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), Map.of()).status());
        Await.runEnds(WAIT, () -> Http.get(engine.url() + "/api/runs/" + id).json());
        // another run takes both hosts' only slot each
        String holder = post("holder", 0);
        fakes.ranks(holder, 1, 2, Duration.ofSeconds(60));
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/resume", engine.token(), Map.of()).status());
        JsonNode queued = Await.until(WAIT, "the resumed run queued", () -> Http.get(engine.url() + "/api/runs/" + id).json(),
                d -> "QUEUED".equals(d.path("state").asText()) && d.path("queue").has("reason"));
        String reason = queued.at("/queue/reason").asText();

        browser.driver().get(engine.url() + "/#/runs/" + id);
        browser.await("the ranks table of the queued run", WAIT, d -> "QUEUED".equals(attribute("#ranks-unplaced", "data-state")));
        String waiting = text("#ranks-unplaced");
        assertTrue(waiting.startsWith("No rank placed yet: attempt 2 waits in the run queue (position 1) for "), waiting);
        assertEquals(reason, text("#ranks-queue-reason"));
        assertTrue(!waiting.contains("being placed"), waiting);
        assertEquals("1", attribute("#ranks-from-checkpoint", "data-checkpoint"));
        String fromCheckpoint = text("#ranks-from-checkpoint");
        assertTrue(fromCheckpoint.startsWith("Resumed from checkpoint 1: the run's progress, 40 %, is where it was"), fromCheckpoint);
        assertEquals("0.4000", attribute(".run-progress .progress", "data-progress"));
        assertEquals("not placed yet", text("#run-running"));
        // a queued run's size is its plan's (it was 0, the ranks placed so far), said with that none is placed yet
        assertEquals(2, queued.path("size").asInt(), queued.toString());
        assertEquals("2, not placed yet", text("#run-size"));
        // the start-up shown is attempt 1's: attempt 2 has none yet
        assertEquals("Start-up (attempt 1)", browser.script("return document.getElementById('run-startup').previousElementSibling.textContent"));

        browser.driver().get(engine.url() + "/#/runs?q=" + id);
        browser.await("the queued run listed", WAIT, d -> "QUEUED".equals(attribute("#runs-table tr[data-run-id='" + id + "'] .badge", "data-state")));
        assertEquals("2", text("#runs-table tr[data-run-id='" + id + "'] .col-ranks"));
        assertEquals("not placed yet", attribute("#runs-table tr[data-run-id='" + id + "'] .col-ranks", "title"));
        browser.driver().get(engine.url() + "/#/runs/" + id);
        browser.await("the queued run's page again", WAIT, d -> "QUEUED".equals(attribute("#ranks-unplaced", "data-state")));

        // the other run ends: the waiting one is placed, and nothing says it still waits
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + holder + "/cancel", engine.token(), Map.of()).status());
        fakes.ranks(id, 2, 2, Duration.ofSeconds(60));
        browser.await("the resumed run's ranks", WAIT, d -> "RUNNING".equals(attribute("#rank-row-1", "data-state")));
        assertEquals(0, browser.count("#ranks-unplaced"));
        assertEquals(0, browser.count(".queue-place"), "no queue position beside a run that left the queue");
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), Map.of()).status());
        browser.await("cancelled again", WAIT, d -> "CANCELLED".equals(attribute("#view", "data-run-state")));
    }

    /**
     * Run id's first attempt (once its 2 ranks started: after another test's run, if it ran first) at 40 of 100 on every
     * rank, then its checkpoint 1 taken, every part stored; its ranks.
     */
    static List<FakeRanks.Rank> checkpointAt40(String id) throws Exception {
        List<FakeRanks.Rank> first = fakes.ranks(id, 1, 2, Duration.ofSeconds(60));
        for (FakeRanks.Rank r : first) {
            progress(r, 40);
            byte[] body = HandMadeUploads.part(r.rank(), 1).getBytes(StandardCharsets.UTF_8);
            assertEquals(201, HandMadeUploads.upload(engine.url(), id, r.request(), 1, body, Map.of()).statusCode());
            r.event(RankEvent.Type.CHECKPOINT, null, null, null, null, null, Map.of("checkpoint", 1, "bytes", 10, "ms", 3, "stored", true));
        }
        return first;
    }

    /** Rank r's {@code <progress>} of 100. */
    static void progress(FakeRanks.Rank r, long value) throws Exception {
        r.event(RankEvent.Type.PROGRESS, null, null, null, null, null, Map.of("value", value, "total", 100));
    }

    /** More checkpoints than the engine lists (50): the summary and the button say that the newest are shown, not all. */
    @Test
    void manyCheckpointsSayTheNewestAreListed() throws Exception {
        Http.Answer started = Http.post(engine.url() + "/api/runs", engine.token(), Map.of(
                "plan", Map.of("workflow", "many", "processes", List.of(Map.of("name", "many", "service", "ring", "ranks", 2)))));
        assertEquals(201, started.status(), started.body());
        String id = started.json().get("id").asText();
        List<FakeRanks.Rank> ranks = fakes.ranks(id, 1, 2, Duration.ofSeconds(60)); // after the other run's cancel, if it ran first
        int taken = 53;
        for (long seq = 1; seq <= taken; seq++) {
            for (FakeRanks.Rank r : ranks) {
                byte[] body = HandMadeUploads.part(r.rank(), seq).getBytes(StandardCharsets.UTF_8);
                assertEquals(201, HandMadeUploads.upload(engine.url(), id, r.request(), seq, body, Map.of()).statusCode());
            }
        }
        browser.driver().get(engine.url() + "/#/runs/" + id);
        browser.await("the checkpoints summed up", WAIT, d -> text("#checkpoints-summary").startsWith(taken + " complete checkpoints taken"));
        String summary = text("#checkpoints-summary");
        assertTrue(summary.matches(taken + " complete checkpoints taken · the newest 50 listed: \\d+ usable, .*"), summary);
        assertEquals("Show the 50 newest", text("#checkpoints-toggle"));
        // no restarts allowed: no "0 of 0 used"
        assertTrue(!text("#restarts-summary").contains("Restarts"), text("#restarts-summary"));
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), Map.of()).status());
    }

    /**
     * A failed rank says whose fault it was, beside its message: the workflow's (a kernel's exception: never restarted)
     * or the infrastructure's (its kernel worker killed, a peer or host lost: restarted while restarts are left) — live
     * with the page open as the rank fails, and from the run's detail when the page is opened afterwards — and, for the
     * infrastructure's, whether the run was restarted after it: not when it allows no restarts or has none left.
     */
    @Test
    void aFailedRankSaysWhetherTheWorkflowOrTheInfrastructureFailed() throws Exception {
        String lost = post("lost", 0);
        List<FakeRanks.Rank> lostRanks = fakes.ranks(lost, 1, 2, Duration.ofSeconds(60)); // after another test's run, if it ran first
        browser.driver().get(engine.url() + "/#/runs/" + lost);
        browser.await("the run's ranks shown", WAIT, d -> "RUNNING".equals(attribute("#rank-row-1", "data-state")));
        assertEquals(0, browser.count(".fault-kind"), "no kind before a failure");
        lostRanks.get(1).failInInfrastructure("compute k:step", "k.mpfl.xml:7:9", "kernel worker lost: killed by SIGKILL");
        browser.await("the lost worker's kind shown live", WAIT, d -> "INFRASTRUCTURE".equals(attribute("#rank-row-1 .fault-kind", "data-fault")));
        // the run allows no restart: it is not restarted, whatever the kind of fault (it said "restarted while restarts are left")
        assertEquals("infrastructure fault · not restarted: the run allows no restarts", text("#rank-row-1 .fault-kind"));
        assertTrue(attribute("#rank-row-1 .fault-kind", "title").contains("killed from outside"));
        assertEquals(0, Http.get(engine.url() + "/api/runs/" + lost).json().at("/restarts/allowed").asInt());

        // a run that used its one restart and fails the same way again: no restart is left, and the page says so
        String exhausted = post("exhausted", 1);
        fakes.ranks(exhausted, 1, 2, Duration.ofSeconds(60)).get(1)
                .failInInfrastructure("compute k:step", "k.mpfl.xml:7:9", "kernel worker lost: killed by SIGKILL");
        fakes.ranks(exhausted, 2, 2, Duration.ofSeconds(60)).get(1)
                .failInInfrastructure("compute k:step", "k.mpfl.xml:7:9", "kernel worker lost: killed by SIGKILL");
        JsonNode ended = Await.runEnds(WAIT, () -> Http.get(engine.url() + "/api/runs/" + exhausted).json());
        assertEquals("FAILED", ended.path("state").asText(), ended.toString());
        assertEquals(1, ended.at("/restarts/used").asInt(), ended.toString());
        browser.driver().get(engine.url() + "/#/runs/" + exhausted);
        browser.await("the exhausted run's fault kind", WAIT, d -> "INFRASTRUCTURE".equals(attribute("#rank-row-1 .fault-kind", "data-fault")));
        assertEquals("infrastructure fault · not restarted: no restarts left (1 of 1 used)", text("#rank-row-1 .fault-kind"));

        String raised = post("raised", 2);
        List<FakeRanks.Rank> raisedRanks = fakes.ranks(raised, 1, 2, Duration.ofSeconds(60));
        raisedRanks.get(0).fail("compute k:step", "k.mpfl.xml:7:9", "ModuleNotFoundError: No module named 'numpy'");
        Await.runEnds(WAIT, () -> Http.get(engine.url() + "/api/runs/" + raised).json());
        browser.driver().get(engine.url() + "/#/runs/" + raised);
        browser.await("the kernel's own fault shown", WAIT, d -> "WORKFLOW".equals(attribute("#rank-row-0 .fault-kind", "data-fault")));
        assertEquals("workflow fault · never restarted", text("#rank-row-0 .fault-kind"));
        assertTrue(text("#rank-row-0 .rank-error").contains("No module named 'numpy'"), text("#rank-row-0"));
        assertEquals(1, browser.count(".fault-kind"), "only the failed rank says a kind");
    }

    /** Starts a 2-rank run of workflow {@code name} that may restart {@code restarts} times; its ID. */
    static String post(String name, int restarts) throws Exception {
        Http.Answer started = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("restarts", restarts,
                "plan", Map.of("workflow", name, "processes", List.of(Map.of("name", name, "service", "ring", "ranks", 2)))));
        assertEquals(201, started.status(), started.body());
        return started.json().get("id").asText();
    }

    /** The column headings of a table. */
    @SuppressWarnings("unchecked")
    static List<String> headings(String table) {
        return (List<String>) browser.script("return Array.from(document.querySelectorAll(arguments[0] + ' thead th'), e => e.textContent)", table);
    }
}
