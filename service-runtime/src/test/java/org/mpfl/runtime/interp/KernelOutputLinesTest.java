package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.testing.StartsProcesses;

/**
 * What a Python kernel prints, as the rank's log lines: shown, not obeyed by a terminal, and shown by the end of
 * the call that printed it (docs/kernel-protocol.md, the worker's standard output and error).
 */
@StartsProcesses
@ExtendWith(KernelTestPython.ForClass.class)
class KernelOutputLinesTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    private static InterpreterHarness.Result run(Path dir, String kernel, String activities) throws Exception {
        Files.writeString(dir.resolve("printing.py"), kernel);
        Path document = dir.resolve("printing.mpfl.xml");
        Files.writeString(document, """
                <workflow xmlns="urn:mpfl:1.0" name="printing">
                  <library path="printing.py"/>
                  <process name="node" ranks="1">
                    <var name="n" type="int"/>
                %s
                  </process>
                </workflow>
                """.formatted(activities));
        return InterpreterHarness.run(document, Map.of(), LIMIT).succeeded();
    }

    /**
     * A kernel's colours, cursor moves and carriage returns reach the console and mpflc run/status as escapes
     * ({@code \x1b}), its tabs and UTF-8 text as they are. Before, the bytes went through and a terminal obeyed them.
     */
    @Test
    void controlCharactersInAKernelsLinesAreShownAsEscapes(@TempDir Path dir) throws Exception {
        InterpreterHarness.Result r = run(dir, """
                import sys
                def paint():
                    print("\\x1b[31mred\\x1b[0m\\tTemperatur 温度 ✓")
                    sys.stderr.write("10%\\r20%\\x1b[2J\\n")
                    return {"n": 1}
                """, "    <compute python=\"printing:paint\" out=\"n\"/>");
        List<String> logs = r.rank(0).logs;
        assertTrue(logs.contains("info: \\x1b[31mred\\x1b[0m\\tTemperatur 温度 ✓".replace("\\t", "\t")), logs.toString());
        assertTrue(logs.contains("warn: 10%\\x0d20%\\x1b[2J"), logs.toString());
    }

    /**
     * {@code print("...", end="")} in a call shows as a line of its own by the end of that call, as the pump reads it
     * (as a whole line shows); before, it waited for a newline or the worker's end, so that three calls' prints made
     * one line "step donestep donestep done" at the end of the rank.
     */
    @Test
    void aLineWithoutNewlineShowsByTheEndOfItsCall(@TempDir Path dir) throws Exception {
        InterpreterHarness.Result r = run(dir, """
                def step():
                    print("step done", end="")
                    return {"n": 1}
                """, """
                    <for var="i" from="0" to="3">
                      <compute python="printing:step" out="n"/>
                    </for>
                """);
        List<String> logs = r.rank(0).logs.stream().filter(l -> l.contains("step done")).toList();
        assertEquals(List.of("info: step done", "info: step done", "info: step done"), logs);
    }
}
