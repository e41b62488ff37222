package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.store.RunRecord;
import org.mpfl.protocol.Endpoint;

/**
 * A run's stored record and its REST view: the record carries the columns and the whole detail; the
 * detail view shows that detail field for field (docs/openapi.yaml, the console and the CLI rely on
 * it); a stored run in a list leaves out the per-rank parts; a live run in a list shows its summary.
 */
class RunViewTest {
    private static Run run() {
        Run run = new Run("r1", "ring", "d", "t", Map.of("n", 2), 1000);
        run.placed(List.of(new RankPlacement(0, "p", "s", "h", new Endpoint("http://h/s", null, "h")),
                new RankPlacement(1, "p", "s", "h", new Endpoint("http://h/s", null, "h"))));
        return run;
    }

    @Test
    void theRecordHasTheColumnsAndTheWholeDetail() {
        RunRecord r = run().record();
        assertEquals("r1", r.id());
        assertEquals("ring", r.workflow());
        assertEquals("PENDING", r.state());
        assertEquals(1000, r.createdMs());
        List<String> fields = Json.MAPPER.convertValue(r.detail(), Map.class).keySet().stream().map(String::valueOf).toList();
        assertEquals(List.of("id", "workflow", "workflowVersion", "state", "createdMs", "startedMs", "endedMs", "elapsedMs",
                "startupMs", "size", "progress", "error", "params", "ranks", "outputs", "matrix", "attempts", "hostFaults"),
                fields.subList(0, 18), "the detail's fields, in the order the API has always shown them");
        assertEquals(2, r.detail().get("ranks").size());
        assertEquals(2, r.detail().at("/params/n").asInt());
    }

    @Test
    void theDetailViewIsTheRecordsDetailAndDoesNotShareIt() {
        RunRecord r = run().record();
        JsonNode view = RunView.detail(r);
        assertEquals(r.detail(), view);
        ((com.fasterxml.jackson.databind.node.ObjectNode) view).put("state", "changed");
        assertEquals("PENDING", r.detail().get("state").asText(), "the view is a copy: the stored record is not changed through it");
    }

    @Test
    void aStoredRunInAListLeavesOutThePerRankParts() {
        JsonNode listed = RunView.listed(run().record());
        assertFalse(listed.has("ranks") || listed.has("matrix") || listed.has("params"), listed.toString());
        assertEquals("r1", listed.get("id").asText());
        assertTrue(listed.has("attempts") && listed.has("outputs"), "the rest of the detail stays: " + listed);
    }

    @Test
    void aLiveRunInAListShowsItsSummary() {
        JsonNode summary = RunView.summary(run());
        assertEquals(List.of("id", "workflow", "workflowVersion", "state", "createdMs", "startedMs", "endedMs", "elapsedMs",
                "startupMs", "size", "progress", "error"),
                Json.MAPPER.convertValue(summary, Map.class).keySet().stream().map(String::valueOf).toList());
        assertEquals(2, summary.get("size").asInt());
    }
}
