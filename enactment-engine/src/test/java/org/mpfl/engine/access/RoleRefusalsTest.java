package org.mpfl.engine.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.testing.Http;

/**
 * A viewer and an operator walk every route that changes something, and the admin-only reads, over real HTTP against a
 * real engine and issuer ({@link TestIssuer}): each is refused with 403 naming the role it needs and the caller's own,
 * nothing is created, cancelled, registered or issued, and the audit trail names the refused caller for each mutation.
 */
@Timeout(180)
class RoleRefusalsTest {
    @TempDir
    Path dir;
    TestIssuer issuer;
    Engine engine;

    @BeforeEach
    void start() throws Exception {
        issuer = TestIssuer.start();
        engine = Engine.start(issuer.engineConfig(dir).invoker(new FakeRanks(r -> {
                    r.state("RUNNING");
                    r.awaitAbort(120_000);
                })));
        HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
    }

    @AfterEach
    void stop() {
        engine.close();
        issuer.close();
    }

    /** A route and a body for it. */
    private record Call(String method, String path, Object body) {
        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    private static Map<String, Object> plan() {
        return Map.of("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "ranks", 1))), "project", "a");
    }

    /** What needs the operator role (in the caller's project). */
    private static List<Call> operatorCalls(String run) {
        return List.of(new Call("POST", "/api/runs", plan()), new Call("POST", "/api/runs/" + run + "/cancel", Map.of()),
                new Call("POST", "/api/runs/" + run + "/resume", Map.of()),
                new Call("POST", "/api/workflows", Map.of("name", "w", "project", "a", "source", "<workflow/>")));
    }

    /** What needs the admin role: mutations, then reads. */
    private static List<Call> adminCalls() {
        return List.of(new Call("POST", "/api/deployments", Map.of()), new Call("POST", "/api/registry/credentials", Map.of("hostId", "x")),
                new Call("DELETE", "/api/registry/credentials/x", null), new Call("POST", "/api/registry/hosts",
                        Map.of("hostId", "h2", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring"))),
                new Call("DELETE", "/api/registry/hosts/h", null), new Call("POST", "/api/registry/relays", Map.of()),
                new Call("POST", "/api/registry/relays/verify", Map.of()), new Call("POST", "/api/registry/relays/check", Map.of()),
                new Call("GET", "/api/registry/credentials", null), new Call("GET", "/api/registry/hosts", null),
                new Call("GET", "/api/registry/hosts/h", null), new Call("GET", "/api/registry/relays", null),
                new Call("GET", "/api/deployments", null), new Call("GET", "/api/capacity", null), new Call("GET", "/api/audit", null));
    }

    private Http.Answer send(Call c, String auth) throws Exception {
        return Http.send(c.method(), engine.url() + c.path(), auth, c.body());
    }

    private void assertRefused(Call c, String auth, String role, String who) throws Exception {
        Http.Answer a = send(c, auth);
        assertEquals(403, a.status(), who + ": " + c + ": " + a.body());
        String said = a.json().get("error").asText();
        assertTrue(said.contains("the " + role + " role") && said.contains(who + " is "), who + ": " + c + " names the role: " + said);
        assertTrue(a.header("WWW-Authenticate").orElse("").contains("insufficient_scope"), c + ": " + a.headers());
    }

    @Test
    void aViewerAndAnOperatorAreRefusedEveryActionAboveTheirRoleAndNothingHappens() throws Exception {
        String vera = "Bearer " + issuer.token("vera", "viewer", "a");
        String olga = "Bearer " + issuer.token("olga", "operator", "a");
        Http.Answer started = Http.send("POST", engine.url() + "/api/runs", olga, plan());
        assertEquals(201, started.status(), started.body());
        String run = started.json().get("id").asText();
        long credentials = Http.send("GET", engine.url() + "/api/registry/credentials", "Bearer admin-token", null).json().size();

        List<Call> mutations = new ArrayList<>();
        for (Call c : operatorCalls(run)) {
            assertRefused(c, vera, "operator", "vera");
            mutations.add(c);
        }
        for (Call c : adminCalls()) {
            assertRefused(c, vera, "admin", "vera");
            assertRefused(c, olga, "admin", "olga");
            // a relay's announcements and checks are not audited (a relay repeats them every few seconds)
            if (!c.method().equals("GET") && !c.path().startsWith("/api/registry/relays")) {
                mutations.add(c);
            }
        }
        // what a viewer may do, it does
        assertEquals(200, Http.send("GET", engine.url() + "/api/runs/" + run, vera, null).status());
        assertEquals(200, Http.send("GET", engine.url() + "/api/workflows", vera, null).status());

        // nothing of it happened: the one run still runs, no workflow, no credential, the host still there, no second host
        JsonNode runs = Http.send("GET", engine.url() + "/api/runs", "Bearer admin-token", null).json();
        assertEquals(1, runs.size(), runs.toString());
        assertEquals("RUNNING", Http.send("GET", engine.url() + "/api/runs/" + run, "Bearer admin-token", null).json().get("state").asText());
        assertEquals(0, Http.send("GET", engine.url() + "/api/workflows", "Bearer admin-token", null).json().size());
        assertEquals(credentials, Http.send("GET", engine.url() + "/api/registry/credentials", "Bearer admin-token", null).json().size());
        assertEquals(200, Http.send("GET", engine.url() + "/api/registry/hosts/h", "Bearer admin-token", null).status());
        assertEquals(404, Http.send("GET", engine.url() + "/api/registry/hosts/h2", "Bearer admin-token", null).status());

        // the trail names who was refused what
        engine.audit().flush(Duration.ofSeconds(30));
        List<String> trail = new ArrayList<>();
        Http.send("GET", engine.url() + "/api/audit", "Bearer admin-token", null).json()
                .forEach(e -> trail.add(e.get("who").asText() + " " + e.get("action").asText() + " " + e.get("status").asInt()));
        for (Call c : mutations) {
            String audited = c.method() + " " + c.path();
            assertTrue(trail.contains("vera " + audited + " 403"), "vera's refused " + audited + " on the trail: " + trail);
        }
        assertTrue(trail.contains("olga POST /api/registry/credentials 403"), trail.toString());
        assertTrue(trail.stream().anyMatch(t -> t.startsWith("olga POST /api/runs → /api/runs/" + run + " 201")), trail.toString());
    }
}
