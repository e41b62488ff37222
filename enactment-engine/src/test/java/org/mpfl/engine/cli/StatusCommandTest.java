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
    }

    @Test
    void aFailedRanksLineSaysWhoseFaultItIs() throws Exception {
        JsonNode run = run("{\"state\":\"FAILED\",\"restarts\":{\"allowed\":0,\"used\":0}}");
        assertEquals(" (workflow fault, never restarted)", StatusCommand.faultKind(run("{\"state\":\"FAILED\",\"fault\":\"WORKFLOW\"}"), run));
        assertEquals("", StatusCommand.faultKind(run("{\"state\":\"FAILED\"}"), run), "an older engine gives no kind");
        assertEquals("", StatusCommand.faultKind(run("{\"state\":\"ABORTED\",\"fault\":\"WORKFLOW\"}"), run));
    }

    /**
     * An infrastructure fault's line says what it came to, as the run's restarts and state tell: the label once said
     * "restarted while restarts are left" for a run with --restarts 0 that had failed for it.
     */
    @Test
    void anInfrastructureFaultSaysWhetherTheRunRestartsOrHadNoRestartsLeft() throws Exception {
        JsonNode lost = run("{\"state\":\"FAILED\",\"fault\":\"INFRASTRUCTURE\"}");
        assertEquals(" (infrastructure fault, no restarts left)",
                StatusCommand.faultKind(lost, run("{\"state\":\"FAILED\",\"restarts\":{\"allowed\":0,\"used\":0}}")), "--restarts 0");
        assertEquals(" (infrastructure fault, no restarts left)",
                StatusCommand.faultKind(lost, run("{\"state\":\"FAILED\",\"restarts\":{\"allowed\":2,\"used\":2}}")), "all used");
        assertEquals(" (infrastructure fault, restarting: 2 of 2 restarts left)",
                StatusCommand.faultKind(lost, run("{\"state\":\"RUNNING\",\"restarts\":{\"allowed\":2,\"used\":0}}")),
                "the restart about to be made");
        assertEquals(" (infrastructure fault, not restarted: the run ended FAILED)",
                StatusCommand.faultKind(lost, run("{\"state\":\"FAILED\",\"restarts\":{\"allowed\":2,\"used\":1}}")),
                "another rank's workflow fault ended the run first");
        assertEquals(" (infrastructure fault)", StatusCommand.faultKind(lost, run("{\"state\":\"FAILED\"}")),
                "an older engine gives no restarts: nothing claimed");
    }

    @Test
    void aResumedRunsProgressSaysItIsTheCheckpointsUntilTheRanksReport() throws Exception {
        assertEquals(" (as at checkpoint 3)", RunFollower.progressSource(run("{\"progress\":0.4,\"progressFromCheckpoint\":3}")));
        assertEquals("", RunFollower.progressSource(run("{\"progress\":0.4,\"progressFromCheckpoint\":null}")));
        assertEquals("", RunFollower.progressSource(run("{\"progress\":0.4}")), "an older engine");
        org.junit.jupiter.api.Assertions.assertTrue(RunFollower.bar(run("{\"id\":\"r\",\"state\":\"RUNNING\",\"progress\":0.4,"
                + "\"progressFromCheckpoint\":3}"), 1000).contains(" 40% (as at checkpoint 3)  RUNNING"));
    }

    private static JsonNode run(String json) throws Exception {
        return Json.MAPPER.readTree(json);
    }
}
