package org.mpfl.engine.console;

import org.mpfl.testing.browser.HeadlessChromium;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.Engine;
import org.mpfl.testing.Http;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.engine.store.RunRecord;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.protocol.RankEvent;
import org.mpfl.testing.Await;
import org.mpfl.testing.StartsProcesses;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebElement;

/**
 * Issue 24, "the console tells the truth at a glance", in a real headless Chromium against a real
 * engine whose ranks are played in-process (they report over HTTP as hosts do), for states a real
 * run does not produce on demand: a rank that reports progress beside one that reports none keeps
 * its count when it ends early, a deadlock and a receive timeout read as people read them (a rank's
 * opened error details stay open when the table is drawn again), an ended run's event stream closes
 * (a {@code --virtual-time-budget} screenshot returns), the
 * blocked view names the rank everyone waits for, 1,000 stored runs page and search (API and
 * console), an 800-line log says what it shows and downloads in full, the trace keeps checkpoints
 * in a lane of their own, the main pages pass axe-core's WCAG 2 A/AA rules ({@link AxeCore}) and
 * the runs list and the ranks table keep their key columns in view at 800 px. Real runs (heat2d
 * converged early, cancelled and resumed) are the samples module's {@code ConsoleHeat2dBrowserTest}.
 *
 * <p>Pictures are taken only with {@code -Dmpfl.console.screenshots=DIR} (how {@code docs/console/} is
 * refreshed).
 */
@Timeout(600)
@StartsProcesses
class ConsoleTruthBrowserTest {
    /** Bound for what the browser and engine do in well under a second when idle: generous for a loaded 2-core machine. */
    private static final Duration WAIT = Duration.ofSeconds(40);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static FakeRankEngine fakes;
    /** While set, aborted ranks hold their ABORTED state back until it is counted down. */
    static volatile java.util.concurrent.CountDownLatch lateAbortEvents;
    static Engine engine;
    static HeadlessChromium browser;

