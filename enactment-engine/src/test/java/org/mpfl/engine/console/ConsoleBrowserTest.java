package org.mpfl.engine.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
import org.mpfl.engine.Http;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.engine.run.SoapRankInvoker;
import org.mpfl.runtime.testkit.HostProcesses;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The web console in a real headless Chromium against a real engine and two service-host child
 * processes: the runs list, a ring's live detail (rank states and progress change without reload,
 * the message matrix has exactly the ring's counts, the timeline has compute/communicate/wait
 * segments), a failed run's cause with rank and location, a blocked run's wait-for details and its
 * cancellation with the engine token, and the registry.
 *
 * <p>Screenshots of the main views go to {@code target/console-screenshots}, or to the directory
 * named by {@code -Dmpfl.console.screenshots=DIR} (how {@code docs/console/} is refreshed).
 */
@Timeout(180)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    static Path dataDir;
    static SoapRankInvoker soap;
    static Engine engine;
    static HostProcesses hosts;
    static HeadlessChromium browser;
    static Path shots;

    @BeforeAll
    static void start() throws Exception {
        shots = Path.of(System.getProperty("mpfl.console.screenshots", "target/console-screenshots"));
        dataDir = Files.createTempDirectory("mpfl-console-");
        soap = new SoapRankInvoker(Duration.ofSeconds(20));
        engine = Engine.start(new EngineConfig().port(0).bindHost("127.0.0.1").dataDir(dataDir)
                .heartbeatTimeout(Duration.ofSeconds(5)).invoker(new ReportingInvoker(soap))
                .runSettings(new RunSettings(Duration.ofSeconds(20), Duration.ofSeconds(30), Duration.ofMillis(500), 3, "auto")));
        hosts = HostProcesses.builder().count(2)
                .service("ring", InstrumentedRingProgram.class)
                .service("failing", FailingAtLocationProgram.class)
                .service("stuck", StuckProgram.class)
                .hostArg("--engine").hostArg(engine.url()).hostArg("--capacity").hostArg("3").start();
        long end = System.currentTimeMillis() + 30_000;
        while (engine.registry().hosts().size() < 2) {
            assertTrue(System.currentTimeMillis() < end, "hosts did not register: " + engine.registry().hosts());
            Thread.sleep(100);
        }
        browser = HeadlessChromium.start(1400, 1000);
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
                if (soap != null) {
                    soap.close();
                }
            }
        }
    }

    static String startRun(String service, int ranks, Map<String, Object> params) throws Exception {
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("params", params,
                "plan", Map.of("workflow", service, "processes", List.of(Map.of("name", service, "service", service, "ranks", ranks)))));
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    static void open(String hash) {
        browser.driver().get(engine.url() + "/#" + hash);
    }

    static WebElement find(String css) {
        return browser.driver().findElement(By.cssSelector(css));
    }

    static List<WebElement> findAll(String css) {
        return browser.driver().findElements(By.cssSelector(css));
    }

    static String attribute(String css, String name) {
        List<WebElement> e = findAll(css);
        return e.isEmpty() ? null : e.get(0).getAttribute(name);
    }

    static String text(String css) {
        List<WebElement> e = findAll(css);
        return e.isEmpty() ? "" : e.get(0).getText();
    }

    /** The state badge in the run detail's title. */
    static String runState() {
        return attribute("#run-title .run-state", "data-state");
    }

    @Test
    @Order(1)
    void registryListsTheHostsWithServicesCapacityAndHeartbeat() throws Exception {
        open("/registry");
        browser.await("two hosts listed", WAIT, d -> findAll("#hosts-table tbody tr").size() == 2);
        for (var h : hosts.hosts()) {
            String row = "#hosts-table tr[data-host-id='" + h.hostId() + "']";
            browser.await("host " + h.hostId() + " alive", WAIT, d -> text(row).contains("alive"));
            String t = text(row);
            assertTrue(t.contains("ring") && t.contains("failing") && t.contains("stuck"), t);
            assertEquals("3", attribute(row + " td[data-capacity]", "data-capacity"));
            assertTrue(t.matches("(?s).*\\d+(\\.\\d+)? (ms|s) ago.*"), "last heartbeat shown: " + t);
        }
        browser.screenshot(shots.resolve("registry.png"));
    }

    @Test
    @Order(2)
    void ringRunAppearsAndUpdatesLiveWithTheExpectedMessageMatrix() throws Exception {
        int n = 6;
        int rounds = 5;
        open("/runs");
        browser.await("runs view shown", WAIT, d -> !findAll("#runs-table, #runs-empty").isEmpty());
        browser.script("window.consoleNotReloaded = true");
        String id = startRun("ring", n, Map.of("rounds", rounds, "computeMs", 60));
        String row = "#runs-table tr[data-run-id='" + id + "']";
        browser.await("the new run appears in the list", WAIT, d -> !findAll(row).isEmpty());
        find(row + " a").click();
        browser.await("detail of the run shown", WAIT, d -> runState() != null);

        // live: some rank is seen RUNNING with partial progress, and later every rank is DONE at 100 %
        browser.await("a rank running with partial progress", WAIT, d -> findAll("#ranks-table tbody tr").stream().anyMatch(r ->
                "RUNNING".equals(r.getAttribute("data-state")) && partial(r.findElement(By.cssSelector(".progress")).getAttribute("data-progress"))));
        browser.await("a blocked rank shows what it waits for", WAIT, d ->
                text("#ranks-table tr[data-blocked='true'] .rank-wait").contains("from rank"));
        browser.await("the run succeeds", WAIT, d -> "SUCCEEDED".equals(runState()));
        browser.await("every rank done at 100 %", WAIT, d -> findAll("#ranks-table tbody tr").stream().allMatch(r ->
                "DONE".equals(r.getAttribute("data-state")) && "1.0000".equals(r.findElement(By.cssSelector(".progress")).getAttribute("data-progress"))));
        assertEquals(Boolean.TRUE, browser.script("return window.consoleNotReloaded === true"), "the page was not reloaded");

        // the matrix: each rank sent exactly `rounds` messages to rank+1 and none elsewhere
        browser.await("the ring's counts in the matrix", WAIT, d -> matrixCount(0, 1) == rounds && matrixCount(n - 1, 0) == rounds);
        for (int from = 0; from < n; from++) {
            for (int to = 0; to < n; to++) {
                assertEquals(to == (from + 1) % n ? rounds : 0, matrixCount(from, to), "messages " + from + " -> " + to);
            }
        }
        String cell = "#matrix-table td[data-from='2'][data-to='3']";
        assertEquals(String.valueOf(rounds), text(cell), "count as label");
        assertTrue(attribute(cell, "title").contains("rank 2 → rank 3: " + rounds + " messages"), attribute(cell, "title"));

        // timeline: compute, communicate and wait segments for every rank; zoom works
        for (String kind : List.of("compute", "communicate", "wait")) {
            assertTrue(!findAll("#timeline rect.seg[data-kind='" + kind + "']").isEmpty(), "timeline has " + kind + " segments");
        }
        for (int r = 0; r < n; r++) {
            assertTrue(!findAll("#timeline rect.seg[data-rank='" + r + "']").isEmpty(), "timeline lane of rank " + r);
        }
        String whole = text(".timeline-range");
        find("#timeline-zoom-in").click();
        browser.await("zoomed in", WAIT, d -> text(".timeline-range").startsWith("showing"));
        find("#timeline-fit").click();
        browser.await("back to the whole run", WAIT, d -> text(".timeline-range").startsWith("whole run"));
        assertTrue(whole.startsWith("whole run"), whole);

        // logs and outputs per rank
        assertTrue(text("#logs").contains("round " + rounds + " of " + rounds), text("#logs"));
        assertEquals(String.valueOf(n * rounds), text("#outputs-table tr[data-output='token'] td[data-rank='0']"));
        browser.screenshot(shots.resolve("run-detail.png"));
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
    @Order(3)
    void failedRunShowsItsCauseWithRankAndLocation() throws Exception {
        String id = startRun("failing", 3, Map.of());
        open("/runs/" + id);
        browser.await("the run fails", WAIT, d -> "FAILED".equals(runState()));
        browser.await("the cause is shown", WAIT, d -> !findAll("#failure").isEmpty());
        assertEquals("1", attribute("#failure .failure-rank", "data-rank"));
        assertEquals("failing.mpfl.xml:7:9", text("#failure .failure-location"));
        assertTrue(text("#failure .failure-message").contains("boom in rank 1"), text("#failure"));
        browser.await("rank 1 marked failed", WAIT, d -> "FAILED".equals(attribute("#ranks-table tr[data-rank='1']", "data-state")));
        assertTrue(text("#ranks-table tr[data-rank='1'] .rank-location").contains("failing.mpfl.xml:7:9"));
        browser.screenshot(shots.resolve("run-failed.png"));
    }

    @Test
    @Order(4)
    void blockedRanksShowWhatTheyWaitForAndCancelNeedsTheToken() throws Exception {
        String id = startRun("stuck", 4, Map.of());
        open("/runs/" + id);
        String rank1 = "#ranks-table tr[data-rank='1']";
        browser.await("rank 1 blocked in a receive", WAIT, d -> "true".equals(attribute(rank1, "data-blocked")));
        String wait1 = text(rank1 + " .rank-wait");
        assertTrue(wait1.contains("receive") && wait1.contains("from rank 0") && wait1.contains("tag 7") && wait1.contains("comm world"), wait1);
        assertEquals("stuck.mpfl.xml:12:7", text(rank1 + " .rank-location"));
        String rank2 = "#ranks-table tr[data-rank='2']";
        browser.await("rank 2 blocked in a collective", WAIT, d -> text(rank2 + " .rank-wait").contains("collective allreduce"));
        assertTrue(text(rank2 + " .rank-wait").contains("comm world"));
        assertEquals("false", attribute("#ranks-table tr[data-rank='0']", "data-blocked"));
        assertEquals("compute org.example.LongStep", text("#ranks-table tr[data-rank='0'] .rank-activity"));
        browser.await("wait segments on the timeline", WAIT, d -> !findAll("#timeline rect.seg[data-kind='wait'][data-rank='1']").isEmpty());
        browser.screenshot(shots.resolve("run-blocked.png"));

        // without a token: the console asks for it
        browser.script("sessionStorage.clear()");
        find("#token-forget").click();
        find("#cancel-run").click();
        browser.await("asks for the token", WAIT, d -> text("#cancel-message").contains("engine token"));
        // a wrong token is refused
        find("#token-input").sendKeys("not-the-token");
        find("#token-save").click();
        find("#cancel-run").click();
        find("#cancel-confirm").click();
        browser.await("wrong token refused", WAIT, d -> text("#cancel-message").contains("refused"));
        assertEquals("RUNNING", runState());
        // the right token cancels
        find("#token-input").sendKeys(engine.token());
        find("#token-save").click();
        assertEquals(engine.token(), browser.script("return sessionStorage.getItem('mpfl.engineToken')"));
        find("#cancel-run").click();
        find("#cancel-confirm").click();
        browser.await("state CANCELLED shown", WAIT, d -> "CANCELLED".equals(runState()));
        browser.await("no cancel button on an ended run", WAIT, d -> findAll("#cancel-run").isEmpty());
        assertEquals("CANCELLED", Http.get(engine.url() + "/api/runs/" + id).json().get("state").asText());
    }

    @Test
    @Order(5)
    void runsListFiltersByState() throws Exception {
        open("/runs");
        browser.await("all runs listed", WAIT, d -> findAll("#runs-table tbody tr").size() >= 3);
        List<String> states = findAll("#runs-table tbody tr").stream().map(r -> r.getAttribute("data-state")).toList();
        assertTrue(states.containsAll(List.of("SUCCEEDED", "FAILED", "CANCELLED")), states.toString());
        browser.screenshot(shots.resolve("runs.png"));
        new org.openqa.selenium.support.ui.Select(find("#state-filter")).selectByValue("FAILED");
        browser.await("only failed runs", WAIT, d -> {
            List<WebElement> rows = findAll("#runs-table tbody tr");
            return !rows.isEmpty() && rows.stream().allMatch(r -> "FAILED".equals(r.getAttribute("data-state")));
        });
        assertTrue(browser.driver().getCurrentUrl().endsWith("#/runs?state=FAILED"));
    }
}
