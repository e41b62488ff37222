package org.mpfl.engine.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.HostCalls;
import org.mpfl.testing.Http;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.RankEvent;

/**
 * Users of a real issuer ({@link TestIssuer}) against a real engine: a user of project A cannot list,
 * read, trace, cancel, resume or follow B's runs (404 on every route, as for a run that does not
 * exist), and an admin can; roles bound what each may do; the registry, credentials and audit trail
 * are admin only; reads need a credential once an issuer is configured.
 */
@Timeout(120)
class ProjectIsolationTest {
    @TempDir
    Path dir;
    TestIssuer issuer;
    Engine engine;
    String alice;
    String bob;
    String vera;
    String root;

    @BeforeEach
    void start() throws Exception {
        issuer = TestIssuer.start();
        engine = Engine.start(issuer.engineConfig(dir).invoker(new FakeRanks(r -> {
                    if (r.request().processes().get(0).name().equals("slow")) {
                        r.state("RUNNING");
                        r.awaitAbort(60_000);
                        return;
                    }
                    r.event(RankEvent.Type.PROGRESS, null, null, null, null, null, Map.of("value", 1, "total", 1));
                    r.output("x", r.rank());
                    r.state("DONE");
                })));
        HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
        alice = "Bearer " + issuer.token("alice", "operator", "a");
        bob = "Bearer " + issuer.token("bob", "operator", "b");
        vera = "Bearer " + issuer.token("vera", "viewer", "a");
        root = "Bearer " + issuer.token("root", "admin");
    }

    @AfterEach
    void stop() {
        engine.close();
        issuer.close();
    }

    private static Map<String, Object> plan() {
        return Map.of("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "ranks", 1))));
    }

    private String startRun(String auth) throws Exception {
        Http.Answer a = Http.send("POST", engine.url() + "/api/runs", auth, plan());
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    private int status(String method, String path, String auth) throws Exception {
        return Http.send(method, engine.url() + path, auth, method.equals("GET") ? null : Map.of()).status();
    }

    /** The status of the event stream's answer (its head only: the stream itself stays open). */
    private int eventsStatus(String id, String auth) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(engine.url() + "/api/runs/" + id + "/events"))
                .timeout(Duration.ofSeconds(10));
        if (auth != null) {
            b.header("Authorization", auth);
        }
        HttpResponse<java.io.InputStream> r = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
        r.body().close();
        return r.statusCode();
    }

    private List<String> listedRuns(String auth) throws Exception {
        return listedRuns(auth, "");
    }

    private List<String> listedRuns(String auth, String query) throws Exception {
        Http.Answer a = Http.send("GET", engine.url() + "/api/runs" + query, auth, null);
        assertEquals(200, a.status(), a.body());
        List<String> ids = new ArrayList<>();
        a.json().forEach(r -> ids.add(r.get("id").asText()));
        return ids;
    }

    @Test
    void aUserOfProjectACannotReachProjectBsRunsOnAnyRouteAndAnAdminCan() throws Exception {
        String runA = startRun(alice);
        String runB = startRun(bob);
        assertEquals(List.of(runA), listedRuns(alice));
        assertEquals(List.of(runB), listedRuns(bob));
        assertTrue(listedRuns(root).containsAll(List.of(runA, runB)));
        assertTrue(listedRuns("Bearer admin-token").containsAll(List.of(runA, runB)));

        Map<String, String> routes = new HashMap<>();
        routes.put("", "GET");
        routes.put("/log", "GET");
        routes.put("/logs", "GET");
        routes.put("/trace", "GET");
        routes.put("/cancel", "POST");
        routes.put("/resume", "POST");
        for (Map.Entry<String, String> r : routes.entrySet()) {
            String path = "/api/runs/" + runB + r.getKey();
            assertEquals(404, status(r.getValue(), path, alice), "alice: " + r.getValue() + " " + path);
            // exactly what a run that does not exist answers: nothing tells the two apart
            assertEquals(404, status(r.getValue(), "/api/runs/no-such-run" + r.getKey(), alice));
            assertTrue(status(r.getValue(), path, root) != 404, "root: " + r.getValue() + " " + path);
        }
        assertEquals(404, eventsStatus(runB, alice));
        assertEquals(200, eventsStatus(runB, root));
        assertEquals(200, eventsStatus(runA, alice));
        assertEquals(200, status("GET", "/api/runs/" + runA + "/trace", alice));
        // the refused cancel changed nothing: B's run is still bob's and readable by bob
        assertEquals(200, status("GET", "/api/runs/" + runB, bob));
    }

