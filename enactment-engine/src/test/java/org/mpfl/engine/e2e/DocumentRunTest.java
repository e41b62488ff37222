package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.testing.MpflcCall;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * MPFL documents compiled by {@code mpflc run}, deployed by the engine onto two service-host
 * processes and run by the rank interpreter: success with outputs, a {@code fail} activity, and a
 * run-time deadlock the static check cannot see (the receive source depends on a received value).
 */
@Timeout(300)
@StartsProcesses
class DocumentRunTest {
    static Path data;
    static LocalCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        data = Files.createTempDirectory("mpfl-doc-e2e-");
        cluster = LocalCluster.start(new EngineConfig().port(0).dataDir(data)
                .runSettings(new RunSettings(Duration.ofSeconds(30), Duration.ofSeconds(3), Duration.ofMillis(500), 2, "auto")),
                2, Duration.ofSeconds(120));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    static JsonNode run(Path document, String... params) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", document.toString(), "--engine", cluster.engine().url(),
                "--data", cluster.engine().config().dataDir().toString(), "--json"));
        for (String p : params) {
            args.add("--param");
            args.add(p);
        }
        MpflcCall call = MpflcCall.run(args.toArray(String[]::new));
        assertTrue(!call.out().isBlank(), "no JSON; stderr: " + call.err());
        JsonNode j = Json.MAPPER.readTree(call.out());
        assertEquals(j.get("state").asText().equals("SUCCEEDED") ? 0 : 1, call.exit());
        return j;
    }

    static Path resource(String name) {
        return Path.of("src", "test", "resources", "org", "mpfl", "engine", "e2e", name);
    }

    @Test
    void ringDocumentSucceeds() throws Exception {
        Path ring = Path.of("..", "samples", "ring", "ring.mpfl.xml");
        assertTrue(Files.isRegularFile(ring), "no ring sample at " + ring.toAbsolutePath());
        JsonNode j = run(ring, "ranks=4");
        assertEquals("SUCCEEDED", j.get("state").asText(), j.toString());
        assertEquals(6, j.at("/outputs/token/0").asInt());
    }

    @Test
    void failActivityFailsTheRunWithRankLocationAndMessage() throws Exception {
        JsonNode j = run(resource("failing.mpfl.xml"));
        assertEquals("FAILED", j.get("state").asText(), j.toString());
        assertEquals(2, j.at("/error/rank").asInt(), j.toString());
        assertTrue(j.at("/error/location").asText().endsWith("failing.mpfl.xml:5:7"), j.toString());
        assertTrue(j.at("/error/message").asText().contains("rank 2 gives up"), j.toString());
    }

    @Test
    void runtimeDeadlockIsReportedWithItsCycle() throws Exception {
        JsonNode j = run(resource("deadlock.mpfl.xml"));
        assertEquals("FAILED", j.get("state").asText(), j.toString());
        String where = resource("deadlock.mpfl.xml") + ":15:5";
        assertEquals("deadlock: rank 0 waits for rank 1 at " + where + " > rank 1 waits for rank 0 at " + where,
                j.at("/error/message").asText());
    }

    @Test
    void deployThenStartByWorkflowName() throws Exception {
        Path ring = Path.of("..", "samples", "ring", "ring.mpfl.xml");
        assertTrue(Files.isRegularFile(ring), "no ring sample at " + ring.toAbsolutePath());
        MpflcCall deploy = MpflcCall.run("deploy", ring.toString(), "--engine", cluster.engine().url(), "--data",
                cluster.engine().config().dataDir().toString(), "--param", "ranks=3");
        String said = deploy.out();
        assertEquals(0, deploy.exit(), said + deploy.err());
        assertTrue(said.contains("RingNode on "), said);
        assertTrue(said.contains("workflow 'ring' version 1 deployed"), said);
        String id = Http.post(cluster.engine().url() + "/api/runs", cluster.engine().token(),
                java.util.Map.of("workflow", "ring")).json().get("id").asText();
        JsonNode d = Await.runEnds(java.time.Duration.ofSeconds(60),
                () -> Http.get(cluster.engine().url() + "/api/runs/" + id).json());
        assertEquals("SUCCEEDED", d.get("state").asText(), d.toString());
        assertEquals(3, d.get("size").asInt());
        assertEquals(3, d.at("/outputs/token/0").asInt());
    }
}
