package org.mpfl.engine.console;

import org.mpfl.testing.browser.HeadlessChromium;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.mpfl.testing.Http;
import org.mpfl.engine.access.OidcSettings;
import org.mpfl.engine.access.TestIssuer;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.testing.StartsProcesses;
import org.openqa.selenium.By;

/**
 * The console's login in a real headless Chromium against a real engine and issuer: Authorization
 * Code + PKCE through the issuer's login page, back to the console logged in as that user, who sees
 * the runs of their project and not another's; no token in the URL, in storage or in a cookie a
 * script can read; logout ends the session at the engine and at the issuer. An admin then reads the
 * audit trail on the console's audit page.
 */
@Timeout(180)
@StartsProcesses
class ConsoleLoginBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void loginShowsOnlyTheUsersProjectAndLogoutEndsTheSession() throws Exception {
        HeadlessChromium browser = HeadlessChromium.start(1200, 900);
        try (TestIssuer issuer = TestIssuer.start().publicClient("mpfl-console");
             Engine engine = Engine.start(consoleEngine(issuer).invoker(new FakeRanks(r -> {
                         if (r.request().processes().get(0).name().equals("slow")) {
                             r.state("RUNNING");
                             if (r.awaitAbort(60_000)) {
                                 r.state("ABORTED");
                             }
                             return;
                         }
                         r.output("x", r.rank());
                         r.state("DONE");
                     })))) {
            HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
            Map<String, Object> plan = Map.of("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "ranks", 1))));
            String runA = Http.post(engine.url() + "/api/runs", issuer.token("alice", "operator", "a"), plan).json().get("id").asText();
            String runB = Http.post(engine.url() + "/api/runs", issuer.token("bob", "operator", "b"), plan).json().get("id").asText();

            browser.driver().get(engine.url() + "/#/runs");
            browser.await("a person's words for a read refused before login", WAIT,
                    d -> d.findElement(By.id("view")).getText().contains("you are not logged in: Log in (top bar)") ? true : null);
            assertFalse(browser.text("#view").contains("Authorization"), "not the API's words");
            logIn(browser, "alice", "operator", "a");
            String who = browser.await("logged in", WAIT, d -> {
                String t = d.findElement(By.id("session-user")).getText();
                return t.isEmpty() ? null : t;
            });
            assertTrue(who.startsWith("alice (operator"), who);
            assertEquals(Boolean.TRUE, browser.script("return document.getElementById('token-form').hidden"),
                    "logged in, the engine token's field is not offered");
            String url = browser.driver().getCurrentUrl();
            assertFalse(url.contains("code=") || url.contains("token") || url.contains("eyJ"), "nothing of the login in the URL: " + url);
            assertEquals("", browser.script("return document.cookie"), "the session cookie is HttpOnly");
            assertEquals(0L, ((Number) browser.script("return localStorage.length")).longValue(), "nothing in localStorage");
            assertFalse(String.valueOf(browser.script("return JSON.stringify(sessionStorage)")).contains("eyJ"), "no JWT in sessionStorage");

            browser.await("alice's run listed", WAIT, d -> d.findElement(By.tagName("body")).getText().contains(runA) ? true : null);
            assertFalse(browser.text("body").contains(runB), "bob's run is not listed");
            assertEquals(404L, fetchStatus(browser, "api/runs/" + runB));
            assertEquals(200L, fetchStatus(browser, "api/runs/" + runA));
            browser.driver().get(engine.url() + "/#/runs/" + runA);
            browser.await("alice's run view", WAIT, d -> d.findElement(By.id("view")).getText().contains("SUCCEEDED") ? true : null);
            assertEquals("a · started by alice", browser.text("#run-project"), "whose run it is");

            // logged in as an operator, alice cancels her run from the console without the engine token
            String slow = Http.post(engine.url() + "/api/runs", issuer.token("alice", "operator", "a"), Map.of("plan",
                    Map.of("workflow", "slow", "processes", List.of(Map.of("name", "slow", "service", "ring", "ranks", 1))))).json().get("id").asText();
            browser.driver().get(engine.url() + "/#/runs/" + slow);
            browser.await("the Cancel button", WAIT, d -> d.findElement(By.id("cancel-run"))).click();
            browser.await("the confirmation", WAIT, d -> d.findElement(By.id("cancel-confirm"))).click();
            browser.await("alice's run cancelled", WAIT, d -> d.findElement(By.id("view")).getText().contains("CANCELLED") ? true : null);
            assertFalse(browser.text("#view").contains("needs the engine token"));
            assertEquals("CANCELLED", Http.send("GET", engine.url() + "/api/runs/" + slow, "Bearer admin", null).json().get("state").asText());

            browser.await("the Log out link", WAIT, d -> d.findElement(By.id("logout"))).click();
            browser.await("logged out", WAIT, d -> d.findElement(By.id("login")));
            assertEquals(1, issuer.logouts(), "the session was ended at the issuer too");
            assertEquals(401L, fetchStatus(browser, "api/runs"), "the session is gone at the engine");

            // an admin logs in and reads the audit trail on its console page: alice's and bob's runs were mutations
            browser.driver().get(engine.url() + "/#/audit");
            logIn(browser, "carol", "admin", "");
            browser.await("logged in as admin", WAIT, d -> d.findElement(By.id("session-user")).getText().startsWith("carol") ? true : null);
            browser.driver().get(engine.url() + "/#/audit");
            String audit = browser.await("the audit trail", WAIT, d -> d.findElements(By.id("audit-table")).isEmpty() ? null
                    : d.findElement(By.id("audit-table")).getText());
            assertTrue(audit.contains("alice") && audit.contains("bob") && audit.contains("POST /api/runs"), audit);
            assertFalse(audit.contains("eyJ"), "no token in the audit trail: " + audit);
            assertEquals("sub", browser.script("return document.querySelector('#view p[role=status]').className"),
                    "the count of entries is not shown in a problem's red");
            browser.picture("audit.png");
        } finally {
            browser.close();
        }
    }

