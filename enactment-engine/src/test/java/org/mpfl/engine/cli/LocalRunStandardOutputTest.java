package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.json.Json;

/**
 * {@code mpflc run --local} runs the ranks in the command's own JVM, so a Java kernel's {@code System.out.println} wrote
 * to the command's standard output, among the run's outputs: {@code --json} printed the kernel's lines before the one
 * JSON object, which then no longer parsed. Found by a user walkthrough (docs/tutorial.md, "Your own kernels": a print
 * added to the generated kernel). The command's results now have standard output to themselves; what else in the JVM
 * prints there goes to standard error, where a Python kernel's {@code print} goes too.
 */
class LocalRunStandardOutputTest {
    @TempDir
    Path dir;

    @Test
    void aJavaKernelsPrintsGoToStandardErrorAndTheJsonStaysOneObject() throws Exception {
        Path doc = Files.writeString(dir.resolve("printing.mpfl.xml"), """
                <workflow xmlns="urn:mpfl:1.0" name="printing">
                  <process name="p" ranks="2">
                    <var name="y" type="double"/>
                    <compute class="org.mpfl.engine.cli.PrintingKernel" out="y"/>
                    <output name="y" value="y"/>
                  </process>
                </workflow>
                """);
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream testOut = new PrintStream(out, true, StandardCharsets.UTF_8);
        int code;
        try {
            System.setOut(testOut);
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = Mpflc.run(List.of("run", doc.toString(), "--local", "--json"));
            assertSame(testOut, System.out, "the process's standard output is back once the command ended");
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
        String results = out.toString(StandardCharsets.UTF_8);
        String said = err.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, results + said);
        assertEquals(1, results.lines().count(), "standard output holds the one JSON object alone: " + results);
        JsonNode run = Json.MAPPER.readTree(results);
        assertEquals("SUCCEEDED", run.path("state").asText(), results);
        assertEquals(2.0, run.at("/outputs/y/1").asDouble(), results);
        assertTrue(said.contains("printed by the kernel on rank 0") && said.contains("printed by the kernel on rank 1"), said);
    }
}
