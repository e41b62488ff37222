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
        engine = Engine.start(new EngineConfig().port(0).bindHost("127.0.0.1").dataDir(dataDir).invoker(new FakeRanks(r -> {
            r.output("answer", 42);
            r.state("DONE");
        })));
        HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/axis2/services", "services", List.of("w")));
        for (String v : List.of("one", "two")) {
            Http.Answer a = Http.post(engine.url() + "/api/workflows", engine.token(), Map.of("plan", Map.of("workflow", "wf",
                    "version", v, "processes", List.of(Map.of("name", "w", "ranks", 1)))));
            assertEquals(201, a.status(), a.body());
        }
        runOfVersion1 = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("workflow", "wf@1")).json().get("id").asText();
        long end = System.currentTimeMillis() + 10_000;
        while (!Http.get(engine.url() + "/api/runs/" + runOfVersion1).json().path("state").asText().equals("SUCCEEDED")) {
            assertTrue(System.currentTimeMillis() < end, "the run of version 1 did not end");
            Thread.sleep(50);
        }
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