    /**
     * A viewer logs in: the run's Cancel (a running run) and Retry (a cancelled one) are shown disabled with the role
     * they need beside them, before anything is pressed; the audit page says it is for admins and what the user is.
     */
    @Test
    void aViewerIsShownTheActionsItCannotTakeDisabledAndWhy() throws Exception {
        HeadlessChromium browser = HeadlessChromium.start(1200, 900);
        try (TestIssuer issuer = TestIssuer.start().publicClient("mpfl-console");
             Engine engine = Engine.start(consoleEngine(issuer).invoker(new FakeRanks(r -> {
                         r.state("RUNNING");
                         if (r.awaitAbort(120_000)) {
                             r.state("ABORTED");
                         }
                     })))) {
            HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
            Map<String, Object> plan = Map.of("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "ranks", 1))));
            String operator = issuer.token("olga", "operator", "a");
            String running = Http.post(engine.url() + "/api/runs", operator, plan).json().get("id").asText();
            String cancelled = Http.post(engine.url() + "/api/runs", operator, plan).json().get("id").asText();
            assertEquals(200, Http.send("POST", engine.url() + "/api/runs/" + cancelled + "/cancel", "Bearer " + operator, Map.of()).status());

            browser.driver().get(engine.url() + "/#/runs/" + running);
            logIn(browser, "vera", "viewer", "a");
            browser.await("logged in as a viewer", WAIT, d -> d.findElement(By.id("session-user")).getText().startsWith("vera (viewer") ? true : null);

            browser.driver().get(engine.url() + "/#/runs/" + running);
            String why = browser.await("Cancel offered disabled, with the reason", WAIT, d -> {
                var buttons = d.findElements(By.id("cancel-run"));
                return buttons.isEmpty() || buttons.get(0).isEnabled() || d.findElements(By.id("action-refused")).isEmpty() ? null
                        : d.findElement(By.id("action-refused")).getText();
            });
            assertTrue(why.startsWith("Cancelling needs the operator role; vera is viewer."), why);
            assertEquals("action-refused", browser.driver().findElement(By.id("cancel-run")).getAttribute("aria-describedby"));

            browser.driver().get(engine.url() + "/#/runs/" + cancelled);
            String retry = browser.await("Retry offered disabled, with the reason", WAIT, d -> {
                var buttons = d.findElements(By.id("resume-run"));
                return buttons.isEmpty() || buttons.get(0).isEnabled() || d.findElements(By.id("action-refused")).isEmpty() ? null
                        : d.findElement(By.id("action-refused")).getText();
            });
            assertTrue(retry.startsWith("Retrying needs the operator role; vera is viewer."), retry);
            assertEquals("CANCELLED", Http.send("GET", engine.url() + "/api/runs/" + cancelled, "Bearer admin", null).json().get("state").asText());

            browser.driver().get(engine.url() + "/#/audit");
            browser.await("the audit page says whom it is for", WAIT,
                    d -> d.findElement(By.id("view")).getText().contains("The audit trail is for admins; vera is viewer.") ? true : null);
        } finally {
            browser.close();
        }
    }

    /**
     * A viewer opens the registry, which is for admins: the page says once which role it needs and what the user is,
     * and stops asking. Before, it asked the engine every second and was refused every second. The requests are the
     * browser's own record of what it fetched (Resource Timing), so a request the page sent cannot go uncounted.
     */
    @Test
    void aViewerOnTheRegistryIsToldOnceWhichRoleItNeedsAndThePageStopsAsking() throws Exception {
        HeadlessChromium browser = HeadlessChromium.start(1200, 900);
        try (TestIssuer issuer = TestIssuer.start().publicClient("mpfl-console"); Engine engine = engineWithHostH(issuer)) {
            browser.driver().get(engine.url() + "/#/runs");
            logIn(browser, "vera", "viewer", "a");
            browser.await("logged in as a viewer", WAIT, d -> d.findElement(By.id("session-user")).getText().startsWith("vera (viewer") ? true : null);
            browser.driver().get(engine.url() + "/#/registry");
            browser.driver().navigate().refresh(); // a fresh page: its record of requests starts with the registry's
            browser.await("the registry says which role it needs", WAIT,
                    d -> d.findElement(By.id("view")).getText().contains("needs the admin role") ? true : null);
            assertEquals(0, browser.count("#hosts-table"), "no hosts shown to a viewer");
            assertEquals(1L, hostsRequests(browser), "one request, refused");
            // that nothing more is sent is seen over a window: five of the page's 1 s refreshes, on the browser's clock
            double refusedAt = ((Number) browser.script("return performance.now()")).doubleValue();
            long requests = browser.await("five refresh intervals after the refusal, or a second request", WAIT, d -> {
                long n = hostsRequests(browser);
                double now = ((Number) browser.script("return performance.now()")).doubleValue();
                return n > 1 || now - refusedAt >= 5_000 ? n : null;
            });
            assertEquals(1L, requests, "the page stopped asking after the refusal");
            String after = browser.text("#view");
            assertTrue(after.contains("The registry needs the admin role; vera is viewer."), after);
            assertEquals(1, after.split("needs the admin role", -1).length - 1, "said once: " + after);
            List<String> violations = AxeCore.violations(browser);
            assertTrue(violations.isEmpty(), "the registry refused: " + String.join("\n", violations));
        } finally {
            browser.close();
        }
    }

    /**
     * Not logged in, the registry of an engine with users is refused (401): the page says how to see it and stops
     * asking; a wrong engine token saved in the top bar is refused once, the right one shows the hosts, and forgetting
     * it takes them away again. Before, the page never sent the token, so the registry stayed refused whatever was saved.
     */
    @Test
    void theRegistryRefusedBeforeLoginShowsTheHostsOnceTheEngineTokenIsSaved() throws Exception {
        HeadlessChromium browser = HeadlessChromium.start(1200, 900);
        try (TestIssuer issuer = TestIssuer.start().publicClient("mpfl-console"); Engine engine = engineWithHostH(issuer)) {
            browser.driver().get(engine.url() + "/#/registry");
            browser.await("the registry says how to see it", WAIT, d -> d.findElement(By.id("view")).getText()
                    .contains("The registry needs the admin role: log in as an admin, or save the engine token (top bar).") ? true : null);
            assertEquals(1L, hostsRequests(browser), "asked once");

            saveToken(browser, "wrong");
            browser.await("the wrong token refused", WAIT, d -> d.findElement(By.id("view")).getText()
                    .contains("the engine refused the saved engine token") ? true : null);
            assertEquals(2L, hostsRequests(browser), "asked once more, with the new token");

            saveToken(browser, "admin");
            String row = browser.await("host h listed", WAIT, d -> d.findElements(By.cssSelector("#hosts-table tr[data-host-id='h']")).isEmpty()
                    ? null : d.findElement(By.cssSelector("#hosts-table tr[data-host-id='h']")).getText());
            assertTrue(row.contains("alive"), row);
            assertFalse(browser.text("#view").contains("needs the admin role"), browser.text("#view"));

            // the token forgotten, the next refresh is refused: the hosts drawn for the admin go with it
            browser.driver().findElement(By.id("token-forget")).click();
            browser.await("refused again, the hosts gone", WAIT, d -> d.findElement(By.id("view")).getText()
                    .contains("log in as an admin, or save the engine token") && d.findElements(By.id("hosts-table")).isEmpty() ? true : null);
            assertFalse(browser.text("#view").contains("service host"), browser.text("#view"));
        } finally {
            browser.close();
        }
    }

    /** An engine of the issuer's users (see {@link #consoleEngine}) with host {@code h} announced; its ranks end at once. */
    private Engine engineWithHostH(TestIssuer issuer) throws Exception {
        Engine engine = Engine.start(consoleEngine(issuer).invoker(new FakeRanks(r -> r.state("DONE"))));
        try {
            HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
            return engine;
        } catch (Exception | Error e) {
            engine.close();
            throw e;
        }
    }

    /** Saves an engine token in the top bar, as a person would. */
    private static void saveToken(HeadlessChromium browser, String token) {
        browser.driver().findElement(By.id("token-input")).sendKeys(token);
        browser.driver().findElement(By.id("token-save")).click();
    }

    /** How many times this page asked for {@code GET /api/registry/hosts} (the browser's Resource Timing entries). */
    private static long hostsRequests(HeadlessChromium browser) {
        return ((Number) browser.script("return performance.getEntriesByType('resource')"
                + ".filter(e => new URL(e.name).pathname.endsWith('/api/registry/hosts')).length")).longValue();
    }

    /** An engine of the issuer's users whose console logs in with client {@code mpfl-console}; admin token {@code admin}. */
    private EngineConfig consoleEngine(TestIssuer issuer) {
        return new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).bindHost("127.0.0.1").dataDir(dir).token("admin")
                .oidc(OidcSettings.of(issuer.issuer(), "mpfl-engine").withConsoleClientId("mpfl-console"));
    }

    /** Log in (top bar), then the issuer's login page filled in as a user would. */
    private static void logIn(HeadlessChromium browser, String user, String role, String projects) {
        browser.await("the Log in link", WAIT, d -> d.findElement(By.id("login"))).click();
        browser.await("the issuer's login page", WAIT, d -> d.findElement(By.id("user"))).sendKeys(user);
        browser.driver().findElement(By.id("role")).sendKeys(role);
        if (!projects.isEmpty()) {
            browser.driver().findElement(By.id("projects")).sendKeys(projects);
        }
        browser.driver().findElement(By.id("submit")).click();
    }

    /** The status of a same-origin fetch made by the page (with its cookie, as the console's own calls). */
    private static long fetchStatus(HeadlessChromium browser, String path) {
        Object status = ((org.openqa.selenium.JavascriptExecutor) browser.driver()).executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                + " fetch(arguments[0], {cache: 'no-store'}).then(r => done(r.status), e => done(-1));", path);
        return ((Number) status).longValue();
    }
}
