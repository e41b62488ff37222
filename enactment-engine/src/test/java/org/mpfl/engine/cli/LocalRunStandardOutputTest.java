package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * prints there goes to standard error. A kernel's prints themselves are its rank's log lines, as a Python kernel's are:
 * shown on standard error with their rank ({@code rank 1: …}), and not at all with {@code --json}.
 */
class LocalRunStandardOutputTest {
    @TempDir
    Path dir;

    /** The command's standard output and error, its exit code. */
    private record Said(int code, String results, String err) {
    }

    private Said run(String... options) throws Exception {
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
            List<String> args = new java.util.ArrayList<>(List.of("run", doc.toString(), "--local"));
            args.addAll(List.of(options));
            code = Mpflc.run(args);
            assertSame(testOut, System.out, "the process's standard output is back once the command ended");
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
        return new Said(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aJavaKernelsPrintsStayOutOfTheJsonObject() throws Exception {
        Said said = run("--json");
        assertEquals(0, said.code(), said.results() + said.err());
        assertEquals(1, said.results().lines().count(), "standard output holds the one JSON object alone: " + said.results());
        JsonNode run = Json.MAPPER.readTree(said.results());
        assertEquals("SUCCEEDED", run.path("state").asText(), said.results());
        assertEquals(2.0, run.at("/outputs/y/1").asDouble(), said.results());
        assertFalse(said.err().contains("printed by the kernel"), "--json shows no rank's log lines: " + said.err());
    }

    /** Before, the lines came raw ("printed by the kernel on rank 0"), without the rank that printed them. */
    @Test
    void aJavaKernelsPrintsAreShownAsItsRanksLogLines() throws Exception {
        Said said = run();
        assertEquals(0, said.code(), said.results() + said.err());
        assertTrue(said.results().contains("y[1] = 2"), said.results());
        assertFalse(said.results().contains("printed by the kernel"), said.results());
        List<String> lines = said.err().lines().filter(l -> l.contains("printed by the kernel")).sorted().toList();
        assertEquals(List.of("rank 0: printed by the kernel on rank 0", "rank 1: printed by the kernel on rank 1"), lines,
                said.err());
    }
}
