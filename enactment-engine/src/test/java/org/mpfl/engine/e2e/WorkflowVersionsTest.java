package org.mpfl.engine.e2e;

import org.mpfl.ir.cli.Commands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.Await;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.engine.HostCalls;

/**
 * Workflow versions and the services of different workflows on one host, as a user meets them: an
 * engine and two service-host child processes, workflows deployed with {@code mpflc deploy} and run
 * with {@code mpflc run NAME[@N] --engine URL}, everything over real HTTP. Every document here names
 * its process's service {@code node}; they differ in what they output.
 */
@Timeout(300)
@StartsProcesses
class WorkflowVersionsTest {
    static Path dir;
    static LocalCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("mpfl-versions-");
        pauseJar(Files.createDirectories(dir.resolve("lib")).resolve("pause.jar"));
        cluster = LocalCluster.start(new EngineConfig().port(0).dataDir(dir.resolve("engine"))
                .runSettings(new RunSettings(Duration.ofSeconds(30), Duration.ofSeconds(2), Duration.ofMillis(500), 2, "auto")),
                2, Duration.ofSeconds(90));
    }

    @AfterAll
    static void stop() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
        FileTrees.deleteQuietly(dir);
    }

    /**
     * A two-rank workflow whose process's service type is {@code node}: it pauses {@code pauseMs}
     * (an activity), sums {@code rank + 1} over both ranks and outputs {@code who} and {@code total * factor}.
     */
    static Path document(String name, String who, int factor) throws IOException {
        Path file = dir.resolve(name + ".mpfl.xml");
        Files.writeString(file, """
                <?xml version="1.0" encoding="UTF-8"?>
                <workflow xmlns="urn:mpfl:1.0" name="%s">
                  <library path="lib/pause.jar"/>
                  <param name="pauseMs" type="int" default="0"/>
                  <process name="p" ranks="2" service="node">
                    <var name="ms" type="int" init="pauseMs"/>
                    <var name="slept" type="int"/>
                    <var name="total" type="int"/>
                    <compute class="gen.Pause" in="ms" out="slept"/>
                    <allreduce data="rank + 1" op="sum" into="total"/>
                    <output name="who" value="'%s'"/>
                    <output name="total" value="total * %d"/>
                  </process>
                </workflow>
                """.formatted(name, who, factor));
        return file;
    }

    /** {@code gen.Pause}: sleeps the milliseconds it is given (so that runs overlap), on no class path but the archive's. */
    static void pauseJar(Path jar) throws IOException {
        TestActivities.jar(jar, Map.of("gen/Pause", """
                package gen;
                public class Pause implements org.mpfl.runtime.api.Activity {
                    public java.util.Map<String, Object> execute(java.util.Map<String, Object> in,
                            org.mpfl.runtime.api.ActivityContext ctx) throws Exception {
                        int ms = (Integer) in.values().iterator().next();
                        Thread.sleep(ms);
                        return java.util.Map.of("slept", ms);
                    }
                }
                """));
    }

    record Result(int exit, String out, String err) {
        JsonNode json() throws IOException {
            return Json.MAPPER.readTree(out);
        }
    }

    static Result mpflc(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Commands.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static Result deploy(Path file) {
        return mpflc("deploy", file.toString(), "--engine", url(), "--data", data());
    }

    static Result run(String workflow, String... params) {
        List<String> args = new ArrayList<>(List.of("run", workflow, "--engine", url(), "--data", data(), "--json"));
        for (String p : params) {
            args.add("--param");
            args.add(p);
        }
        return mpflc(args.toArray(String[]::new));
    }

    static String url() {
        return cluster.engine().url();
    }

    static String data() {
        return cluster.engine().config().dataDir().toString();
    }

    static JsonNode awaitState(String runId, String... states) throws Exception {
        return Await.until(Duration.ofSeconds(60), "the run in one of " + List.of(states), () -> Http.get(url() + "/api/runs/" + runId).json(),
                run -> List.of(states).contains(run.path("state").asText()));
    }

    @Test
    void twoWorkflowsSharingAServiceTypeNameRunAtOnceWithTheirOwnServices() throws Exception {
        Result a = deploy(document("alpha", "alpha", 1));
        Result b = deploy(document("beta", "beta", 2));
        assertEquals(0, a.exit(), a.out() + a.err());
        assertEquals(0, b.exit(), b.out() + b.err());
        // both deployed before either runs: with one 'node' per host, alpha would run beta's program
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Result> ra = pool.submit(() -> run("alpha", "pauseMs=1500"));
            Future<Result> rb = pool.submit(() -> run("beta", "pauseMs=1500"));
            JsonNode ja = ra.get().json();
            JsonNode jb = rb.get().json();
            assertEquals("SUCCEEDED", ja.path("state").asText(), ja.toString());
            assertEquals("SUCCEEDED", jb.path("state").asText(), jb.toString());
            assertEquals("alpha", ja.at("/outputs/who/0").asText());
            assertEquals(3, ja.at("/outputs/total/0").asInt());
            assertEquals("beta", jb.at("/outputs/who/0").asText());
            assertEquals(6, jb.at("/outputs/total/0").asInt());
            // they overlapped: each started before the other ended
            JsonNode da = Http.get(url() + "/api/runs/" + ja.path("run").asText()).json();
            JsonNode db = Http.get(url() + "/api/runs/" + jb.path("run").asText()).json();
            assertTrue(da.get("createdMs").asLong() < db.get("endedMs").asLong()
                    && db.get("createdMs").asLong() < da.get("endedMs").asLong(), da + "\n" + db);
            assertEquals(1, da.get("workflowVersion").asInt());
            assertTrue(a.out().contains("alpha.v1.node on "), a.out());
            assertTrue(b.out().contains("beta.v1.node on "), b.out());
            for (JsonNode r : da.get("ranks")) {
                assertTrue(r.path("endpoint").toString().contains("/axis2/services/alpha.v1.node")
                        || r.toString().contains("alpha.v1.node"), r.toString());
            }
        } finally {
            pool.shutdownNow();
        }
        // every host offers both, side by side
        for (JsonNode h : Http.get(url() + "/api/registry/hosts").json()) {
            String services = h.get("services").toString();
            assertTrue(services.contains("\"alpha.v1.node\"") && services.contains("\"beta.v1.node\""), h.toString());
        }
    }

    @Test
    void twoDocumentsSharingAServiceTypeNameRunAtOnceWithoutBeingStored() throws Exception {
        Path gamma = document("gamma", "gamma", 5);
        Path delta = document("delta", "delta", 7);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            int runsBefore = Http.get(url() + "/api/runs").json().size();
            Future<Result> rg = pool.submit(() -> run(gamma.toString(), "pauseMs=1000"));
            // gamma's services are deployed and its ranks start first
            Await.until(Duration.ofSeconds(60), "gamma's run started", () -> Http.get(url() + "/api/runs").json(),
                    runs -> runs.size() > runsBefore && java.util.stream.StreamSupport.stream(runs.spliterator(), false)
                            .anyMatch(r -> r.path("state").asText().equals("RUNNING")));
            Future<Result> rd = pool.submit(() -> run(delta.toString(), "pauseMs=1000"));
            JsonNode jg = rg.get().json();
            JsonNode jd = rd.get().json();
            assertEquals("SUCCEEDED", jg.path("state").asText(), jg.toString());
            assertEquals("SUCCEEDED", jd.path("state").asText(), jd.toString());
            assertEquals("gamma", jg.at("/outputs/who/0").asText());
            assertEquals(15, jg.at("/outputs/total/0").asInt());
            assertEquals("delta", jd.at("/outputs/who/0").asText());
            assertEquals(21, jd.at("/outputs/total/0").asInt());
            assertTrue(Http.get(url() + "/api/runs/" + jg.path("run").asText()).json().get("workflowVersion").isNull());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aNewVersionDeployedDuringARunLeavesThatRunOnTheOldServices() throws Exception {
        Path file = document("evolving", "first", 1);
        Result v1 = deploy(file);
        assertEquals(0, v1.exit(), v1.out() + v1.err());
        assertTrue(v1.out().contains("workflow 'evolving' version 1 deployed"), v1.out());
        String old = Http.post(url() + "/api/runs", cluster.engine().token(),
                Map.of("workflow", "evolving", "params", Map.of("pauseMs", 4000))).json().get("id").asText();
        awaitState(old, "RUNNING");

        document("evolving", "second", 10);
        Result v2 = deploy(file);
        assertEquals(0, v2.exit(), v2.out() + v2.err());
        assertTrue(v2.out().contains("workflow 'evolving' version 2 deployed"), v2.out());
        assertTrue(v2.out().contains("evolving.v2.node on "), v2.out());

        JsonNode oldRun = awaitState(old, "SUCCEEDED", "FAILED", "CANCELLED");
        assertEquals("SUCCEEDED", oldRun.get("state").asText(), oldRun.toString());
        assertEquals("first", oldRun.at("/outputs/who/0").asText());
        assertEquals(3, oldRun.at("/outputs/total/0").asInt());
        assertEquals(1, oldRun.get("workflowVersion").asInt());
        assertTrue(oldRun.get("endedMs").asLong() > Http.get(url() + "/api/workflows/evolving").json()
                .at("/versions/1/deployedMs").asLong(), "version 2 was deployed while the old run ran: " + oldRun);

        Result latest = run("evolving");
        assertEquals("second", latest.json().at("/outputs/who/0").asText(), latest.out() + latest.err());
        assertEquals(30, latest.json().at("/outputs/total/0").asInt());
        assertEquals(2, Http.get(url() + "/api/runs/" + latest.json().path("run").asText()).json().get("workflowVersion").asInt());
        Result first = run("evolving@1");
        assertEquals("first", first.json().at("/outputs/who/0").asText(), first.out() + first.err());

        // the same again is no new version
        Result again = deploy(file);
        assertEquals(0, again.exit(), again.out() + again.err());
        assertTrue(again.out().contains("workflow 'evolving' version 2 unchanged"), again.out());

        JsonNode w = Http.get(url() + "/api/workflows/evolving").json();
        assertEquals(2, w.get("latestVersion").asInt(), w.toString());
        JsonNode versions = w.get("versions");
        assertEquals(2, versions.size(), versions.toString());
        assertEquals(1, versions.get(0).get("version").asInt());
        assertFalse(versions.get(0).get("latest").asBoolean());
        assertTrue(versions.get(1).get("latest").asBoolean());
        assertEquals(64, versions.get(0).get("sourceSha256").asText().length());
        assertNotEquals(versions.get(0).get("sourceSha256").asText(), versions.get(1).get("sourceSha256").asText());
        assertEquals("evolving.v1.node", versions.get(0).at("/services/node").asText());
        assertTrue(versions.get(0).get("deployedMs").asLong() <= versions.get(1).get("deployedMs").asLong());
        JsonNode one = Http.get(url() + "/api/workflows/evolving@1").json();
        assertEquals(1, one.get("version").asInt());
        assertTrue(one.get("plan").toString().contains("first"), one.toString());
        JsonNode list = Http.get(url() + "/api/workflows").json();
        boolean listed = false;
        for (JsonNode n : list) {
            listed |= n.get("name").asText().equals("evolving") && n.get("latestVersion").asInt() == 2;
        }
        assertTrue(listed, list.toString());
    }

    @Test
    void aMissingVersionIsAClear404() throws Exception {
        assertEquals(0, deploy(document("lonely", "only", 1)).exit());
        Http.Answer missing = Http.post(url() + "/api/runs", cluster.engine().token(), Map.of("workflow", "lonely@7"));
        assertEquals(404, missing.status(), missing.body());
        assertEquals("workflow 'lonely' has no version 7 (versions 1 to 1)", missing.json().get("error").asText());
        assertEquals(404, Http.get(url() + "/api/workflows/lonely@7").status());
        Http.Answer bad = Http.post(url() + "/api/runs", cluster.engine().token(), Map.of("workflow", "lonely@x"));
        assertEquals(400, bad.status(), bad.body());
        assertTrue(bad.json().get("error").asText().startsWith("bad workflow version 'x'"), bad.body());
        assertEquals(404, Http.post(url() + "/api/runs", cluster.engine().token(), Map.of("workflow", "nobody")).status());

        Result cli = run("lonely@7");
        assertNotEquals(0, cli.exit(), "a missing version fails the command");
        assertTrue(cli.err().contains("workflow 'lonely' has no version 7"), cli.out() + cli.err());
    }

    @Test
    void deployingAVersionNeedsTheAdminTokenAtTheEngineAndTheEngineKeyAtTheHosts() throws Exception {
        assertEquals(0, deploy(document("guarded", "genuine", 1)).exit());
        String plan = Http.get(url() + "/api/workflows/guarded").json().get("plan").toString()
                .replace("genuine", "forged");
        Map<String, Object> forged = Map.of("name", "guarded", "plan", Json.MAPPER.readTree(plan));
        // no token, a wrong one, a host's credential: 401, and no version appears
        assertEquals(401, Http.send("POST", url() + "/api/workflows", null, forged).status());
        assertEquals(401, Http.send("POST", url() + "/api/workflows", "Bearer not-the-token", forged).status());
        String hostCredential = HostCalls.credential(cluster.engine(), "intruder").authorization();
        assertEquals(401, Http.send("POST", url() + "/api/workflows", hostCredential, forged).status());
        assertEquals(1, Http.get(url() + "/api/workflows/guarded").json().get("versions").size());

        // straight at a host, replacing the version's service: refused without the engine's key for that host
        JsonNode host = Http.get(url() + "/api/registry/hosts").json().get(0);
        String deployUrl = host.path("announcedDeployUrl").isTextual() ? host.get("announcedDeployUrl").asText()
                : host.get("soapUrl").asText().replaceAll("/$", "") + "/mpfl-deploy";
        HttpResponse<String> direct = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(deployUrl + "?service=guarded.v1.node")).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer not-the-engine-key")
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {'P', 'K', 3, 4})).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, direct.statusCode(), direct.body());

        Result r = run("guarded");
        assertEquals("genuine", r.json().at("/outputs/who/0").asText(), r.out() + r.err());
    }
}
