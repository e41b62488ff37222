package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.json.Json;

/** The log lines {@code mpflc run} prints while it follows a run: new ones only, oldest first across ranks, and what fell out of the view counted. */
class RunLogLinesTest {
    private static Map<String, Object> line(long timeMs, String level, String message) {
        return Map.of("timeMs", timeMs, "level", level, "message", message);
    }

    private static JsonNode view(Object... ranks) {
        List<Object> list = new ArrayList<>(List.of(ranks));
        return Json.MAPPER.valueToTree(Map.of("id", "R1", "ranks", list));
    }

    private static Map<String, Object> rank(int rank, long logCount, List<Map<String, Object>> logs) {
        return Map.of("rank", rank, "logCount", logCount, "logs", logs);
    }

    @Test
    void newLinesOnlyOldestFirstAcrossRanksAndLevelsOtherThanInfoNamed() {
        RunLogLines lines = new RunLogLines(true);
        assertEquals(List.of("rank 1: b", "rank 0: a"), lines.since(view(
                rank(0, 1, List.of(line(20, "info", "a"))),
                rank(1, 1, List.of(line(10, "info", "b"))))));
        assertEquals(List.of(), lines.since(view(
                rank(0, 1, List.of(line(20, "info", "a"))),
                rank(1, 1, List.of(line(10, "info", "b"))))), "nothing new, nothing printed");
        assertEquals(List.of("rank 0 WARN: c"), lines.since(view(
                rank(0, 2, List.of(line(20, "info", "a"), line(30, "warn", "c"))),
                rank(1, 1, List.of(line(10, "info", "b"))))));
    }

    @Test
    void linesThatFellOutOfTheViewBetweenTwoLooksAreCountedAndPointToMpflcLogs() {
        RunLogLines lines = new RunLogLines(true);
        lines.since(view(rank(0, 1, List.of(line(1, "info", "x1")))));
        // 5 more lines since, of which the view keeps the newest 2
        assertEquals(List.of("rank 0: … 3 line(s) not shown (mpflc logs R1 --rank 0 has them)", "rank 0: x5", "rank 0: x6"),
                lines.since(view(rank(0, 6, List.of(line(5, "info", "x5"), line(6, "info", "x6"))))));
    }

    /** A restart's (or resume's) ranks count their lines from 0 again: their first lines are new, not already seen. */
    @Test
    void theLinesOfALaterAttemptAreShownToo() {
        RunLogLines lines = new RunLogLines(true);
        assertEquals(List.of("rank 0: first try"), lines.since(Json.MAPPER.valueToTree(Map.of("id", "R1", "attempts", 1,
                "ranks", List.of(rank(0, 1, List.of(line(1, "info", "first try"))))))));
        assertEquals(List.of("rank 0: resumed after checkpoint 8"), lines.since(Json.MAPPER.valueToTree(Map.of("id", "R1",
                "attempts", 2, "ranks", List.of(rank(0, 1, List.of(line(9, "info", "resumed after checkpoint 8"))))))));
    }

    @Test
    void aRunWithoutARecordDoesNotPointToMpflcLogs() {
        RunLogLines lines = new RunLogLines(false);
        assertEquals(List.of("rank 0: … 3 line(s) not shown (a --local run keeps no record to read them from; on an engine,"
                        + " mpflc up, mpflc logs has every line)", "rank 0: x4"),
                lines.since(view(rank(0, 4, List.of(line(4, "info", "x4"))))));
    }
}
