package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.json.Json;

/**
 * An aborted rank's line in {@code mpflc status} says why it stopped in the engine's words, not the runtime's exception
 * text; a failed rank's says whose fault it is.
 */
class StatusCommandTest {
    @Test
    void anAbortedRankSaysWhyItStoppedInTheEnginesWords() throws Exception {
        assertEquals("stopped: rank 2 failed", StatusCommand.stopReason(run("{\"state\":\"FAILED\",\"abortedBecause\":\"rank 2 failed\"}")));
        assertEquals("stopped: run aborted", StatusCommand.stopReason(run("{\"state\":\"RUNNING\"}")),
                "a rank aborted while the run has not ended yet");
        // its host lost: what the engine said of the rank, not "stopped: rank 0 failed" of rank 0 itself
        assertEquals("lost: host h1 could not be reached when the run ended", StatusCommand.stopReason(
                run("{\"state\":\"FAILED\",\"abortedBecause\":\"rank 0 failed\"}"),
                run("{\"rank\":0,\"state\":\"ABORTED\",\"error\":\"lost: host h1 could not be reached when the run ended\"}")));
        assertEquals("stopped: rank 2 failed", StatusCommand.stopReason(run("{\"state\":\"FAILED\",\"abortedBecause\":\"rank 2 failed\"}"),
                run("{\"rank\":0,\"state\":\"ABORTED\",\"error\":\"DomainAbortedException: aborted by request\"}")));
    }

    @Test
    void aFailedRanksLineSaysWhoseFaultItIs() throws Exception {
        JsonNode live = run("{\"state\":\"RUNNING\",\"restarts\":{\"allowed\":2,\"used\":1}}");
        JsonNode infrastructure = run("{\"state\":\"FAILED\",\"fault\":\"INFRASTRUCTURE\"}");
        assertEquals(" (workflow fault, never restarted)", StatusCommand.faultKind(live, run("{\"state\":\"FAILED\",\"fault\":\"WORKFLOW\"}")));
        assertEquals(" (infrastructure fault, restarted while restarts are left, 1 of 2 used)", StatusCommand.faultKind(live, infrastructure));
        // not "restarted while restarts are left" when none is left or none was allowed (a real run said so after its last)
        assertEquals(" (infrastructure fault, not restarted: no restarts left, 1 of 1 used)", StatusCommand.faultKind(
                run("{\"state\":\"FAILED\",\"restarts\":{\"allowed\":1,\"used\":1}}"), infrastructure));
        assertEquals(" (infrastructure fault, not restarted: the run allows no restarts)", StatusCommand.faultKind(
                run("{\"state\":\"FAILED\",\"restarts\":{\"allowed\":0,\"used\":0}}"), infrastructure));
        assertEquals("", StatusCommand.faultKind(live, run("{\"state\":\"FAILED\"}")), "an older engine gives no kind");
        assertEquals("", StatusCommand.faultKind(live, run("{\"state\":\"ABORTED\",\"fault\":\"WORKFLOW\"}")));
    }

    @Test
    void aResumedRunsProgressSaysItIsTheCheckpointsUntilTheRanksReport() throws Exception {
        assertEquals(" (as at checkpoint 3)", RunFollower.progressSource(run("{\"progress\":0.4,\"progressFromCheckpoint\":3}")));
        assertEquals("", RunFollower.progressSource(run("{\"progress\":0.4,\"progressFromCheckpoint\":null}")));
        assertEquals("", RunFollower.progressSource(run("{\"progress\":0.4}")), "an older engine");
        org.junit.jupiter.api.Assertions.assertTrue(RunFollower.bar(run("{\"id\":\"r\",\"state\":\"RUNNING\",\"progress\":0.4,"
                + "\"progressFromCheckpoint\":3}"), 1000).contains(" 40% (as at checkpoint 3)  RUNNING"));
    }

    /**
     * {@code mpflc status RUN --follow} of a run that took 83 s drew its bar with the 0.3 s this command had followed it
     * (found in a durability walkthrough, under a status line saying 83.3 s): the bar says the run's own time where the
     * engine gives it, the time since the command began to follow only where it does not.
     */
    @Test
    void theBarSaysTheRunsOwnTime() throws Exception {
        org.junit.jupiter.api.Assertions.assertTrue(RunFollower.bar(run("{\"id\":\"r\",\"state\":\"SUCCEEDED\",\"progress\":1,"
                + "\"elapsedMs\":83346}"), 300).contains("  83.3 s  run r"));
        org.junit.jupiter.api.Assertions.assertTrue(RunFollower.bar(run("{\"id\":\"r\",\"state\":\"PENDING\"}"), 300)
                .contains("  0.3 s  run r"), "a record without its time");
    }

    private static JsonNode run(String json) throws Exception {
        return Json.MAPPER.readTree(json);
    }
}