    /** {@code ?project=P} (mpflc runs --project P) chooses one project's runs within those the caller sees. */
    @Test
    void runsAreListedByProjectWithinWhatTheCallerSees() throws Exception {
        String runA = startRun(alice);
        String runB = startRun(bob);
        assertEquals(List.of(runA), listedRuns(root, "?project=a"));
        assertEquals(List.of(runB), listedRuns(root, "?project=b"));
        assertEquals(List.of(runB), listedRuns("Bearer admin-token", "?project=b"));
        assertEquals(List.of(runA), listedRuns(alice, "?project=a"));
        // another project's runs are not listed, as for a project without runs
        assertEquals(List.of(), listedRuns(alice, "?project=b"));
        assertEquals(List.of(), listedRuns(root, "?project=nobody"));

        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int exit = new org.mpfl.engine.cli.RunsCommand().run(List.of("--engine", engine.url(), "--token-file",
                java.nio.file.Files.writeString(dir.resolve("root.token"), root.substring("Bearer ".length())).toString(),
                "--project", "b"), new java.io.PrintStream(out, true), new java.io.PrintStream(err, true));
        assertEquals(0, exit, err.toString());
        assertTrue(out.toString().contains(runB) && !out.toString().contains(runA), out.toString());
    }

    @Test
    void rolesBoundWhatEachUserMayDo() throws Exception {
        String runA = startRun(alice);
        assertEquals(200, status("GET", "/api/runs/" + runA, vera), "a viewer of A reads A's runs");
        assertEquals(403, status("POST", "/api/runs/" + runA + "/cancel", vera), "a viewer cannot cancel");
        Http.Answer started = Http.send("POST", engine.url() + "/api/runs", alice, Map.of("plan", Map.of("workflow", "slow",
                "processes", List.of(Map.of("name", "slow", "service", "ring", "ranks", 1)))));
        assertEquals(201, started.status(), started.body());
        String slow = started.json().get("id").asText();
        Http.Answer cancel = Http.send("POST", engine.url() + "/api/runs/" + slow + "/cancel", alice, Map.of());
        assertEquals(200, cancel.status(), cancel.body());
        assertTrue(cancel.json().get("cancelled").asBoolean(), "the slow run was still going: " + cancel.body());
        assertEquals("cancelled by alice", Http.send("GET", engine.url() + "/api/runs/" + slow, root, null).json().at("/error/message")
                .asText(), "the run says who cancelled it");
        assertEquals(403, Http.send("POST", engine.url() + "/api/runs", vera, plan()).status(), "a viewer cannot start");
        for (String admin : List.of("/api/registry/hosts", "/api/registry/credentials", "/api/audit")) {
            assertEquals(403, status("GET", admin, alice), admin);
            assertEquals(200, status("GET", admin, root), admin);
        }
        assertEquals(403, Http.send("POST", engine.url() + "/api/registry/credentials", alice, Map.of("hostId", "x")).status());
        assertEquals(403, Http.send("POST", engine.url() + "/api/deployments", alice, Map.of()).status(), "archives: admin only");
        // a project the operator is not in
        assertEquals(403, Http.send("POST", engine.url() + "/api/runs", alice,
                Map.of("plan", ((Map<?, ?>) plan().get("plan")), "project", "b")).status());
        // one host's entry and removing a host: an admin user as the admin token, no other role
        assertEquals(403, status("GET", "/api/registry/hosts/h", alice));
        assertEquals(403, status("DELETE", "/api/registry/hosts/h", alice));
        assertEquals(200, status("GET", "/api/registry/hosts/h", root));
        assertEquals(204, status("DELETE", "/api/registry/hosts/h", root));
        assertEquals(404, status("GET", "/api/registry/hosts/h", root), "removed");
    }

