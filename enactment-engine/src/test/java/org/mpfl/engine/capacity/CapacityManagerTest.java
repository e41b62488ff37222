package org.mpfl.engine.capacity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * Capacity on demand in one engine against a {@link FakeScheduler} (SlurmCapacityTest runs a real Slurm): what the
 * queue says and does when the provider's limits, its scheduler or its jobs stand in the way.
 */
@Timeout(120)
class CapacityManagerTest {
    @TempDir
    Path dir;
    Engine engine;
    final FakeScheduler slurm = new FakeScheduler();

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
    }

    void start(int maxNodes, int cpusPerNode) throws Exception {
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).heartbeatTimeout(Duration.ofMinutes(5))
                .capacity(slurm, new CapacitySettings(maxNodes, cpusPerNode, Duration.ofSeconds(300), Duration.ofMillis(100))));
    }

    String run(int ranks) throws Exception {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", ranks))));
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), body);
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    JsonNode detail(String id) throws Exception {
        return Http.get(engine.url() + "/api/runs/" + id).json();
    }

    String awaitReason(String id, String part) throws Exception {
        return Await.until(Duration.ofSeconds(30), () -> "run " + id + " waits saying '" + part + "'", () -> detail(id),
                d -> d.at("/queue/reason").asText("").contains(part)).at("/queue/reason").asText();
    }

    /** More ranks than --max-nodes × --cpus-per-node can ever bring: the run fails at once, naming the limit and the need. */
    @Test
    void aRunLargerThanTheProviderCanEverBringFailsAtOnceNamingTheLimitAndTheNeed() throws Exception {
        start(2, 4);
        String id = run(9);
        JsonNode d = Await.runEnds(Duration.ofSeconds(30), () -> detail(id));
        assertEquals("FAILED", d.get("state").asText(), d.toString());
        String error = d.at("/error/message").asText();
        assertTrue(error.contains("needs 9 ranks") && error.contains("--max-nodes 2 × --cpus-per-node 4 = 8 places"), error);
        assertTrue(slurm.submitted.isEmpty(), "no job for a run that can never fit: " + slurm.submitted);

        // exactly the most it can bring: it waits for its jobs, the reason naming them
        String fits = run(8);
        String reason = awaitReason(fits, "Slurm job 101 PENDING (Resources)");
        assertTrue(reason.contains("Slurm job 100 PENDING (Resources)"), reason);
        assertEquals("QUEUED", detail(fits).get("state").asText());
    }
}
