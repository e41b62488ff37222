package org.mpfl.engine.console;

import org.mpfl.testing.browser.HeadlessChromium;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;
import org.mpfl.engine.run.FakeRanks;
import org.openqa.selenium.By;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.engine.HostCalls;

/**
 * The console's workflow versions in a real headless Chromium against a real engine (ranks answered
 * by {@link FakeRanks}: the console reads only the engine): the workflows list with each one's
 * latest version, a workflow's versions newest first with which is latest and its source SHA-256,
 * and the version a run used, in the run's detail and in the runs list.
 */
@Timeout(120)
@StartsProcesses
class ConsoleWorkflowVersionsTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    static Path dataDir;
    static Engine engine;
    static HeadlessChromium browser;
    static String runOfVersion1;

    @BeforeAll
    static void start() throws Exception {
        browser = HeadlessChromium.start(1200, 900);
        dataDir = Files.createTempDirectory("mpfl-console-versions-");
        engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).bindHost("127.0.0.1").dataDir(dataDir).invoker(new FakeRanks(r -> {
            if (r.request().processes().get(0).service().contains("RingNode")) {
                // the ring's rank 0 fails at its send (line 21 of the document stored below)
                if (r.rank() == 0) {
                    r.fail("send", "/home/alice/ring.mpfl.xml:21:7", "SendTimeoutException: rank 1 took nothing");
                } else {
                    r.waitFor("receive", "/home/alice/ring.mpfl.xml:29:7", "receive from 0 tag 0 comm world");
                }
                return;
            }
            r.output("answer", 42);
            r.state("DONE");
        })));
        HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/axis2/services", "services", List.of("w")));
        HostCalls.announce(engine, Map.of("hostId", "r", "soapUrl", "http://127.0.0.1:2/axis2/services", "services",
                List.of("ring.v1.RingNode")));
        for (String v : List.of("one", "two")) {
            Http.Answer a = Http.post(engine.url() + "/api/workflows", engine.token(), Map.of("plan", Map.of("workflow", "wf",
                    "version", v, "processes", List.of(Map.of("name", "w", "ranks", 1)))));
            assertEquals(201, a.status(), a.body());
        }
        runOfVersion1 = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("workflow", "wf@1")).json().get("id").asText();
        // the bound is a hang guard for a loaded machine; the run ends as soon as its fake rank answers
        Await.runIn(Duration.ofSeconds(60), "SUCCEEDED", () -> Http.get(engine.url() + "/api/runs/" + runOfVersion1).json());
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            if (engine != null) {
                engine.close();
            }
            FileTrees.deleteQuietly(dataDir);
        }
    }

    static Object script(String js, Object... args) {
        return browser.script(js, args);
    }

    /**
     * A run of a stored version links its source locations (the failure, each rank's) to that line of the stored
     * document, which the source page shows marked; a version's SHA-256 opens its source.
     */
    @Test
    void sourceLocationsOpenTheStoredDocumentAtTheirLine() throws Exception {
        String document = Files.readString(Path.of("..", "samples", "ring", "ring.mpfl.xml"));
        // a plan with the document riding along, as mpflc deploy sends them (no archives: host r offers the service)
        Http.Answer saved = Http.post(engine.url() + "/api/workflows", engine.token(), Map.of("name", "ring", "document", document,
                "plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "node", "ranks", 2, "service", "RingNode")))));
        assertEquals(201, saved.status(), saved.body());
        String run = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("workflow", "ring"))
                .json().get("id").asText();
        browser.driver().get(engine.url() + "/#/runs/" + run);
        browser.await("the failure's location as a link", WAIT, d -> !d.findElements(By.cssSelector("#failure a.failure-location")).isEmpty());
        assertEquals("#/workflows/ring%401/source?line=21",
                script("return document.querySelector('#failure a.failure-location').getAttribute('href')"));
        assertEquals("ring.mpfl.xml:21:7", script("return document.querySelector('#failure a.failure-location').textContent"));
        assertEquals("#/workflows/ring%401/source?line=29",
                script("return document.querySelector('#rank-row-1 .rank-location a').getAttribute('href')"));

        browser.driver().findElement(By.cssSelector("#failure a.failure-location")).click();
        browser.await("the document", WAIT, d -> !d.findElements(By.id("source-line-21")).isEmpty());
        String[] lines = document.split("\n");
        assertEquals(lines.length, ((Number) script("return document.querySelectorAll('#workflow-source .source-line').length")).intValue());
        assertEquals(List.of("21"), script("return Array.from(document.querySelectorAll('#workflow-source .marked'), l => l.dataset.line)"));
        assertEquals("21" + lines[20], script("return document.getElementById('source-line-21').textContent.replace(/\\n$/, '')"));
        assertTrue(((String) script("return document.getElementById('view').innerText")).contains("line 21 marked"));
        browser.picture("workflow-source.png");

        // a version's SHA-256 opens its source; a plan-only version says there is none
        browser.driver().get(engine.url() + "/#/workflows/wf");
        browser.await("versions table", WAIT, d -> !d.findElements(By.cssSelector("#versions-table a[data-source-of='1']")).isEmpty());
        browser.driver().findElement(By.cssSelector("#versions-table a[data-source-of='1']")).click();
        String said = browser.await("no document", WAIT, d -> {
            String t = d.findElement(By.cssSelector("#view p[role=status]")).getText();
            return t.isEmpty() ? null : t;
        });
        assertTrue(said.contains("deployed as a plan without its MPFL document"), said);
    }

    @Test
    void workflowsListVersionsAndTheVersionARunUsed() throws Exception {
        browser.driver().get(engine.url() + "/#/workflows");
        browser.await("workflows table", WAIT, d -> !d.findElements(By.cssSelector("#workflows-table tr[data-workflow='wf']")).isEmpty());
        assertEquals("v2", script("return document.querySelector(\"#workflows-table tr[data-workflow='wf'] td\").textContent"));

        browser.driver().findElement(By.cssSelector("#workflows-table a[data-workflow='wf']")).click();
        browser.await("versions table", WAIT, d -> !d.findElements(By.cssSelector("#versions-table tbody tr")).isEmpty());
        assertEquals(List.of("2", "1"), script("return Array.from(document.querySelectorAll('#versions-table tbody tr'), "
                + "r => r.dataset.version)"));
        assertEquals(List.of("true", "false"), script("return Array.from(document.querySelectorAll('#versions-table tbody tr'), "
                + "r => r.dataset.latest)"));
        assertEquals(1L, script("return document.querySelectorAll('#versions-table .badge.latest').length"));
        String sha = Http.get(engine.url() + "/api/workflows/wf").json().at("/versions/0/sourceSha256").asText();
        assertEquals(sha.substring(0, 12), script("return document.querySelector(\"#versions-table tr[data-version='1'] td.mono\")"
                + ".textContent"));
        assertTrue(((String) script("return document.getElementById('view').innerText")).contains("wf@N"));
        // the picture of docs/console.md's Workflows section (where ConsoleBrowserTest's pictures go)
        browser.picture("workflow-versions.png");

        browser.driver().get(engine.url() + "/#/runs/" + runOfVersion1);
        browser.await("run version", WAIT, d -> !d.findElements(By.cssSelector("#run-workflow-version a[data-workflow='wf']")).isEmpty());
        assertEquals("wf v1", script("return document.querySelector('#run-workflow-version a').textContent"));
        assertEquals("#/workflows/wf", script("return document.querySelector('#run-workflow-version a').getAttribute('href')"));

        browser.driver().get(engine.url() + "/#/runs");
        browser.await("runs list", WAIT, d -> !d.findElements(By.cssSelector(
                "#runs-table tr[data-run-id='" + runOfVersion1 + "'] [data-workflow-version='1']")).isEmpty());
    }
}
