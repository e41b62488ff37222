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
import org.mpfl.protocol.RankEvent;

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
        List<String> fields = fieldNames(r.detail());
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
        assertFalse(listed.has("ranks") || listed.has("matrix"), listed.toString());
        assertEquals(2, listed.at("/params/n").asInt(), "the runs list shows and searches parameters");
        assertEquals("r1", listed.get("id").asText());
        assertTrue(listed.has("attempts") && listed.has("outputs"), "the rest of the detail stays: " + listed);
    }

    @Test
    void aLiveRunInAListShowsItsSummary() {
        JsonNode summary = RunView.summary(run());
        assertEquals(List.of("id", "workflow", "workflowVersion", "state", "createdMs", "startedMs", "endedMs", "elapsedMs",
                "startupMs", "size", "progress", "error", "attempts", "resumed", "params", "progressFromCheckpoint"),
                fieldNames(summary));
        assertEquals(2, summary.get("size").asInt());
    }

    @Test
    void anEndedRunSaysWhyItsAbortedRanksStoppedInNeutralWords() {
        assertEquals("run cancelled", abortedBecause(RunState.CANCELLED, new RunError(null, null, RunError.cancelled(null, null))));
        assertEquals("deadlock detected", abortedBecause(RunState.FAILED,
                new RunError(0, "ring.mpfl.xml:9:9", "deadlock: rank 0 > rank 1 > rank 0")));
        assertEquals("run stalled", abortedBecause(RunState.FAILED,
                new RunError(1, null, "stalled: every live rank is blocked and rank 0's message to rank 1 has not arrived")));
        assertEquals("rank 1 failed", abortedBecause(RunState.FAILED, new RunError(1, "ring.mpfl.xml:12:7", "ReceiveTimeoutException")));
        assertEquals("run failed", abortedBecause(RunState.FAILED, new RunError(null, null, "service host h lost")));
        assertFalse(RunView.summary(run()).has("abortedBecause"), "only an ended run that failed or was cancelled has one");
        Run succeeded = run();
        succeeded.finish(RunState.SUCCEEDED, null, 2000);
        assertFalse(succeeded.record().detail().has("abortedBecause"));
    }

    private static String abortedBecause(RunState state, RunError error) {
        Run run = run();
        run.finish(state, error, 2000);
        assertEquals(run.record().detail().get("abortedBecause"), RunView.summary(run).get("abortedBecause"),
                "the live summary (the console's run events) and the stored detail say it the same way");
        return RunView.summary(run).path("abortedBecause").asText(null);
    }

    private static RankEvent event(int rank, long seq, RankEvent.Type type, String state, Object value) {
        return new RankEvent("d", rank, seq, 1000 + seq, type, state, null, null, null, null, null, value);
    }

    @Test
    void progressKeepsTheLastReportedValueAndCountsOnlyTheRanksThatReportIt() {
        Run run = run();
        run.apply(event(0, 1, RankEvent.Type.STATE, "RUNNING", null));
        run.apply(event(1, 1, RankEvent.Type.STATE, "RUNNING", null));
        run.apply(event(0, 2, RankEvent.Type.PROGRESS, null, Map.of("value", 100, "total", 500)));
        assertEquals(0.2, RunView.summary(run).get("progress").asDouble(), 1e-9, "rank 1 reports no progress and does not count");
        run.apply(event(0, 3, RankEvent.Type.PROGRESS, null, Map.of("value", 247, "total", 500)));
        run.apply(event(0, 4, RankEvent.Type.STATE, "DONE", null));
        JsonNode d = RunView.detail(run);
        assertEquals(247, d.at("/ranks/0/progress/value").asInt(), "converged early: the value stays as reported");
        assertEquals(500, d.at("/ranks/0/progress/total").asInt());
        assertEquals(1.0, d.get("progress").asDouble(), 1e-9, "a DONE rank counts as complete");

        Run silent = run();
        silent.apply(event(0, 1, RankEvent.Type.STATE, "RUNNING", null));
        silent.apply(event(0, 2, RankEvent.Type.STATE, "DONE", null));
        assertEquals(0.5, RunView.summary(silent).get("progress").asDouble(), 1e-9, "no rank reports progress: the share done");
    }

    @Test
    void aResumedRunHasANonNegativeStartUpAndEachAttemptsOutcome() {
        Run run = run();
        run.markStarting(1_000);
        run.markRunning(1_500, true);
        assertEquals(500, RunView.summary(run).get("startupMs").asLong());
        assertTrue(run.finish(RunState.CANCELLED, new RunError(null, null, "cancelled by user"), 2_000));
        run.reopen("d2", "t2");
        run.markStarting(10_000);
        assertTrue(RunView.summary(run).get("startupMs").isNull(),
                "before the new attempt runs its start-up is unknown, not the old attempt's end minus the new start");
        run.placed(List.of(new RankPlacement(0, "p", "s", "h", new Endpoint("http://h/s", null, "h")),
                new RankPlacement(1, "p", "s", "h", new Endpoint("http://h/s", null, "h"))));
        run.markRunning(10_300, true);
        assertEquals(300, RunView.summary(run).get("startupMs").asLong());
        assertTrue(run.finish(RunState.SUCCEEDED, null, 12_000));
        JsonNode log = RunView.detail(run).get("attemptLog");
        assertEquals(2, log.size(), log.toString());
        assertEquals("CANCELLED", log.get(0).get("outcome").asText());
        assertEquals(2_000, log.get(0).get("endMs").asLong());
        assertEquals("cancelled by user", log.get(0).get("outcomeMessage").asText());
        assertEquals("SUCCEEDED", log.get(1).get("outcome").asText());
        assertEquals(12_000, log.get(1).get("endMs").asLong());
        assertFalse(RunView.detail(run).get("resumed").asBoolean(),
                "reopen alone is not a user's resume: the run service names the cause (RunLifecycle.resume)");
    }

    /** The names of an object's fields, in order. */
    private static List<String> fieldNames(Object value) {
        List<String> names = new java.util.ArrayList<>();
        Json.MAPPER.valueToTree(value).fieldNames().forEachRemaining(names::add);
        return names;
    }
}
