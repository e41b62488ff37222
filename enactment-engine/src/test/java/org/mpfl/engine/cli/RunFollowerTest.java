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
    /** What the run's n-th look (from 1) answers, or throws. */
    private interface Looks {
        String at(int n) throws IOException;
    }

    /** A run whose looks answer as {@code looks} says; nothing may cancel it; no clock (the looks count the time). */
    private static RunFollower.Source source(Looks looks) {
        AtomicInteger n = new AtomicInteger();
        return new RunFollower.Source() {
            @Override
            public JsonNode get() throws IOException {
                return Json.MAPPER.readTree(looks.at(n.incrementAndGet()));
            }

            @Override
            public void cancel(String reason) {
                throw new AssertionError("nothing cancels this run: " + reason);
            }

            @Override
            public void pause(long ms) {
            }
        };
    }

    @Test
    void anEngineThatStopsAnsweringIsWaitedForAndSaidSo() throws Exception {
        RunFollower.Source restarting = source(n -> {
            if (n == 1) {
                return "{\"id\":\"r\",\"state\":\"RUNNING\",\"size\":1,\"ranks\":[]}";
            }
            if (n <= 4) {
                throw new java.net.ConnectException("Connection refused");
            }
            return "{\"id\":\"r\",\"state\":\"SUCCEEDED\",\"size\":1,\"ranks\":[]}";
        });
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
        RunFollower.Source restarted = source(n -> n == 1
                ? "{\"id\":\"r\",\"state\":\"RUNNING\",\"attempts\":1,\"attemptLog\":[{\"attempt\":1,\"cause\":\"start\"}]}"
                : "{\"id\":\"r\",\"state\":\"" + (n == 2 ? "QUEUED" : "SUCCEEDED") + "\",\"attempts\":2,\"attemptLog\":["
                        + "{\"attempt\":1,\"cause\":\"start\"},{\"attempt\":2,\"cause\":\"restart after: service host h1 lost\","
                        + "\"resumedFrom\":6}]}");
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        RunFollower.follow(restarted, "r", 0, new PrintStream(said, true, StandardCharsets.UTF_8), true, true);
        String text = said.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("mpflc run: attempt 2: restart after: service host h1 lost (from checkpoint 6)"), text);
        assertEquals(1, text.split("attempt 2:", -1).length - 1, "said once: " + text);
    }

    @Test
    void theLinesOfRanksThatEndAfterTheRunArePrintedToo() throws Exception {
        // rank 1 failed the run while rank 0 was still posting what it had logged: a line per look, then its end
        RunFollower.Source failing = source(n -> "{\"id\":\"r\",\"state\":\"FAILED\",\"attempts\":1,\"ranks\":["
                + "{\"rank\":0,\"state\":\"" + (n < 3 ? "RUNNING" : "FAILED") + "\",\"logCount\":" + n + ",\"logs\":"
                + logLines(n) + "},{\"rank\":1,\"state\":\"FAILED\",\"logCount\":0,\"logs\":[]}]}");
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        JsonNode last = RunFollower.follow(failing, "r", 0, new PrintStream(said, true, StandardCharsets.UTF_8), true, true);
        String text = said.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("rank 0: call 1\n") && text.contains("rank 0: call 2\n") && text.contains("rank 0: call 3\n"), text);
        assertEquals("FAILED", last.at("/ranks/0/state").asText(), "reported once every rank has ended");
    }

    /** A rank's {@code logs}: {@code call 1} … {@code call n}. */
    private static String logLines(int n) {
        StringBuilder logs = new StringBuilder("[");
        for (int i = 1; i <= n; i++) {
            logs.append(i > 1 ? "," : "").append("{\"timeMs\":").append(i).append(",\"message\":\"call ").append(i).append("\"}");
        }
        return logs.append(']').toString();
    }

    @Test
    void anEndedRunWhoseRanksNeverSayTheyEndedIsLeftAfterABoundedWait() throws Exception {
        AtomicInteger looks = new AtomicInteger();
        RunFollower.Source silent = source(n -> {
            looks.set(n);
            return "{\"id\":\"r\",\"state\":\"CANCELLED\",\"ranks\":[{\"rank\":0,\"state\":\"RUNNING\"}]}";
        });
        JsonNode last = RunFollower.follow(silent, "r", 0, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                true, true);
        assertEquals("CANCELLED", last.path("state").asText());
        assertEquals(11, looks.get(), "the end, then ten more looks (2 s)");
    }
}
