package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.mpfl.engine.Engine;
import org.mpfl.testing.Http;
import org.mpfl.testing.Await;
import java.time.Duration;

/** Starts one-process plans through the REST API and waits for their end (for the tests with real hosts). */
final class PlanRuns {
    private PlanRuns() {
    }

    /** Starts a plan with one process named after its service; returns the run id. */
    static String start(Engine engine, String service, int ranks, Map<String, Object> params) throws Exception {
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("params", params,
                "plan", Map.of("workflow", service, "processes", List.of(Map.of("name", service, "service", service, "ranks", ranks)))));
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    /** The run's detail once it ended; fails when it has not within {@code ms}. */
    static JsonNode awaitEnd(Engine engine, String id, long ms) throws Exception {
        return Await.runEnds(Duration.ofMillis(ms), () -> Http.get(engine.url() + "/api/runs/" + id).json());
    }
}