    /** A stream lasts as long as the token it was opened with: no reading on after the token expired. */
    @Test
    void anEventStreamEndsWhenItsTokenExpires() throws Exception {
        // announced again: the fake host sends no heartbeats, and the run must outlive the token, not end with its host
        HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
        Http.Answer started = Http.send("POST", engine.url() + "/api/runs", alice, Map.of("plan", Map.of("workflow", "slow",
                "processes", List.of(Map.of("name", "slow", "service", "ring", "ranks", 1)))));
        assertEquals(201, started.status(), started.body());
        String id = started.json().get("id").asText();
        // a JWT's exp is in whole seconds: the token expires at this instant, 2 to 3 s from now
        long expiresAtMs = (System.currentTimeMillis() + 3_000) / 1_000 * 1_000;
        String shortLived = "Bearer " + issuer.token(b -> b.expirationTime(new java.util.Date(expiresAtMs)));
        HttpRequest request = HttpRequest.newBuilder(URI.create(engine.url() + "/api/runs/" + id + "/events"))
                .header("Authorization", shortLived).build();
        HttpResponse<java.util.stream.Stream<String>> stream = HttpClient.newHttpClient().send(request,
                HttpResponse.BodyHandlers.ofLines());
        assertEquals(200, stream.statusCode());
        // the stream's end is the point: it ends by itself (the run goes on); bounded by the class's timeout
        List<String> lines = stream.body().toList();
        assertTrue(lines.contains("event: expired"), "the stream says why it ended: " + lines);
        assertFalse(lines.contains("event: end"), "not the run's end: " + lines);
        // measured against the token's own expiry, not from when the stream's headers came: on a loaded machine they
        // come a second or two after the token was made, and the stream then rightly ends less than 1 s after them
        long endedAtMs = System.currentTimeMillis();
        assertTrue(endedAtMs >= expiresAtMs, "ended " + (expiresAtMs - endedAtMs) + " ms before the token's expiry");
        assertEquals(200, Http.send("POST", engine.url() + "/api/runs/" + id + "/cancel", root, Map.of()).status());
    }

    @Test
    void workflowsBelongToAProjectToo() throws Exception {
        Map<String, Object> wf = Map.of("name", "ringA", "plan", plan().get("plan"));
        assertEquals(201, Http.send("POST", engine.url() + "/api/workflows", alice, wf).status());
        assertEquals(200, status("GET", "/api/workflows/ringA", alice));
        assertEquals(404, status("GET", "/api/workflows/ringA", bob));
        assertEquals(404, status("GET", "/api/workflows/ringA@1", bob));
        Http.Answer listed = Http.send("GET", engine.url() + "/api/workflows", bob, null);
        assertFalse(listed.body().contains("ringA"), listed.body());
        // the services on the hosts name every project's workflows: admins only
        assertEquals(403, status("GET", "/api/deployments", bob));
        assertEquals(403, status("GET", "/api/deployments", vera));
        assertEquals(200, status("GET", "/api/deployments", root));
        assertEquals(409, Http.send("POST", engine.url() + "/api/workflows", bob, wf).status(), "bob cannot add a version to A's");
        assertEquals(404, Http.send("POST", engine.url() + "/api/runs", bob, Map.of("workflow", "ringA")).status());
        Http.Answer run = Http.send("POST", engine.url() + "/api/runs", alice, Map.of("workflow", "ringA"));
        assertEquals(201, run.status());
        JsonNode detail = Http.send("GET", engine.url() + "/api/runs/" + run.json().get("id").asText(), alice, null).json();
        assertEquals("ringA", detail.get("workflow").asText(), "a run names the workflow as stored, not its plan's own name (ring)");
        assertEquals(1, detail.get("workflowVersion").asInt());
        assertEquals(List.of("a", "alice"), List.of(detail.path("project").asText(), detail.path("owner").asText()), "whose run it is");

        // a new version cannot move the workflow to another project: refused, where the project was ignored
        Map<String, Object> moved = Map.of("name", "ringA", "project", "b", "plan", Map.of("workflow", "ring", "description", "v2",
                "processes", List.of(Map.of("name", "ring", "ranks", 1))));
        Http.Answer refused = Http.send("POST", engine.url() + "/api/workflows", root, moved);
        assertEquals(409, refused.status(), refused.body());
        assertTrue(refused.body().contains("belongs to project 'a'"), refused.body());
        assertEquals(404, status("GET", "/api/workflows/ringA@2", root), "no version was stored");
    }

