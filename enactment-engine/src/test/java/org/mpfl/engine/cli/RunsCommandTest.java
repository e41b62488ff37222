package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.json.Json;

/** A run's error in the one line of {@code mpflc runs}: the line that says what went wrong, after its rank and place. */
class RunsCommandTest {
    private static JsonNode error(String message) {
        return Json.MAPPER.valueToTree(Map.of("rank", 3, "location", "k.mpfl.xml:11:5", "message", message));
    }

    @Test
    void aJavaActivitysErrorShowsItsFirstLineNotItsFrames() {
        assertEquals("rank 3 at k.mpfl.xml:11:5: activity org.x.Step failed: java.lang.IllegalStateException: diverged",
                RunsCommand.oneLine(error("activity org.x.Step failed: java.lang.IllegalStateException: diverged\n"
                        + "\tat org.x.Step.execute(Step.java:42)")));
    }

    @Test
    void aPythonTracebackShowsItsLastLineWhichSaysWhatWasRaised() {
        assertEquals("rank 3 at k.mpfl.xml:11:5: NameError: name 'w' is not defined",
                RunsCommand.oneLine(error("kernel m:f raised an exception:\nTraceback (most recent call last):\n"
                        + "  File \"m.py\", line 14, in f\n    total += v * w\n                 ^\nNameError: name 'w' is not defined\n")));
    }

    @Test
    void aLongLineIsCutAndNoErrorIsNothing() {
        String line = RunsCommand.oneLine(error("x".repeat(300)));
        assertEquals(100, line.length(), line);
        assertTrue(line.endsWith("…"), line);
        assertEquals("", RunsCommand.oneLine(Json.MAPPER.nullNode()));
        assertEquals("", RunsCommand.oneLine(Json.MAPPER.missingNode()));
    }
}
