package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.childjvm.ChildJvm;

/**
 * {@code mpflc run BAD.mpfl.xml --local --restarts 1} (a run that needs an engine) with a document that does not
 * compile printed its diagnostic and then Camel's {@code IllegalStateException: Shutdown in progress} with a long stack
 * trace: the engine, started in the background while the document compiled, was still starting when the command's JVM
 * exited. Found by a user walkthrough. Now it says the diagnostic and exits 1 (docs/cli.md), and nothing else.
 */
@StartsProcesses
@Timeout(180)
class LocalRunCompileErrorTest {
    @TempDir
    Path dir;

    @Test
    void aDocumentThatDoesNotCompileGetsItsDiagnosticAndNoStackTrace() throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.mpfl.xml"), "<workflow xmlns=\"urn:mpfl:1.0\" name=\"bad\">\n"
                + "  <process name=\"p\" ranks=\"1\">\n    <output name=\"x\" value=\"undefinedVar + 1\"/>\n  </process>\n"
                + "</workflow>\n");
        for (List<String> options : List.of(List.of("--restarts", "1"), List.of("--hosts", "1"))) {
            List<String> cmd = new ArrayList<>(ChildJvm.command(ChildJvm.shortLivedOptions("256m"), Mpflc.class.getName()));
            cmd.addAll(List.of("run", bad.toString(), "--local"));
            cmd.addAll(options);
            Path err = dir.resolve("run.err");
            Process run = new ProcessBuilder(cmd).redirectOutput(dir.resolve("run.out").toFile()).redirectError(err.toFile()).start();
            try {
                // it ends by itself; 120 s is the margin for a loaded machine, the class timeout the bound
                assertTrue(run.waitFor(120, TimeUnit.SECONDS), options + ": mpflc run ended by itself: " + Files.readString(err));
            } finally {
                run.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            String said = Files.readString(err, StandardCharsets.UTF_8);
            assertEquals(1, run.exitValue(), options + ": " + said);
            assertTrue(said.contains(bad + ":3:"), options + ": the diagnostic names the file and line: " + said);
            assertFalse(said.contains("Exception"), options + ": no exception: " + said);
            assertFalse(said.contains("\tat "), options + ": no stack trace: " + said);
        }
    }
}