    @Test
    void aRunOfAStoredWorkflowGoesToTheWorkflowsProjectUnlessTheRequestNamesOne() throws Exception {
        Map<String, Object> wf = Map.of("name", "ringP", "plan", plan().get("plan"), "project", "physics");
        assertEquals(201, Http.send("POST", engine.url() + "/api/workflows", root, wf).status());
        String frank = "Bearer " + issuer.token("frank", "operator", "chem", "physics");
        for (String who : List.of(root, frank)) {
            Http.Answer a = Http.send("POST", engine.url() + "/api/runs", who, Map.of("workflow", "ringP@1"));
            assertEquals(201, a.status(), a.body());
            assertEquals("physics", engine.database().access().runOwner(a.json().get("id").asText()).orElseThrow().project(),
                    "a run of physics' workflow is physics' (not the admin's default project, nor a question to frank)");
        }
        Http.Answer named = Http.send("POST", engine.url() + "/api/runs", frank, Map.of("workflow", "ringP", "project", "chem"));
        assertEquals(201, named.status(), named.body());
        assertEquals("chem", engine.database().access().runOwner(named.json().get("id").asText()).orElseThrow().project());
        // a run of a plan still has to be told which of frank's projects
        Http.Answer ask = Http.send("POST", engine.url() + "/api/runs", frank, plan());
        assertEquals(400, ask.status(), ask.body());
        assertTrue(ask.body().contains("one of [chem, physics]"), ask.body());
    }

    /** The time of every entry of the test's service archives (2024-01-01, any fixed time). */
    private static final long ARCHIVE_TIME_MS = 1_704_067_200_000L;