    @BeforeAll
    static void start() throws Exception {
        browser = HeadlessChromium.start(1400, 1000);
        fakes = FakeRankEngine.start("truth", new RunSettings(FakeRankEngine.FAN_OUT_TIMEOUT, Duration.ofSeconds(1), Duration.ofMillis(200), 2, "auto"),
                // the test hosts never send heartbeats: they must outlive all the tests of this class
                Duration.ofMinutes(30), 2, r -> {
                    if (r.awaitAbort(120_000)) {
                        java.util.concurrent.CountDownLatch held = lateAbortEvents;
                        if (held != null) {
                            // a loaded host: the abort's consequences reach the engine after the run's stream ended
                            held.await(120, TimeUnit.SECONDS);
                        }
                        // as a real rank does when its domain is aborted under it
                        r.event(RankEvent.Type.STATE, "FAILED", null, null, "DomainAbortedException: domain " + r.request().domainId()
                                + " was aborted: aborted by request", null, null);
                    }
                });
        engine = fakes.engine;
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

    /**
     * Cancels the runs a test left live (it failed half-way): their ranks would hold the hosts' slots and
     * the next tests' runs would queue behind them, failing for a reason that is not theirs.
     */
    @AfterEach
    void cancelLiveRuns() throws Exception {
        for (String id : STARTED) {
            String state = run(id).path("state").asText();
            if (!org.mpfl.engine.run.RunState.valueOf(state).isFinal()) {
                Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), Map.of());
                awaitState(id, "CANCELLED");
            }
        }
        STARTED.clear();
    }

    // ------------------------------------------------------------------ helpers

    /** The runs the current test started. */
    private static final List<String> STARTED = new java.util.concurrent.CopyOnWriteArrayList<>();

    static String startRun(String workflow, int ranks, Map<String, Object> params) throws Exception {
        Http.Answer started = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("params", params,
                "plan", Map.of("workflow", workflow, "processes", List.of(Map.of("name", "p", "service", "ring", "ranks", ranks)))));
        assertEquals(201, started.status(), started.body());
        String id = started.json().get("id").asText();
        STARTED.add(id);
        return id;
    }

    /** The ranks of a run's {@code attempt}-th domain, by rank, once all {@code size} have started. */
    static List<FakeRanks.Rank> ranksOf(String runId, int attempt, int size) throws Exception {
        return fakes.ranks(runId, attempt, size, WAIT);
    }

    static JsonNode run(String id) throws Exception {
        return Http.get(engine.url() + "/api/runs/" + id).json();
    }

    static JsonNode awaitState(String id, String state) throws Exception {
        long end = System.currentTimeMillis() + WAIT.toMillis();
        for (;;) {
            JsonNode r = run(id);
            if (r.path("state").asText().equals(state)) {
                return r;
            }
            assertTrue(System.currentTimeMillis() < end, "run " + id + " did not become " + state + ": " + r.path("state"));
            Thread.sleep(50);
        }
    }

    static void progress(FakeRanks.Rank r, long value, long total) throws Exception {
        r.event(RankEvent.Type.PROGRESS, null, null, null, null, null, Map.of("value", value, "total", total));
    }

    static void activity(FakeRanks.Rank r, String activity, String location) throws Exception {
        r.event(RankEvent.Type.ACTIVITY, null, activity, location, null, null, null);
    }

    static String text(String css) {
        return browser.text(css);
    }

    static String attribute(String css, String name) {
        return browser.attribute(css, name);
    }

    static long count(String css) {
        return browser.count(css);
    }

    static void open(String hash) {
        browser.driver().get(engine.url() + "/" + hash);
    }

    static HttpResponse<String> get(String pathAndQuery) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(engine.url() + pathAndQuery)).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The table's key columns have a width and end inside the window, and its holder (closest to it) does not scroll sideways. */
    static void assertKeyColumnsInView(String table, String holder, List<String> columns) {
        int width = browser.driver().manage().window().getSize().getWidth();
        List<String> cut = new ArrayList<>();
        for (String column : columns) {
            Map<?, ?> box = (Map<?, ?>) browser.script("const e = document.querySelector(arguments[0] + ' thead th.' + arguments[1]);"
                    + "if (!e) return {missing: true}; const r = e.getBoundingClientRect();"
                    + "return {right: r.right, width: r.width, view: document.documentElement.clientWidth}", table, column);
            if (box.containsKey("missing") || ((Number) box.get("width")).doubleValue() <= 0
                    || ((Number) box.get("right")).doubleValue() > ((Number) box.get("view")).doubleValue()) {
                cut.add(column + " " + box);
            }
        }
        assertTrue(cut.isEmpty(), table + ": key columns out of view at " + width + " px: " + cut);
        Map<?, ?> box = (Map<?, ?>) browser.script("const h = document.querySelector(arguments[0]).closest(arguments[1]);"
                + "return {scroll: h.scrollWidth, client: h.clientWidth}", table, holder);
        assertTrue(((Number) box.get("scroll")).longValue() <= ((Number) box.get("client")).longValue() + 1,
                table + ": no hidden horizontal scroll at " + width + " px: " + box);
    }

    // ------------------------------------------------------------------ the tests

    /*
     * Played ranks, not a real run: a rank that reports <progress> beside one that reports none, at the
     * moments the test chooses, is what no sample produces on demand. A real heat2d that converges early,
     * and one cancelled and resumed, are shown by the samples module's ConsoleHeat2dBrowserTest.
     */
    @Test
    void aRunThatConvergedEarlyKeepsItsRealCountAndItsPageReadsAsEnded() throws Exception {
        String id = startRun("heat2d", 2, Map.of("iterations", 500));
        List<FakeRanks.Rank> ranks = ranksOf(id, 1, 2);
        activity(ranks.get(0), "while", "heat2d.mpfl.xml:40:5");
        progress(ranks.get(0), 100, 500);
        open("#/runs/" + id);
        // rank 1 reports no <progress>: the run's progress is rank 0's 20 %, not a mean with a 0
        browser.await("run progress from the reporting rank only", WAIT,
                d -> "0.2000".equals(attribute(".run-progress .progress", "data-progress")));
        assertTrue(text("#run-progress-note").contains("from 1 rank reporting progress (of 2)"), text("#run-progress-note"));
        assertTrue(text("#rank-row-1 .progress-note").contains("no progress reported"), text("#rank-row-1"));
        // the page draws the run from its detail before its event stream is open ("connecting"): wait for it, not assume it
        browser.await("the event stream open", WAIT, d -> "live".equals(attribute("#connection", "data-state")));

        progress(ranks.get(0), 247, 500);
        ranks.get(0).state("DONE");
        ranks.get(1).state("DONE");
        JsonNode ended = awaitState(id, "SUCCEEDED");
        assertEquals(247, ended.at("/ranks/0/progress/value").asInt(), "the engine keeps the last reported value");
        assertEquals(500, ended.at("/ranks/0/progress/total").asInt());
        assertTrue(ended.path("startupMs").asLong(-1) >= 0, ended.toString());

        browser.await("the page shows the run ended", WAIT, d -> "SUCCEEDED".equals(attribute("#run-title .badge", "data-state"))
                && "ended".equals(attribute("#connection", "data-state")));
        browser.await("rank 0 ended at its real count", WAIT, d -> text("#rank-row-0 .progress-note").contains("ended at 247 of 500"));
        String page = text("main");
        assertFalse(page.contains("● live"), "an ended run does not say live");
        assertFalse(page.contains("No outputs yet."), page);
        assertTrue(page.contains("The run reported no outputs."), page);
        assertTrue(page.contains("Last activity"), "the ranks' activity is in the past tense");
        assertFalse(page.contains("Current activity"));
        assertTrue(text("#run-attempts").contains("1 attempt"), text("#run-attempts"));
        assertTrue(((String) browser.script("return document.title")).contains("heat2d · SUCCEEDED"));
        assertTrue(text(".facts").matches("(?s).*\\d\\d:\\d\\d:\\d\\d UTC.*"), "times carry their zone: " + text(".facts"));

        // the engine ends an ended run's stream itself, after the snapshot
        HttpResponse<String> stream = get("/api/runs/" + id + "/events");
        assertEquals(200, stream.statusCode());
        assertTrue(stream.body().startsWith("event: snapshot"), stream.body());
        assertTrue(stream.body().endsWith("event: end\ndata: {}\n\n"), stream.body());

        // and a tool that waits for the network to go idle returns (it hung on the open stream before)
        Path profile = Files.createTempDirectory("mpfl-console-vtb-");
        Path png = profile.resolve("ended.png");
        Process chromium = new ProcessBuilder(HeadlessChromium.CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--user-data-dir=" + profile.resolve("p"),
                "--window-size=1400,1000", "--virtual-time-budget=10000", "--screenshot=" + png, engine.url() + "/#/runs/" + id)
                .redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile()).start();
        try {
            // the budget is virtual time; 120 s of real time is far more than a loaded machine needs to render one page
            boolean exited = chromium.waitFor(120, TimeUnit.SECONDS);
            assertTrue(exited, "chromium --virtual-time-budget --screenshot returned on an ended run's page");
            assertTrue(Files.size(png) > 1000, "a screenshot was written");
        } finally {
            chromium.destroyForcibly();
            chromium.waitFor(10, TimeUnit.SECONDS);
            FileTrees.deleteQuietly(profile);
        }
    }

    /**
     * The ranks a failure stopped end ABORTED on the page even when their end reaches the engine after the run's
     * event stream closed (the engine still takes such events, EndedRunEventException): the page keeps reading the
     * ended run's detail while a rank has not ended. CI at load ~20 showed rank 0 RUNNING for ever beside "run
     * ended · not live" (ConsoleBrowserTest.failedRunShowsItsCauseWithRankAndLocation).
     */
    @Test
    void ranksWhoseEndArrivesAfterTheStreamClosedStillEndOnThePage() throws Exception {
        lateAbortEvents = new java.util.concurrent.CountDownLatch(1);
        try {
            String id = startRun("late", 3, Map.of());
            List<FakeRanks.Rank> ranks = ranksOf(id, 1, 3);
            open("#/runs/" + id);
            browser.await("the event stream open", WAIT, d -> "live".equals(attribute("#connection", "data-state")));
            ranks.get(1).fail("fail", "late.mpfl.xml:10:7", "boom in rank 1");
            awaitState(id, "FAILED");
            browser.await("the page shows the run ended and its stream closed", WAIT,
                    d -> "FAILED".equals(attribute("#run-title .badge", "data-state"))
                            && "closed".equals(attribute("#connection", "data-stream")));
            // the page read the detail once more as the stream closed: let that read (and the next check of the
            // ended run, every 5 s) pass before the ranks' ends arrive
            browser.script("performance.clearResourceTimings()");
            browser.await("the page checked the ended run twice more", WAIT, d -> ((Number) browser.script(
                    "return performance.getEntriesByType('resource').filter(e => e.name.includes('api/runs?')"
                            + " && e.name.includes(arguments[0])).length", id)).intValue() >= 2);
            assertEquals("RUNNING", attribute("#ranks-table tr[data-rank='0']", "data-state"), "rank 0 has not ended yet");
            lateAbortEvents.countDown();
            Await.until(WAIT, "the engine took the late ends", () -> run(id),
                    r -> r.at("/ranks/0/state").asText().equals("ABORTED") && r.at("/ranks/2/state").asText().equals("ABORTED"));
            browser.await("the other ranks end ABORTED on the page", WAIT,
                    d -> "ABORTED".equals(attribute("#ranks-table tr[data-rank='0']", "data-state"))
                            && "ABORTED".equals(attribute("#ranks-table tr[data-rank='2']", "data-state")));
        } finally {
            java.util.concurrent.CountDownLatch held = lateAbortEvents;
            lateAbortEvents = null;
            held.countDown();
        }
    }

    @Test
    void aDeadlockAndATimeoutReadAsPeopleReadThem() throws Exception {
        String id = startRun("ring-deadlock", 2, Map.of());
        List<FakeRanks.Rank> ranks = ranksOf(id, 1, 2);
        ranks.get(0).waitFor("receive", "/tmp/work/ring.mpfl.xml:9:9", "receive from 1 tag 0 comm world");
        ranks.get(1).waitFor("receive", "/tmp/work/ring.mpfl.xml:9:9", "receive from 0 tag 0 comm world");
        JsonNode failed = awaitState(id, "FAILED");
        assertTrue(failed.at("/error/message").asText().startsWith("deadlock: "), failed.path("error").toString());
        int blamed = failed.at("/error/rank").asInt();
        open("#/runs/" + id);
        browser.await("the cycle as a list", WAIT, d -> count("#deadlock-cycle li") == 2);
        browser.await("the ranks stopped by the abort", WAIT, d -> count("#ranks-table .rank-stopped") == 2);
        assertTrue(count("#deadlock-cycle a[href='#rank-row-1']") >= 1, text("#deadlock-cycle"));
        assertTrue(text("#deadlock-cycle").contains("ring.mpfl.xml:9:9") && !text("#deadlock-cycle").contains("/tmp/work"),
                text("#deadlock-cycle"));
        assertEquals("stopped: deadlock detected", text("#rank-row-0 .rank-stopped"));
        assertEquals("true", attribute("#rank-row-" + blamed, "data-failure-origin"), "the rank the panel names is marked");
        String page = text("main");
        assertFalse(page.contains("DomainAbortedException"), page);
        assertFalse(page.contains("by request"), page);
        browser.driver().findElement(By.cssSelector("#deadlock-cycle a[href='#rank-row-1']")).click();
        browser.await("the link flashes rank 1's row", WAIT, d -> count("#rank-row-1.flash") == 1);
        browser.picture("run-deadlock.png");

        String timeout = startRun("timeout", 2, Map.of());
        List<FakeRanks.Rank> t = ranksOf(timeout, 1, 2);
        String domain = t.get(1).request().domainId();
        t.get(1).fail("receive", "/tmp/work/ring.mpfl.xml:12:7",
                "ReceiveTimeoutException: no message from rank 0 tag 0 within PT0.5S (receiver: rank 1, domain " + domain + ")");
        awaitState(timeout, "FAILED");
        open("#/runs/" + timeout);
        browser.await("the failure panel", WAIT, d -> text("#failure").contains("within 500 ms"));
        browser.await("rank 0 stopped because rank 1 failed", WAIT, d -> text("#rank-row-0 .rank-stopped").equals("stopped: rank 1 failed"));
        assertFalse(text("main").contains("PT0.5S"), text("main"));
        assertFalse(text("main").contains(domain), "the domain id shows only when asked for");
        assertEquals("true", attribute("#rank-row-1", "data-failure-origin"));
        browser.await("expanded, the full message is there", WAIT, d -> {
            if (!Boolean.TRUE.equals(browser.script("return document.querySelector('#failure details.internals').open"))) {
                d.findElement(By.cssSelector("#failure details.internals summary")).click();
            }
            return text("#failure").contains(domain);
        });
        browser.picture("run-timeout.png");

        // rank 1's own error: opened, it stays open when the table is drawn again (a resize redraws it, as live updates do)
        browser.await("rank 1's details opened", WAIT, d -> {
            d.findElement(By.cssSelector("#rank-row-1 .rank-error details.internals summary")).click();
            return Boolean.TRUE.equals(browser.script("return document.querySelector('#rank-row-1 .rank-error details').open"));
        });
        browser.script("document.getElementById('rank-row-1').dataset.drawnBefore = 'yes'");
        Dimension before = browser.driver().manage().window().getSize();
        try {
            browser.driver().manage().window().setSize(new Dimension(800, 900));
            browser.await("the ranks table drawn again", WAIT, d -> attribute("#rank-row-1", "data-drawn-before") == null);
            assertEquals(Boolean.TRUE, browser.script("return document.querySelector('#rank-row-1 .rank-error details').open"),
                    "rank 1's opened details stay open across a redraw");
            assertTrue(text("#rank-row-1 .rank-error").contains(domain), text("#rank-row-1"));
            // the ranks table at 800 px: location and time give way, the key columns stay in view
            assertKeyColumnsInView("#ranks-table", ".table-holder", List.of("col-rank", "col-state", "col-progress", "col-activity", "col-wait"));
            browser.picture("ranks-800px.png");
        } finally {
            browser.driver().manage().window().setSize(before);
        }

        // the runtime's own wording since (2.5 s, not PT2.5S) reads as it is; the PT form above is an older run's record
        String newer = startRun("timeout", 2, Map.of());
        ranksOf(newer, 1, 2).get(1).fail("receive", "/tmp/work/ring.mpfl.xml:12:7", "ReceiveTimeoutException: no message from"
                + " rank 0 with tag 0 arrived on communicator world within 2.5 s (receiver: rank 1, domain d)");
        awaitState(newer, "FAILED");
        open("#/runs/" + newer);
        browser.await("the failure panel of the newer wording", WAIT, d -> text("#failure").contains("within 2.5 s (receiver: rank 1"));
    }

    @Test
    void theBlockedViewNamesTheRankEveryoneWaitsFor() throws Exception {
        String id = startRun("stuck", 3, Map.of());
        List<FakeRanks.Rank> ranks = ranksOf(id, 1, 3);
        activity(ranks.get(0), "while", "/tmp/work/stuck.mpfl.xml:40:5");
        progress(ranks.get(0), 31_500_000, 200_000_000);
        ranks.get(1).waitFor("receive", "/tmp/work/stuck.mpfl.xml:20:7", "receive from 0 tag 7 comm world");
        ranks.get(2).waitFor("receive", "/tmp/work/stuck.mpfl.xml:20:7", "receive from 0 tag 7 comm world");
        open("#/runs/" + id);
        browser.await("the rank they wait for", WAIT, d -> "0".equals(attribute("#waited-for", "data-rank")));
        String said = text("#waited-for");
        assertTrue(said.startsWith("2 ranks wait for rank 0, which is running while at stuck.mpfl.xml:40:5"), said);
        assertTrue(said.contains("progress 31.5M of 200.0M"), said);
        assertTrue(text("#rank-row-0 .progress-note").contains("31.5M of 200.0M"), text("#rank-row-0"));
        assertEquals("2 of 3 ranks blocked", text("#blocked-summary"));
        browser.picture("run-waited-for.png");
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), Map.of()).status());
        awaitState(id, "CANCELLED");
    }

    @Test
    void athousandStoredRunsPageSortAndSearch() throws Exception {
        long base = 1_700_000_000_000L;
        for (int i = 0; i < 1000; i++) {
            String state = List.of("SUCCEEDED", "FAILED", "CANCELLED", "SUCCEEDED").get(i % 4);
            ObjectNode d = Json.MAPPER.createObjectNode();
            String runId = String.format("bulk%04d", i);
            d.put("id", runId).put("workflow", "bulk-" + (i % 10)).put("state", state).put("createdMs", base + i * 1000L)
                    .put("startedMs", base + i * 1000L + 10).put("endedMs", base + i * 1000L + 500).put("size", 2).put("progress", 1.0)
                    .put("attempts", 1);
            d.putObject("params").put("n", i).put("mode", i % 2 == 0 ? "even" : "odd");
            d.putArray("attemptLog").addObject().put("attempt", 1).put("cause", "start").put("startMs", base + i * 1000L);
            engine.database().runs().save(new RunRecord(runId, "bulk-" + (i % 10), state, base + i * 1000L, d));
        }
        HttpResponse<String> page = get("/api/runs?q=bulk-3&limit=40&offset=40");
        assertEquals(200, page.statusCode(), page.body());
        assertEquals("100", page.headers().firstValue("X-Total-Count").orElse(""));
        JsonNode runs = Json.MAPPER.readTree(page.body());
        assertEquals(40, runs.size());
        for (JsonNode r : runs) {
            assertEquals("bulk-3", r.path("workflow").asText());
        }
        // newest first: bulk-3's runs are i = 993, 983, …; the 41st newest is i = 593
        assertEquals("bulk0593", runs.get(0).path("id").asText());
        assertEquals(3, runs.get(0).at("/params/n").asInt() % 10, "listed runs carry their parameters");

        HttpResponse<String> byParam = get("/api/runs?param=" + URLEncoder.encode("n=417", StandardCharsets.UTF_8));
        assertEquals("1", byParam.headers().firstValue("X-Total-Count").orElse(""), byParam.body());
        assertEquals("bulk0417", Json.MAPPER.readTree(byParam.body()).get(0).path("id").asText());
        HttpResponse<String> window = get("/api/runs?q=bulk&from=" + (base + 10_000) + "&to=" + (base + 20_000) + "&sort=created&order=asc");
        assertEquals("11", window.headers().firstValue("X-Total-Count").orElse(""));
        assertEquals("bulk0010", Json.MAPPER.readTree(window.body()).get(0).path("id").asText());
        HttpResponse<String> failedOnly = get("/api/runs?q=bulk&state=failed&limit=1");
        assertEquals("250", failedOnly.headers().firstValue("X-Total-Count").orElse(""));
        HttpResponse<String> byWorkflow = get("/api/runs?q=bulk&sort=workflow&order=asc&limit=1");
        assertEquals("bulk-0", Json.MAPPER.readTree(byWorkflow.body()).get(0).path("workflow").asText());
        assertEquals(400, get("/api/runs?sort=colour").statusCode());
        assertEquals(400, get("/api/runs?limit=0").statusCode());

        open("#/runs?q=bulk&size=50");
        browser.await("the pager counts every match", WAIT, d -> "1000".equals(attribute("#runs-pager", "data-total")));
        assertEquals("1–50 of 1000 runs", text("#runs-range"));
        assertEquals("bulk0999", attribute("#runs-table tbody tr:first-child", "data-run-id"));
        browser.picture("runs-search.png");
        browser.driver().findElement(By.id("runs-next")).click();
        browser.await("page 2", WAIT, d -> "bulk0949".equals(attribute("#runs-table tbody tr:first-child", "data-run-id")));
        assertEquals("51–100 of 1000 runs", text("#runs-range"));
        // a page past the last (an old link; a search whose runs ended or went): the runs are there, and the way to them
        open("#/runs?q=bulk&page=99");
        browser.await("a page past the last", WAIT, d -> "99".equals(attribute("#runs-pager", "data-page")) && count("#runs-empty") == 1);
        assertEquals("none of 1000 runs", text("#runs-range"));
        assertEquals("No runs on page 99: 1000 runs fill 20 pages. Go to page 20.", text("#runs-empty"));
        assertEquals("#/runs?q=bulk&page=20", attribute("#runs-prev", "href"));
        browser.driver().findElement(By.id("runs-last-page")).click();
        browser.await("the last page", WAIT, d -> "bulk0049".equals(attribute("#runs-table tbody tr:first-child", "data-run-id")));
        assertEquals("951–1000 of 1000 runs", text("#runs-range"));

        WebElement param = browser.driver().findElement(By.id("run-param"));
        param.clear();
        param.sendKeys("n=417");
        browser.driver().findElement(By.cssSelector("#run-search button[type='submit']")).click();
        browser.await("the search by parameter", WAIT, d -> "1".equals(attribute("#runs-pager", "data-total")));
        assertEquals("bulk0417", attribute("#runs-table tbody tr:first-child", "data-run-id"));
        // parameters sorted by name
        assertEquals("mode=odd n=417", text("#runs-table tbody tr:first-child .col-params"));

        // a stored run that cannot be resumed: "Retry from the start" asks first, and the engine's refusal is said
        // in the button's words
        open("#/runs/bulk0001");
        browser.script("sessionStorage.setItem('mpfl.engineToken', arguments[0])", engine.token());
        browser.await("the retry button", WAIT, d -> "Retry from the start".equals(text("#resume-run")));
        browser.driver().findElement(By.id("resume-run")).click();
        browser.await("retry asks first", WAIT, d -> count("#resume-confirm") == 1);
        assertTrue(text("#run-actions").contains("Run this again from the start?"), text("#run-actions"));
        browser.driver().findElement(By.id("resume-keep")).click();
        browser.await("not now: the button again, nothing asked of the engine", WAIT, d -> count("#resume-run") == 1);
        assertEquals("", text("#cancel-message"));
        browser.driver().findElement(By.id("resume-run")).click();
        browser.await("retry asks again", WAIT, d -> count("#resume-confirm") == 1);
        browser.driver().findElement(By.id("resume-confirm")).click();
        browser.await("the engine's refusal, in the button's words", WAIT, d -> text("#cancel-message").startsWith("Retry failed: "));
        // (a run stored without its launch, as by an engine older than the store of launches)
        assertTrue(text("#cancel-message").contains("what placing it again needs was not stored"), text("#cancel-message"));
        browser.script("sessionStorage.removeItem('mpfl.engineToken')");
    }

    /** "To" names a minute: the runs created in it are in the window, as "From" includes those of its own minute. */
    @Test
    void theToFilterIncludesTheMinuteItNames() throws Exception {
        browser.driver().get(engine.url() + "/#/runs");
        // 10:15:30 and 10:16:10 on 2026-11-29 in the browser's zone, as the form reads the times it is given
        long inside = ((Number) browser.script("return new Date(2026, 10, 29, 10, 15, 30).getTime()")).longValue();
        long after = ((Number) browser.script("return new Date(2026, 10, 29, 10, 16, 10).getTime()")).longValue();
        saveWindowRun("window0", inside);
        saveWindowRun("window1", after);
        browser.driver().get(engine.url() + "/#/runs?q=window");
        browser.await("both stored runs listed", WAIT, d -> "2".equals(attribute("#runs-pager", "data-total")));
        browser.script("document.getElementById('run-to').value = '2026-11-29T10:15'");
        browser.driver().findElement(By.cssSelector("#run-search button[type='submit']")).click();
        browser.await("the window up to 10:15 searched", WAIT, d -> browser.driver().getCurrentUrl().contains("to=")
                && "1".equals(attribute("#runs-pager", "data-total")));
        assertEquals("window0", attribute("#runs-table tbody tr:first-child", "data-run-id"));
        assertEquals("2026-11-29T10:15", browser.script("return document.getElementById('run-to').value"), "the form shows the minute asked for");
    }

    /**
     * A run failed because its host was lost while the engine was away (as a real engine restarted under a running run
     * reports it): the run's error names the host's URL as its location. The console read that URL as a place in the
     * document and showed its last segment, the service's name ("at ring.h1.Ring"), and the ranks the engine could not
     * reach said "stopped: rank 0 failed" — rank 0 of itself. Now the host is named, and the ranks say they were lost
     * and that they ran at least until they were last heard of (their end is not known).
     */
    @Test
    void aRunWhoseHostWasLostNamesTheHostAndItsLostRanks() throws Exception {
        long t = System.currentTimeMillis() - 60_000;
        String url = "http://127.0.0.1:41225/axis2/services/lost.h82ebd88bc33.Ring";
        String lost = "lost: host host-375d49d0 could not be reached when the run ended";
        ObjectNode d = Json.MAPPER.createObjectNode();
        d.put("id", "hostlost1").put("workflow", "lost").put("state", "FAILED").put("createdMs", t).put("startedMs", t + 10)
                .put("endedMs", t + 40_000).put("size", 2).put("progress", 0.09).put("attempts", 1).put("abortedBecause", "rank 0 failed");
        d.putObject("error").put("rank", 0).put("location", url).put("message", "service host host-375d49d0 at " + url
                + " was lost while the engine was away (rank 0 ran there): its port refuses connections");
        for (int rank = 0; rank < 2; rank++) {
            d.withArray("ranks").addObject().put("rank", rank).put("process", "ring").put("host", "host-375d49d0").put("state", "ABORTED")
                    .put("activity", "compute k:step").put("location", "/tmp/lost/lost.mpfl.xml:9:7").put("startedMs", t + 20)
                    .put("endedMs", t + 30_000).put("lastSeenMs", t + 30_000).put("lost", true).put("error", lost);
        }
        d.putArray("attemptLog").addObject().put("attempt", 1).put("cause", "start").put("startMs", t + 10).put("endMs", t + 40_000)
                .put("outcome", "FAILED");
        engine.database().runs().save(new RunRecord("hostlost1", "lost", "FAILED", t, d));

        open("#/runs/hostlost1");
        browser.await("the failure panel", WAIT, d2 -> count("#failure .failure-location") == 1 && count("#rank-row-1") == 1);
        assertEquals("host 127.0.0.1:41225", text("#failure .failure-location"));
        assertEquals(url, attribute("#failure .failure-location", "title"), "the whole URL in the tooltip");
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(lost, text("#rank-row-" + rank + " .rank-stopped"), text("#rank-row-" + rank));
            assertEquals("true", attribute("#rank-row-" + rank + " .rank-stopped", "data-lost"));
            // its end is not known: it ran at least until it was last heard of (not until the engine gave up on it)
            assertEquals("≥ 30.0 s", text("#rank-row-" + rank + " .rank-time"));
            assertTrue(attribute("#rank-row-" + rank + " .rank-time", "title").contains(", its end is not known (its host was lost)"),
                    attribute("#rank-row-" + rank + " .rank-time", "title"));
        }
        open("#/runs?q=hostlost1");
        browser.await("the run listed", WAIT, d2 -> count("#runs-table tr[data-run-id='hostlost1'] .error-cell") == 1);
        String cause = text("#runs-table tr[data-run-id='hostlost1'] .error-cell");
        assertTrue(cause.startsWith("rank 0 at host 127.0.0.1:41225: service host host-375d49d0"), cause);
        // the list's time is the run's creation, as the run page names it (it said "Started": a resumed run starts later)
        assertEquals("Created", text("#runs-table th.col-started"));
        assertEquals("Created", browser.script("return document.querySelector(\"#run-sort option[value='created']\").textContent"));
    }

    /**
     * The timeline's "whole run" is the run's wall time, as the header says it. Its lanes reach past the run's end when
     * a rank's events do (ranks stop after the run ended — seen on a real cancelled run, "whole run: 6.86 s" beside
     * "Wall time 6.31 s" — or a host's clock is ahead): that is said, not counted as the run's time.
     */
    @Test
    void theTimelinesWholeRunIsTheRunsWallTime() throws Exception {
        String id = startRun("late-events", 2, Map.of());
        List<FakeRanks.Rank> ranks = ranksOf(id, 1, 2);
        activity(ranks.get(0), "compute Step", "/tmp/work/late.mpfl.xml:5:5");
        // an activity stamped 3 s ahead of the engine's clock, as a host whose clock runs ahead reports it
        FakeRanks.Rank ahead = ranks.get(1);
        assertEquals(204, ahead.post(new RankEvent(ahead.request().domainId(), 1, 999, System.currentTimeMillis() + 3000,
                RankEvent.Type.ACTIVITY, null, "compute Step", "/tmp/work/late.mpfl.xml:5:5", null, null, null, null, null)));
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), Map.of()).status());
        JsonNode ended = awaitState(id, "CANCELLED");
        open("#/runs/" + id);
        browser.await("the ended run's timeline", WAIT, d -> "ended".equals(attribute("#connection", "data-state"))
                && text(".timeline-range").startsWith("whole run") && count("#timeline rect.seg[data-rank='1']") > 0);
        String wall = text("#run-duration");
        String caption = text(".timeline-range");
        assertTrue(caption.startsWith("whole run: " + wall + " · the ranks' events reach "), caption + " beside the wall time " + wall
                + " (" + (ended.path("endedMs").asLong() - ended.path("createdMs").asLong()) + " ms)");
    }

    /** Stores an ended run created at {@code createdMs}. */
    static void saveWindowRun(String runId, long createdMs) throws Exception {
        ObjectNode d = Json.MAPPER.createObjectNode();
        d.put("id", runId).put("workflow", "window").put("state", "SUCCEEDED").put("createdMs", createdMs)
                .put("startedMs", createdMs + 10).put("endedMs", createdMs + 500).put("size", 2).put("progress", 1.0).put("attempts", 1);
        d.putArray("attemptLog").addObject().put("attempt", 1).put("cause", "start").put("startMs", createdMs);
        engine.database().runs().save(new RunRecord(runId, "window", "SUCCEEDED", createdMs, d));
    }

    /**
     * A Java activity's exception carries its frames: the run page shows its first line in the failure panel,
     * the failed rank's row and the attempt's outcome, the frames only under "details"; the ranks table keeps its
     * key columns at 800 px with it, and the runs list shows the line cut with an ellipsis, the whole in its tooltip.
     */
    @Test
    void aJavaExceptionShowsItsMessageAndItsFramesOnRequest() throws Exception {
        String id = startRun("kernel", 2, Map.of("n", 4, "beta", 2, "alpha", 1));
        List<FakeRanks.Rank> ranks = ranksOf(id, 1, 2);
        String first = "java.lang.IllegalStateException: the grid of this rank has no interior rows left to relax after the"
                + " boundary exchange of iteration 5700 (org.example.heat.GridOfManyRowsAndColumnsThatDoesNotBreakAnywhere)";
        String frames = "\n\tat org.example.heat.Grid.relax(Grid.java:52)\n\tat org.example.heat.Heat.execute(Heat.java:10)";
        activity(ranks.get(1), "compute org.example.heat.Heat", "/tmp/work/kernel.mpfl.xml:14:7");
        ranks.get(1).fail("compute org.example.heat.Heat", "/tmp/work/kernel.mpfl.xml:14:7", first + frames);
        awaitState(id, "FAILED");
        open("#/runs/" + id);
        browser.await("the failure panel", WAIT, d -> text("#failure").contains("IllegalStateException"));
        browser.await("rank 1's row failed", WAIT, d -> "FAILED".equals(attribute("#rank-row-1", "data-state"))
                && count("#attempts-table tr[data-attempt='1'] .attempt-outcome") == 1);
        for (String where : List.of("#failure", "#rank-row-1 .rank-error", "#attempts-table tr[data-attempt='1'] .attempt-outcome")) {
            assertTrue(text(where).contains("IllegalStateException: the grid of this rank"), where + ": " + text(where));
            assertFalse(text(where).contains("Grid.java:52"), where + " shows the frames only on request: " + text(where));
        }
        browser.await("the frames on request", WAIT, d -> {
            if (!text("#failure").contains("Grid.java:52")) {
                d.findElement(By.cssSelector("#failure details.internals summary")).click();
            }
            return text("#failure").contains("at org.example.heat.Grid.relax(Grid.java:52)");
        });
        // the column says "Last activity" once the run ended: the cell does not say "last" again
        assertEquals("compute org.example.heat.Heat", text("#rank-row-1 .rank-activity").split("\n")[0]);
        assertEquals(List.of("alpha=1", "beta=2", "n=4"), browser.script(
                "return Array.from(document.querySelectorAll('#run-params code.param'), e => e.textContent)"), "parameters sorted, one a line");
        // the run allowed no restart: no "Restarts after infrastructure faults: 0 of 0 used"
        assertFalse(text("#restarts-summary").contains("Restarts"), text("#restarts-summary"));

        Dimension before = browser.driver().manage().window().getSize();
        try {
            browser.driver().manage().window().setSize(new Dimension(800, 900));
            // clicked again while a redraw (the resize) replaces the row under the click
            browser.await("rank 1's frames opened", WAIT, d -> {
                if (!text("#rank-row-1 .rank-error").contains("Grid.java:52")) {
                    d.findElement(By.cssSelector("#rank-row-1 .rank-error details.internals summary")).click();
                }
                return text("#rank-row-1 .rank-error").contains("Grid.java:52");
            });
            assertKeyColumnsInView("#ranks-table", ".table-holder", List.of("col-rank", "col-state", "col-progress", "col-activity", "col-wait"));
        } finally {
            browser.driver().manage().window().setSize(before);
        }

        open("#/runs?q=" + id);
        String cause = "#runs-table tr[data-run-id='" + id + "'] .col-cause";
        browser.await("the run listed with its cause", WAIT, d -> !text(cause).isEmpty());
        assertEquals("rank 1 at kernel.mpfl.xml:14:7: " + first, text(cause), "the telling line, the location's file name");
        assertTrue(attribute(cause, "title").contains("/tmp/work/kernel.mpfl.xml:14:7") && attribute(cause, "title").contains("Grid.java:52"),
                attribute(cause, "title"));
        assertEquals(Boolean.TRUE, browser.script("const c = document.querySelector(arguments[0]);"
                + "return getComputedStyle(c).textOverflow === 'ellipsis' && c.scrollWidth > c.clientWidth", cause), "cut with an ellipsis");
        assertEquals("alpha=1 beta=2 n=4", text("#runs-table tr[data-run-id='" + id + "'] .col-params"));
    }

    @Test
    void aChattyLogSaysWhatItShowsAndDownloadsInFullAndTheTraceKeepsCheckpointsApart() throws Exception {
        String id = startRun("chatty", 2, Map.of());
        List<FakeRanks.Rank> ranks = ranksOf(id, 1, 2);
        for (int i = 0; i < 800; i++) {
            ranks.get(0).event(RankEvent.Type.LOG, null, null, null, "line " + i + " of the chatty rank", null, null);
        }
        for (int k = 1; k <= 3; k++) {
            ranks.get(0).event(RankEvent.Type.CHECKPOINT, null, null, null, null, null,
                    Map.of("checkpoint", k, "bytes", 100, "ms", 2, "stored", true));
        }
        ranks.get(0).state("DONE");
        ranks.get(1).state("DONE");
        awaitState(id, "SUCCEEDED");
        open("#/runs/" + id);
        browser.await("the log says what it shows", WAIT, d -> "800".equals(attribute("#log-counts", "data-total")));
        assertEquals("500", attribute("#log-counts", "data-kept"));
        assertTrue(text("#log-counts").startsWith("showing the last 500 of 800 lines"), text("#log-counts"));
        // a log line's time carries its zone, as every time shown does; MPFL's levels are info, warn and error
        assertTrue(text("#logs .log-time").matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} UTC.*"), text("#logs .log-time"));
        assertEquals(List.of("all levels", "warn and above", "error only"), browser.script(
                "return Array.from(document.querySelectorAll('#log-level option'), o => o.textContent)"));
        String href = attribute("#log-download", "href");
        assertTrue(href.endsWith("api/runs/" + id + "/logs"), href);
        HttpResponse<String> all = get("/api/runs/" + id + "/logs");
        assertEquals(200, all.statusCode());
        assertTrue(all.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        List<String> lines = all.body().lines().toList();
        assertEquals(800, lines.size());
        assertTrue(lines.get(0).endsWith("rank 0 INFO line 0 of the chatty rank"), lines.get(0));
        assertTrue(lines.get(799).endsWith("line 799 of the chatty rank"), lines.get(799));
        assertEquals("", get("/api/runs/" + id + "/logs?rank=1").body());

        browser.driver().findElement(By.id("log-search")).sendKeys("line 799 ");
        browser.await("the search narrows the lines", WAIT, d -> count("#logs .log-line") == 1);
        browser.driver().findElement(By.id("log-search")).clear();
        browser.script("const s = document.getElementById('log-search'); s.value = 'line 79'; s.dispatchEvent(new Event('input'))");
        // the page holds lines 300 to 799 (the newest 500): 790 to 799 match, line 79 is only in the download
        browser.await("lines 790-799", WAIT, d -> count("#logs .log-line") == 10);
        assertTrue(text("#log-counts").endsWith("· 10 match"), text("#log-counts"));
        browser.script("const s = document.getElementById('log-level'); s.value = 'warn'; s.dispatchEvent(new Event('change'))");
        browser.await("no line is a warning", WAIT, d -> count("#logs .log-line") == 0);
        assertTrue(text("#logs").contains("No line matches."));
        browser.script("const s = document.getElementById('log-level'); s.value = ''; s.dispatchEvent(new Event('change'));"
                + "const q = document.getElementById('log-search'); q.value = ''; q.dispatchEvent(new Event('input'))");
        browser.picture("run-logs.png");

        open("#/runs/" + id + "/trace");
        browser.await("the checkpoints' own lane", WAIT, d -> count("#trace .checkpoint-lane") == 1);
        assertEquals("3", attribute("#trace .checkpoint-lane", "data-checkpoints"));
        assertEquals(0, count("#trace .trace-track:not(.checkpoint-lane) .instant[data-name='checkpoint']"),
                "no checkpoint diamond on the operations lanes");
        assertEquals(1, count("#trace-legend [data-instant='checkpoint']"));
        List<String> trace = AxeCore.violations(browser);
        assertTrue(trace.isEmpty(), "trace page: " + String.join("\n", trace));
        browser.picture("trace-checkpoints.png");
    }

    @Test
    void theMainPagesPassAxeAndKeepKeyColumnsAt800Pixels() throws Exception {
        String id = startRun("contrast", 2, Map.of("n", 4));
        List<FakeRanks.Rank> ranks = ranksOf(id, 1, 2);
        activity(ranks.get(0), "compute org.example.Step", "/tmp/work/contrast.mpfl.xml:10:5");
        progress(ranks.get(0), 3, 10);
        ranks.get(1).waitFor("receive", "/tmp/work/contrast.mpfl.xml:12:5", "receive from 0 tag 1 comm world");
        ranks.get(0).event(RankEvent.Type.LOG, null, null, null, "step 3 of 10", null, null);
        open("#/runs/" + id);
        browser.await("a live run page with a blocked rank", WAIT, d -> count("#waited-for") == 1 && count("#timeline .seg-wait") >= 1);
        List<String> live = AxeCore.violations(browser);
        assertTrue(live.isEmpty(), "live run page: " + String.join("\n", live));
        ranks.get(1).fail("receive", "/tmp/work/contrast.mpfl.xml:12:5", "ReceiveTimeoutException: no message within PT2S");
        awaitState(id, "FAILED");
        browser.await("the failed page", WAIT, d -> count("#failure") == 1 && count("#rank-row-0 .rank-stopped") == 1);
        List<String> failed = AxeCore.violations(browser);
        assertTrue(failed.isEmpty(), "failed run page: " + String.join("\n", failed));
        open("#/runs");
        browser.await("the runs list", WAIT, d -> count("#runs-table tbody tr") > 0);
        List<String> list = AxeCore.violations(browser);
        assertTrue(list.isEmpty(), "runs list: " + String.join("\n", list));
        open("#/registry");
        browser.await("the registry", WAIT, d -> text("main").contains("h0"));
        List<String> registry = AxeCore.violations(browser);
        assertTrue(registry.isEmpty(), "registry: " + String.join("\n", registry));
        open("#/workflows");
        browser.await("the workflows page", WAIT, d -> count("#workflows-table, main .empty") > 0);
        List<String> workflows = AxeCore.violations(browser);
        assertTrue(workflows.isEmpty(), "workflows: " + String.join("\n", workflows));

        Dimension before = browser.driver().manage().window().getSize();
        try {
            browser.driver().manage().window().setSize(new Dimension(800, 900));
            open("#/runs");
            browser.await("the runs list at 800 px", WAIT, d -> count("#runs-table tbody tr") > 0);
            assertKeyColumnsInView("#runs-table", ".runs-holder", List.of("col-state", "col-workflow", "col-started", "col-duration", "col-progress"));
            browser.picture("runs-800px.png");
        } finally {
            browser.driver().manage().window().setSize(before);
        }
    }
}
