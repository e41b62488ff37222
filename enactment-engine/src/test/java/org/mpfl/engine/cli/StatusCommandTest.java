package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.json.Json;

/** An aborted rank's line in {@code mpflc status} says why it stopped as the console does, not the runtime's exception text. */
class StatusCommandTest {
    @Test
    void anAbortedRankSaysWhyItStoppedInTheConsolesWords() throws Exception {
        assertEquals("stopped: rank 2 failed", StatusCommand.stopReason(run("FAILED", "{\"rank\":2,\"message\":\"rank 2 gives up\"}")));
        assertEquals("stopped: run cancelled", StatusCommand.stopReason(run("CANCELLED", "{\"message\":\"cancelled by user\"}")));
        assertEquals("stopped: deadlock detected", StatusCommand.stopReason(run("FAILED",
                "{\"rank\":0,\"message\":\"deadlock: rank 0 > rank 1 > rank 0\"}")));
        assertEquals("stopped: run failed", StatusCommand.stopReason(run("FAILED", "{\"message\":\"service host h1 lost\"}")));
        assertEquals("stopped: run aborted", StatusCommand.stopReason(run("RUNNING", "null")));
    }

    private static JsonNode run(String state, String error) throws Exception {
        return Json.MAPPER.readTree("{\"state\":\"" + state + "\",\"error\":" + error + "}");
    }
}