    /**
     * A service archive as the compiler makes one: its descriptor names service {@code node}; {@code code} stands for its
     * program. The same bytes for the same code: its entries have a fixed time, not the time of the call (a zip keeps it
     * to 2 s), so the "identical archive" built again seconds later on a loaded machine is still identical.
     */
    private static String archive(String code) throws java.io.IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try (java.util.zip.ZipOutputStream z = new java.util.zip.ZipOutputStream(out)) {
            z.putNextEntry(entry("META-INF/services.xml"));
            z.write("<service name=\"node\" scope=\"application\"></service>".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            z.putNextEntry(entry("mpfl/program.json"));
            z.write(("{\"code\":\"" + code + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        return java.util.Base64.getEncoder().encodeToString(out.toByteArray());
    }

    private static java.util.zip.ZipEntry entry(String name) {
        java.util.zip.ZipEntry e = new java.util.zip.ZipEntry(name);
        e.setTime(ARCHIVE_TIME_MS);
        return e;
    }

    private static Map<String, Object> planOn(String service) {
        return Map.of("plan", Map.of("workflow", "probe", "processes", List.of(Map.of("name", "p", "service", service, "ranks", 1))));
    }

    /**
     * The attack: alice (operator of A) names in a plan the service project B's workflow was deployed under, on a host
     * that has it. Placement matched services by name alone, so her run ran B's code with her parameters and got its
     * outputs. Now a run is placed only on services its project may use: hers fails exactly as for a service that does
     * not exist, while B's own runs (of the workflow, or of a plan naming it) are placed there as before.
     */
    @Test
    void aRunIsNeverPlacedOnAnotherProjectsDeployedService() throws Exception {
        Map<String, Object> secret = Map.of("name", "secretB", "project", "b", "plan", Map.of("workflow", "secret",
                "processes", List.of(Map.of("name", "p", "service", "node", "ranks", 1))),
                "archives", List.of(Map.of("service", "node", "archive", archive("B's own code"))));
        Http.Answer deployed = Http.send("POST", engine.url() + "/api/workflows", root, secret);
        assertEquals(201, deployed.status(), deployed.body());
        // a host that has B's service installed (the engine's push reached it, or it kept it from before)
        HostCalls.announce(engine, Map.of("hostId", "hb", "soapUrl", "http://127.0.0.1:1/b", "services", List.of("secretB.v1.node")));

        Http.Answer attack = Http.send("POST", engine.url() + "/api/runs", alice, planOn("secretB.v1.node"));
        assertEquals(201, attack.status(), attack.body());
        JsonNode refused = org.mpfl.testing.Await.runEnds(Duration.ofSeconds(30),
                () -> Http.send("GET", engine.url() + "/api/runs/" + attack.json().get("id").asText(), alice, null).json());
        assertEquals("FAILED", refused.get("state").asText(), "alice's run must not run B's service: " + refused);
        assertEquals("no registered host offers service 'secretB.v1.node' for process 'p' and no archive is deployed for it"
                + " (mpflc deploy FILE --engine URL)", refused.at("/error/message").asText(), "as for a service that does not exist");
        Http.Answer nothing = Http.send("POST", engine.url() + "/api/runs", alice, planOn("noSuch.v1.node"));
        JsonNode none = org.mpfl.testing.Await.runEnds(Duration.ofSeconds(30),
                () -> Http.send("GET", engine.url() + "/api/runs/" + nothing.json().get("id").asText(), alice, null).json());
        assertEquals(refused.at("/error/message").asText().replace("secretB", "noSuch"), none.at("/error/message").asText());

        // B's runs: of its workflow, of a plan naming its service, and of its workflow run into A by a member of both
        String carol = "Bearer " + issuer.token("carol", "operator", "a", "b");
        for (Map.Entry<String, Map<String, Object>> own : List.of(Map.entry(bob, Map.<String, Object>of("workflow", "secretB")),
                Map.entry(bob, planOn("secretB.v1.node")), Map.entry(carol, Map.<String, Object>of("workflow", "secretB", "project", "a")))) {
            Http.Answer run = Http.send("POST", engine.url() + "/api/runs", own.getKey(), own.getValue());
            assertEquals(201, run.status(), run.body());
            JsonNode d = org.mpfl.testing.Await.runEnds(Duration.ofSeconds(30),
                    () -> Http.send("GET", engine.url() + "/api/runs/" + run.json().get("id").asText(), own.getKey(), null).json());
            assertEquals("SUCCEEDED", d.get("state").asText(), "B's runs use B's service: " + d);
            assertEquals("hb", d.at("/ranks/0/host").asText(), d.toString());
        }
        // a service installed on hosts by hand (no archive at the engine) is every project's, as before
        assertEquals(201, Http.send("POST", engine.url() + "/api/runs", alice, plan()).status());
    }

    /**
     * Services deployed under a name the engine cannot qualify (a long workflow name: plain type names) would replace
     * another project's service of that name on every host, and so the code B's runs execute: refused (409), while the
     * same project deploys a new archive under its own name, and the identical archive is shared.
     */
    @Test
    void aDeploymentNeverReplacesAnotherProjectsServiceOfTheSameName() throws Exception {
        String longB = "b".repeat(110);
        String longA = "a".repeat(110);
        Map<String, Object> planB = Map.of("workflow", "w", "processes", List.of(Map.of("name", "p", "service", "node", "ranks", 1)));
        Http.Answer b1 = Http.send("POST", engine.url() + "/api/workflows", root, Map.of("name", longB, "project", "b", "plan", planB,
                "archives", List.of(Map.of("service", "node", "archive", archive("B v1")))));
        assertEquals(201, b1.status(), b1.body());
        assertTrue(b1.json().get("deployed").has("node"), "deployed under the plain type name: " + b1.body());
        Http.Answer a1 = Http.send("POST", engine.url() + "/api/workflows", root, Map.of("name", longA, "project", "a", "plan", planB,
                "archives", List.of(Map.of("service", "node", "archive", archive("A's other code")))));
        assertEquals(409, a1.status(), a1.body());
        assertEquals("the service name 'node' is taken by another project; deploy it under another name (name the workflow"
                + " differently)", a1.json().get("error").asText());
        assertEquals(404, status("GET", "/api/workflows/" + longA, root), "nothing of A's was stored");
        Http.Answer b2 = Http.send("POST", engine.url() + "/api/workflows", root, Map.of("name", longB, "plan", planB,
                "archives", List.of(Map.of("service", "node", "archive", archive("B v2")))));
        assertEquals(201, b2.status(), "B replaces its own service: " + b2.body());
        Http.Answer same = Http.send("POST", engine.url() + "/api/workflows", root, Map.of("name", longA, "project", "a", "plan", planB,
                "archives", List.of(Map.of("service", "node", "archive", archive("B v2")))));
        assertEquals(201, same.status(), "the identical archive replaces nothing: " + same.body());
        // nor does one project take a service installed on the hosts by hand (h offers ring), which is every project's
        Map<String, Object> planRing = Map.of("workflow", "w", "processes", List.of(Map.of("name", "p", "service", "ring", "ranks", 1)));
        Http.Answer ring = Http.send("POST", engine.url() + "/api/workflows", root, Map.of("name", longA, "project", "a",
                "plan", planRing, "archives", List.of(Map.of("service", "ring", "archive", archive("A's ring")))));
        assertEquals(409, ring.status(), ring.body());
        assertTrue(ring.json().get("error").asText().startsWith("the service name 'ring' is installed on the hosts for every"
                + " project"), ring.body());
        assertEquals(201, Http.send("POST", engine.url() + "/api/runs", bob, plan()).status(), "ring is still everyone's");
    }

    @Test
    void sendingServiceArchivesIsRefusedToAnOperatorNamingWhatNeedsTheAdminRole() throws Exception {
        List<Map<String, String>> archives = List.of(Map.of("service", "ring", "archive", "UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA=="));
        Map<String, Object> run = new HashMap<>(plan());
        run.put("archives", archives);
        Map<String, Object> wf = Map.of("name", "ringA", "plan", plan().get("plan"), "archives", archives);
        for (Http.Answer a : List.of(Http.send("POST", engine.url() + "/api/runs", alice, run),
                Http.send("POST", engine.url() + "/api/workflows", alice, wf))) {
            assertEquals(403, a.status(), a.body());
            assertEquals("sending service archives (code for the hosts) needs the admin role; alice is operator",
                    a.json().get("error").asText());
        }
    }

    @Test
    void getAuthRefusesACredentialThatProvesNothingAndSaysWhy() throws Exception {
        Http.Answer anonymous = Http.send("GET", engine.url() + "/api/auth", null, null);
        assertEquals(200, anonymous.status(), anonymous.body());
        assertFalse(anonymous.json().has("user"), anonymous.body());
        Http.Answer me = Http.send("GET", engine.url() + "/api/auth", alice, null);
        assertEquals("alice", me.json().path("user").asText(), me.body());
        Http.Answer noRole = Http.send("GET", engine.url() + "/api/auth", "Bearer " + issuer.token(b -> b.claim("roles", List.of())), null);
        assertEquals(401, noRole.status(), noRole.body());
        assertEquals("the token names no MPFL role in claim 'roles'", noRole.json().get("error").asText());
        Http.Answer wrongAudience = Http.send("GET", engine.url() + "/api/auth", "Bearer " + issuer.token(b -> b.audience("x")), null);
        assertEquals(401, wrongAudience.status(), wrongAudience.body());
        assertEquals(401, Http.send("GET", engine.url() + "/api/auth", "Bearer not-the-admin-token", null).status());
    }

    @Test
    void tokensAreCheckedOnEveryRequestAndReadsNeedOne() throws Exception {
        assertEquals(401, status("GET", "/api/runs", null), "an engine with an issuer serves no anonymous read");
        assertEquals(401, status("GET", "/api/runs", "Bearer " + issuer.token(b -> b.audience("other"))));
        String expired = "Bearer " + issuer.token(b -> b.expirationTime(new java.util.Date(System.currentTimeMillis() - 120_000)));
        assertEquals(401, status("POST", "/api/runs", expired));
        assertEquals(200, status("GET", "/api/runs", "Bearer admin-token"), "the admin token still works");
        JsonNode err = Http.send("GET", engine.url() + "/api/runs", "Bearer a.b.c", null).json();
        assertTrue(err.get("error").asText().startsWith("not a JWT") || err.get("error").asText().contains("token"), err.toString());
    }
}
