package org.mpfl.engine.console;

import org.mpfl.testing.browser.HeadlessChromium;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.run.RunSettings;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;
import org.mpfl.testing.StartsProcesses;

/**
 * The web console in a real headless Chromium against a real engine with two service-host child
 * processes, running MPFL documents through the rank interpreter: the runs list and its state
 * filter, a ring's live detail (rank states and progress change without reload, the message matrix
 * has exactly the ring's counts, the timeline has compute/communicate/wait segments and zooms),
 * a failed run's cause with rank and source location, blocked ranks with what they wait for, cancel
 * with the engine token, and the registry.
 *
 * <p>Pictures of the main views are taken only when {@code -Dmpfl.console.screenshots=DIR} names a directory
 * (how {@code docs/console/} is refreshed: {@link HeadlessChromium#picture}); a failed test's page goes to
 * {@code target/console-screenshots} either way.
 */
@Timeout(180)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@StartsProcesses
class ConsoleBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    static Path dataDir;
    static LocalCluster cluster;
    static Engine engine;
    static ConsoleWorkflows workflows;
    static HeadlessChromium browser;

    /** On a failure, keeps a screenshot and the page's text next to the other screenshots. */
    @RegisterExtension
    static final TestExecutionExceptionHandler KEEP_THE_PAGE = (context, failure) -> {
        if (browser != null) {
            try {
                String name = "failed-" + context.getRequiredTestMethod().getName();
                Path shots = HeadlessChromium.failurePictures();
                browser.screenshot(shots.resolve(name + ".png"));
                Files.writeString(shots.resolve(name + ".txt"), String.valueOf(browser.script(
                        "return JSON.stringify({stream: document.getElementById('connection') && document.getElementById('connection').dataset,"
                        + " view: document.getElementById('view').dataset}) + '\\n' + document.body.innerText"))
                        + "\n\nengine events:\n" + engineEvents());
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
        throw failure;
    };

    /** Every run's stored events, for the failure report. */
    private static String engineEvents() throws Exception {
        StringBuilder out = new StringBuilder();
        for (var run : Http.get(engine.url() + "/api/runs").json()) {
            String id = run.get("id").asText();
            out.append("run ").append(id).append(' ').append(run.get("workflow").asText()).append('\n');
            for (var e : Http.get(engine.url() + "/api/runs/" + id + "/log").json()) {
                out.append("  ").append(e).append('\n');
            }
        }
        return out.toString();
    }

    @BeforeAll
    static void start() throws Exception {
        // the browser first: without Chromium the tests fail at once with what to install
        browser = HeadlessChromium.start(1400, 1000);
        workflows = ConsoleWorkflows.prepare();
        dataDir = Files.createTempDirectory("mpfl-console-");
        cluster = LocalCluster.start(new EngineConfig().port(0).bindHost("127.0.0.1").dataDir(dataDir)
                .heartbeatTimeout(Duration.ofSeconds(5))
                .runSettings(new RunSettings(Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofMillis(500), 3, "auto")),
                2, Duration.ofSeconds(90));
        engine = cluster.engine();
    }

    @AfterAll
    static void stop() {
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    static void open(String hash) {
        browser.driver().get(engine.url() + "/#" + hash);
    }

    static WebElement find(String css) {
        return browser.driver().findElement(By.cssSelector(css));
    }

    /** Clicks an element, retrying while a live re-render replaces it. */
    static void click(String css) {
        browser.await("click " + css, WAIT, d -> {
            find(css).click();
            return true;
        });
    }

    static int count(String css) {
        return ((Number) browser.script("return document.querySelectorAll(arguments[0]).length", css)).intValue();
    }

    // read through one script each, so that a live re-render between lookup and read cannot make them stale

    static String attribute(String css, String name) {
        return (String) browser.script("const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null",
                css, name);
    }

    @SuppressWarnings("unchecked")
    static List<String> attributes(String css, String name) {
        return (List<String>) browser.script("return Array.from(document.querySelectorAll(arguments[0]), e => e.getAttribute(arguments[1]))",
                css, name);
    }

    static String text(String css) {
        return (String) browser.script("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css);
    }

    /** The state badge in the run detail's title. */
    static String runState() {
        return attribute("#run-title .run-state", "data-state");
    }

    @Test
    @Order(1)
    void ringRunAppearsAndUpdatesLiveWithTheExpectedMessageMatrix() throws Exception {
        int n = 6;
        // the live checks below must catch the run mid-way: 8 rounds of a 300 ms pause keep it running for >= 2.4 s
        // after it starts, a margin over the page's load and the click on a loaded 2-core machine (5 x 60 ms missed it
        // once at load ~25)
        int rounds = 8;
        open("/runs");
        browser.await("runs view shown", WAIT, d -> count("#runs-table, #runs-empty") > 0);
        // no run yet: the hint is a command that works as written, with the admin token mpflc needs (from the data
        // directory the page cannot know, so named DATA, or $MPFL_ENGINE_TOKEN), and no server path
        String hint = text("#runs-empty");
        assertTrue(hint.contains("mpflc run FILE --engine " + engine.url() + " --token-file DATA/engine.token"), hint);
        assertTrue(hint.contains("$MPFL_ENGINE_TOKEN") && hint.contains("~/.mpfl/engine"), hint);
        assertTrue(!hint.contains(dataDir.toString()), hint);
        // the token field says what the token is for: cancel, but also retry/resume and the audit trail
        String placeholder = attribute("#token-input", "placeholder");
        assertTrue(placeholder.contains("resume") && placeholder.contains("audit"), placeholder);
        browser.script("window.consoleNotReloaded = true");
        String id = workflows.start(engine, "ring-rounds.mpfl.xml", Map.of("ranks", n, "rounds", rounds, "pauseMs", 300));
        String row = "#runs-table tr[data-run-id='" + id + "']";
        browser.await("the new run appears in the list", WAIT, d -> count(row) == 1);
        click(row + " a");
        browser.await("detail of the run shown", WAIT, d -> runState() != null);

        // live: some rank is seen RUNNING with partial progress, a blocked one with what it waits
        // for, and later every rank DONE at 100 %
        browser.await("a rank running with partial progress", WAIT, d -> count("#ranks-table tbody tr[data-state='RUNNING']") > 0
                && attributes("#ranks-table tbody tr[data-state='RUNNING'] .progress", "data-progress").stream().anyMatch(ConsoleBrowserTest::partial));
        browser.await("a blocked rank shows what it waits for", WAIT, d ->
                text("#ranks-table tr[data-blocked='true'] .rank-wait").matches("(?s).*receive.*from rank \\d.*tag 0.*comm world.*"));
        browser.await("the run succeeds", WAIT, d -> "SUCCEEDED".equals(runState()));
        browser.await("every rank done at 100 %", WAIT, d -> attributes("#ranks-table tbody tr", "data-state").equals(Collections.nCopies(n, "DONE"))
                && attributes("#ranks-table tbody tr .progress", "data-progress").equals(Collections.nCopies(n, "1.0000")));
        assertEquals(Boolean.TRUE, browser.script("return window.consoleNotReloaded === true"), "the page was not reloaded");

        // the matrix: each rank sent exactly `rounds` messages to rank+1 and none elsewhere
        // every rank's final counters (its COUNTERS event or the engine's last status poll) may land after the run's end
        browser.await("the ring's counts in the matrix", WAIT, d -> java.util.stream.IntStream.range(0, n)
                .allMatch(r -> matrixCount(r, (r + 1) % n) == rounds));
        for (int from = 0; from < n; from++) {
            for (int to = 0; to < n; to++) {
                assertEquals(to == (from + 1) % n ? rounds : 0, matrixCount(from, to), "messages " + from + " -> " + to);
            }
        }
        String cell = "#matrix-table td[data-from='2'][data-to='3']";
        assertEquals(String.valueOf(rounds), text(cell), "count as label");
        assertTrue(attribute(cell, "title").contains("rank 2 → rank 3: " + rounds + " messages"), attribute(cell, "title"));

        // timeline: a lane per rank with compute, communicate and wait segments; zoom in and back
        for (String kind : List.of("compute", "communicate", "wait")) {
            assertTrue(count("#timeline rect.seg[data-kind='" + kind + "']") > 0, "timeline has " + kind + " segments");
        }
        for (int r = 0; r < n; r++) {
            assertTrue(count("#timeline rect.seg[data-rank='" + r + "']") > 0, "timeline lane of rank " + r);
        }
        // a segment's tooltip gives its clock times with their zone, as every time shown does
        Object tip = browser.script("return document.querySelector('#timeline rect.seg title').textContent");
        assertTrue(String.valueOf(tip).matches("(?s).*\\d\\d:\\d\\d:\\d\\d\\.\\d{3}( – \\d\\d:\\d\\d:\\d\\d\\.\\d{3})? UTC.*"),
                String.valueOf(tip));
        assertTrue(text(".timeline-range").startsWith("whole run"), text(".timeline-range"));
        click("#timeline-zoom-in");
        browser.await("zoomed in", WAIT, d -> text(".timeline-range").startsWith("showing"));
        click("#timeline-fit");
        browser.await("back to the whole run", WAIT, d -> text(".timeline-range").startsWith("whole run"));

        // an ended run opened afresh draws its timeline from the stored events
        browser.driver().navigate().refresh();
        browser.await("timeline of the ended run after a reload", WAIT, d -> count("#timeline rect.seg[data-kind='wait']") > 0
                && count("#timeline rect.seg[data-rank='" + (n - 1) + "']") > 0);

        // logs and outputs per rank
        assertTrue(text("#logs").contains("round " + rounds + " of " + rounds), text("#logs"));
        assertEquals(String.valueOf(n * rounds), text("#outputs-table tr[data-output='token'] td[data-rank='0']"));
        browser.picture("run-detail.png");
    }

    private static boolean partial(String progress) {
        double p = progress == null ? 0 : Double.parseDouble(progress);
        return p > 0 && p < 1;
    }

    private static long matrixCount(int from, int to) {
        String v = attribute("#matrix-table td[data-from='" + from + "'][data-to='" + to + "']", "data-messages");
        return v == null ? -1 : Long.parseLong(v);
    }

    @Test
    @Order(2)
    void failedRunShowsItsCauseWithRankAndLocation() throws Exception {
        String id = workflows.start(engine, "failing.mpfl.xml", Map.of());
        open("/runs/" + id);
        browser.await("the run fails", WAIT, d -> "FAILED".equals(runState()));
        browser.await("the cause is shown", WAIT, d -> count("#failure") == 1);
        String where = workflows.document("failing.mpfl.xml") + ":10:7";
        assertEquals("1", attribute("#failure .failure-rank", "data-rank"));
        assertEquals(where, attribute("#failure .failure-location", "data-location"));
        assertEquals("failing.mpfl.xml:10:7", text("#failure .failure-location"));
        assertTrue(text("#failure .failure-message").contains("boom in rank 1"), text("#failure"));
        browser.await("rank 1 marked failed", WAIT, d -> "FAILED".equals(attribute("#ranks-table tr[data-rank='1']", "data-state")));
        assertEquals(where, attribute("#ranks-table tr[data-rank='1'] .rank-location", "data-location"));
        browser.await("the other ranks end ABORTED, live", WAIT, d -> "ABORTED".equals(attribute("#ranks-table tr[data-rank='0']", "data-state"))
                && "ABORTED".equals(attribute("#ranks-table tr[data-rank='2']", "data-state")));
        browser.picture("run-failed.png");
    }

    @Test
    @Order(3)
    void blockedRanksShowWhatTheyWaitForAndCancelNeedsTheToken() throws Exception {
        String id = workflows.start(engine, "stuck.mpfl.xml", Map.of());
        open("/runs/" + id);
        String doc = workflows.document("stuck.mpfl.xml").toString();
        String rank1 = "#ranks-table tr[data-rank='1']";
        browser.await("rank 1 blocked in a receive", WAIT, d -> "true".equals(attribute(rank1, "data-blocked")));
        String wait1 = text(rank1 + " .rank-wait");
        assertTrue(wait1.matches("(?s).*receive.*from rank 0.*tag 7.*comm world.*"), wait1);
        assertEquals(doc + ":16:7", attribute(rank1 + " .rank-location", "data-location"));
        for (String r : List.of("2", "3")) {
            String row = "#ranks-table tr[data-rank='" + r + "']";
            browser.await("rank " + r + " blocked in the allreduce", WAIT, d -> text(row + " .rank-wait").contains("collective allreduce"));
            assertTrue(text(row + " .rank-wait").contains("comm world"), text(row + " .rank-wait"));
            assertEquals(doc + ":19:5", attribute(row + " .rank-location", "data-location"));
        }
        browser.await("rank 0 computing", WAIT, d -> text("#ranks-table tr[data-rank='0'] .rank-activity").contains("compute"));
        assertEquals("false", attribute("#ranks-table tr[data-rank='0']", "data-blocked"));
        assertEquals(doc + ":13:7", attribute("#ranks-table tr[data-rank='0'] .rank-location", "data-location"));
        browser.await("wait segments on the timeline", WAIT, d -> count("#timeline rect.seg[data-kind='wait'][data-rank='1']") > 0);
        browser.picture("run-blocked.png");

        // without a token: the console asks for it
        browser.script("sessionStorage.clear()");
        click("#token-forget");
        click("#cancel-run");
        browser.await("asks for the token", WAIT, d -> text("#cancel-message").contains("engine token"));
        // a wrong token is refused
        find("#token-input").sendKeys("not-the-token");
        click("#token-save");
        click("#cancel-run");
        click("#cancel-confirm");
        browser.await("wrong token refused", WAIT, d -> text("#cancel-message").contains("refused"));
        assertEquals("RUNNING", runState());
        // the right token cancels
        find("#token-input").sendKeys(engine.token());
        click("#token-save");
        assertEquals(engine.token(), browser.script("return sessionStorage.getItem('mpfl.engineToken')"));
        click("#cancel-run");
        click("#cancel-confirm");
        browser.await("state CANCELLED shown", WAIT, d -> "CANCELLED".equals(runState()));
        browser.await("no cancel button on an ended run", WAIT, d -> count("#cancel-run") == 0);
        // "Cancel sent: the ranks are being aborted." is about a run still going: gone once it is CANCELLED
        browser.await("the cancel's message gone once the run ended", WAIT, d -> text("#cancel-message").isEmpty());
        assertEquals("CANCELLED", Http.get(engine.url() + "/api/runs/" + id).json().get("state").asText());
    }

    @Test
    @Order(4)
    void runsListFiltersByState() throws Exception {
        open("/runs");
        browser.await("the ended runs listed", WAIT, d ->
                attributes("#runs-table tbody tr", "data-state").containsAll(List.of("SUCCEEDED", "FAILED", "CANCELLED")));
        browser.picture("runs.png");
        new Select(find("#state-filter")).selectByValue("FAILED");
        browser.await("only failed runs", WAIT, d -> {
            List<String> states = attributes("#runs-table tbody tr", "data-state");
            return !states.isEmpty() && states.stream().allMatch("FAILED"::equals);
        });
        assertTrue(browser.driver().getCurrentUrl().endsWith("#/runs?state=FAILED"));
    }

    @Test
    @Order(5)
    void waitDescriptionsReadTheInterpreterFormats() {
        open("/registry");
        Object answer = browser.asyncScript("const done = arguments[arguments.length - 1];"
                + "Promise.all([import('./js/wait-description.js'), import('./js/activity-kind.js')]).then(([w, k]) => done(["
                + " w.describeWaits('receive from 5 (rank 1 of node) tag any comm node'),"
                + " w.describeWaits('broadcast with root 0 comm world (4 ranks)'),"
                + " w.describeWaits('barrier as its root comm grid (6 ranks)'),"
                + " w.describeWaits('ssend to 2 tag 4 comm world; allreduce comm sub (2 ranks)'),"
                + " [k.activityKind('compute org.x.Step'), k.activityKind('sendrecv'), k.activityKind('cartesian'), k.activityKind('assign')]"
                + "])).catch(e => done(String(e)))");
        assertTrue(answer instanceof List, "the modules did not load: " + answer);
        List<?> parts = (List<?>) answer;
        Map<?, ?> receive = (Map<?, ?>) ((List<?>) parts.get(0)).get(0);
        assertEquals(List.of("receive", "5 (rank 1 of node)", "any", "node"),
                List.of(receive.get("kind"), receive.get("peer"), receive.get("tag"), receive.get("comm")), receive.toString());
        Map<?, ?> broadcast = (Map<?, ?>) ((List<?>) parts.get(1)).get(0);
        assertEquals(List.of("collective", "broadcast", "world", "0", "4"), List.of(broadcast.get("kind"), broadcast.get("op"),
                broadcast.get("comm"), broadcast.get("root"), broadcast.get("ranks")), broadcast.toString());
        assertEquals("itself", ((Map<?, ?>) ((List<?>) parts.get(2)).get(0)).get("root"));
        assertEquals("[send, collective]", String.valueOf(((List<?>) parts.get(3)).stream().map(m -> ((Map<?, ?>) m).get("kind")).toList()));
        assertEquals(List.of("compute", "communicate", "communicate", "compute"), parts.get(4));
    }

    @Test
    @Order(6)
    void registryListsTheHostsWithServicesCapacityAndHeartbeat() throws Exception {
        open("/registry");
        browser.await("two hosts listed", WAIT, d -> count("#hosts-table tbody tr") == 2);
        // this engine has no capacity provider: no Capacity section (hosts and capacity are drawn together)
        assertEquals(0, count("#capacity"), text("main"));
        for (var h : engine.registry().hosts()) {
            String row = "#hosts-table tr[data-host-id='" + h.hostId() + "']";
            browser.await("host " + h.hostId() + " alive with the deployed services", WAIT, d -> text(row).contains("alive")
                    && text(row).contains("RingRounds") && text(row).contains("FailingWorker") && text(row).contains("StuckWorker"));
            assertEquals(String.valueOf(h.capacity()), attribute(row + " td[data-capacity]", "data-capacity"));
            // the ranks of live runs on it, of its capacity: "2 / 4" (the count moves with the class's runs)
            assertTrue(text(row + " td[data-capacity]").matches("\\d+ / " + h.capacity()), text(row));
            assertEquals(h.site(), attribute(row + " td[data-site]", "data-site"));
            assertTrue(text(row).contains(h.soapUrl()), text(row));
            assertTrue(text(row).matches("(?s).*\\d+(\\.\\d+)? (ms|s) ago.*"), "last heartbeat shown: " + text(row));
        }
        browser.picture("registry.png");
    }

    /** A quarantined host says so in its row, with the reason (the last test: it keeps that host out of placement). */
    @Test
    @Order(7)
    void registryShowsAQuarantinedHostWithItsReason() {
        open("/registry");
        String hostId = engine.registry().hosts().get(0).hostId();
        engine.registry().quarantine(hostId, "deploy refused: HTTP 500", Duration.ofSeconds(60), Duration.ofSeconds(60));
        String row = "#hosts-table tr[data-host-id='" + hostId + "']";
        browser.await("host " + hostId + " shown quarantined", WAIT, d -> text(row).contains("quarantined until ")
                && text(row).contains("deploy refused: HTTP 500"));
        String other = "#hosts-table tr[data-host-id='" + engine.registry().hosts().get(1).hostId() + "']";
        assertTrue(!text(other).contains("quarantined"), text(other));
    }

    @Test
    @Order(8)
    void traceOfARunDownloadsAndOpensAndTheWorkflowPictureShows() throws Exception {
        int n = 4;
        String id = workflows.start(engine, "ring-rounds.mpfl.xml", Map.of("ranks", n, "rounds", 3, "pauseMs", 20));
        open("/runs/" + id);
        browser.await("the run succeeds", WAIT, d -> "SUCCEEDED".equals(runState()));

        // the download is the engine's trace: Trace Event JSON with a named track per rank
        String href = attribute("#trace-download", "href");
        assertEquals("api/runs/" + id + "/trace", href);
        assertEquals(id + ".trace.json", attribute("#trace-download", "download"));
        String tracks = (String) browser.asyncScript("const done = arguments[arguments.length - 1];"
                + "fetch(arguments[0]).then(r => r.json()).then(t => done(t.traceEvents.filter(e => e.ph === 'M' && e.name === 'process_name')"
                + ".map(e => e.args.name.split(' ').slice(0, 2).join(' ')).join(','))).catch(e => done('error ' + e))", href);
        assertEquals("run ring-rounds,rank 0,rank 1,rank 2,rank 3", tracks.replaceFirst("^run ring-rounds [^,]*", "run ring-rounds"));

        // the console draws the same trace: per rank its sampled lane and its operations
        click("#trace-open");
        browser.await("the trace is drawn", WAIT, d -> count("#trace rect.span") > 0);
        // named by its workflow, as the run page is, with the run's id
        browser.await("the trace titled by its workflow", WAIT, d -> ("Trace of ring-rounds · run " + id).equals(
                browser.script("return document.getElementById('trace-title').textContent")));
        assertEquals("← ring-rounds · run " + id, text("#trace-back"));
        for (int r = 0; r < n; r++) {
            for (String cat : List.of("send", "receive", "compute")) {
                assertTrue(count("#trace rect.span[data-rank='" + r + "'][data-cat='" + cat + "']") > 0, "rank " + r + " has " + cat + " spans");
            }
        }
        assertEquals(n, count("#trace .trace-process"), "a track group per rank");
        assertTrue(count("#trace path.instant[data-name='done']") == n, "every rank's end is marked");
        browser.picture("trace.png");

        // the workflow's picture, once it is stored with its document (as mpflc deploy does)
        Http.Answer saved = workflows.deploy(engine, "ring-rounds", "ring-rounds.mpfl.xml");
        assertEquals(201, saved.status(), saved.body());
        open("/runs/" + id);
        browser.await("the run's page", WAIT, d -> "SUCCEEDED".equals(runState()));
        assertEquals(0, count("#workflow-graph-link"), "a run of a document sent with it: the stored workflow of that name is not its own");
        String ofStored = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("workflow", "ring-rounds",
                "params", Map.of("ranks", n, "rounds", 1, "pauseMs", 20))).json().get("id").asText();
        open("/runs/" + ofStored);
        browser.await("the run of the stored workflow succeeds", WAIT, d -> "SUCCEEDED".equals(runState()));
        browser.await("the run links to its workflow's picture", WAIT, d -> count("#workflow-graph-link") == 1);
        assertEquals("#/workflows/ring-rounds%401/graph", attribute("#workflow-graph-link", "href"));
        click("#workflow-graph-link");
        browser.await("the picture is shown", WAIT, d -> Boolean.TRUE.equals(browser.script(
                "const i = document.getElementById('workflow-graph'); return !!i && i.complete && i.naturalWidth > 100")));
        String dot = Http.get(engine.url() + "/api/workflows/ring-rounds/graph?format=dot").body();
        assertTrue(dot.contains("\"p:node\" -> \"p:node\"") && dot.contains("node\\n6 ranks"), dot);
        browser.picture("graph.png");

        // a workflow stored as a plan only has nothing to draw: the view says why
        Http.Answer planOnly = Http.post(engine.url() + "/api/workflows", engine.token(), Map.of("name", "plan-only",
                "plan", Map.of("workflow", "plan-only", "processes", List.of(Map.of("name", "p", "service", "P", "ranks", 1)))));
        assertEquals(201, planOnly.status(), planOnly.body());
        open("/workflows/plan-only/graph");
        browser.await("the reason is shown", WAIT, d -> text("#graph-error").contains("without its document"));
        assertEquals(400, Http.get(engine.url() + "/api/workflows/ring-rounds/graph?format=png").status());
        assertEquals(404, Http.get(engine.url() + "/api/workflows/none/graph").status());
    }

    /** An id the engine does not know: one line saying so, with a way back, and no empty sections of a run. */
    @Test
    @Order(9)
    void anUnknownRunIdSaysSoAndNothingElse() {
        open("/runs/doesNotExist123");
        browser.await("the unknown id said", WAIT, d -> count("#run-unknown") == 1);
        assertEquals("No run 'doesNotExist123'", text("#run-unknown h1"));
        assertEquals("#/runs", attribute("#run-unknown a", "href"));
        assertEquals(0, count("#ranks-section, #timeline-section, #attempts-section, #connection"), text("main"));
        assertTrue(!text("main").contains("Cannot read"), text("main"));
        // its trace page too: it offered a download of the trace and described what the trace shows, of no run
        open("/runs/doesNotExist123/trace");
        browser.await("the unknown id said on the trace page", WAIT, d -> count("#run-unknown") == 1);
        assertEquals("No run 'doesNotExist123'", text("#run-unknown h1"));
        assertEquals(0, count("#trace-section, #trace-download-2"), text("main"));
    }
}
