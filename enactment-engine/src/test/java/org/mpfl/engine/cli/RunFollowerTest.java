package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.json.Json;

/** Following a run across an engine that stops answering for a while (a restart): said once, and waited for. */
class RunFollowerTest {
    @Test
    void anEngineThatStopsAnsweringIsWaitedForAndSaidSo() throws Exception {
        AtomicInteger looks = new AtomicInteger();
        RunFollower.Source restarting = new RunFollower.Source() {
            @Override
            public JsonNode get() throws IOException {
                int n = looks.incrementAndGet();
                if (n == 1) {
                    return Json.MAPPER.readTree("{\"id\":\"r\",\"state\":\"RUNNING\",\"size\":1,\"ranks\":[]}");
                }
                if (n <= 4) {
                    throw new java.net.ConnectException("Connection refused");
                }
                return Json.MAPPER.readTree("{\"id\":\"r\",\"state\":\"SUCCEEDED\",\"size\":1,\"ranks\":[]}");
            }

            @Override
            public void cancel(String reason) {
                throw new AssertionError("nothing cancels a run whose engine restarts: " + reason);
            }

            @Override
            public void pause(long ms) {
                // no clock: the looks count the time
            }
        };
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        JsonNode last = RunFollower.follow(restarting, "r", 0, new PrintStream(said, true, StandardCharsets.UTF_8), true, true);
        assertEquals("SUCCEEDED", last.get("state").asText());
        String text = said.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("the engine does not answer (Connection refused); waiting up to 180 s for it (a restart)"), text);
        assertEquals(1, text.split("does not answer", -1).length - 1, "said once, not per look: " + text);
        assertTrue(text.contains("the engine answers again"), text);
    }

    @Test
    void aRestartIsSaidWithItsCauseAndCheckpoint() throws Exception {
        AtomicInteger looks = new AtomicInteger();
        RunFollower.Source restarted = new RunFollower.Source() {
            @Override
            public JsonNode get() throws IOException {
                int n = looks.incrementAndGet();
                return Json.MAPPER.readTree(n == 1 ? "{\"id\":\"r\",\"state\":\"RUNNING\",\"attempts\":1,\"attemptLog\":[{\"attempt\":1,"
                        + "\"cause\":\"start\"}]}"
                        : "{\"id\":\"r\",\"state\":\"" + (n == 2 ? "QUEUED" : "SUCCEEDED") + "\",\"attempts\":2,\"attemptLog\":["
                        + "{\"attempt\":1,\"cause\":\"start\"},{\"attempt\":2,\"cause\":\"restart after: service host h1 lost\","
                        + "\"resumedFrom\":6}]}");
            }

            @Override
            public void cancel(String reason) {
                throw new AssertionError(reason);
            }

            @Override
            public void pause(long ms) {
            }
        };
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        RunFollower.follow(restarted, "r", 0, new PrintStream(said, true, StandardCharsets.UTF_8), true, true);
        String text = said.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("mpflc run: attempt 2: restart after: service host h1 lost (from checkpoint 6)"), text);
        assertEquals(1, text.split("attempt 2:", -1).length - 1, "said once: " + text);
    }
}
