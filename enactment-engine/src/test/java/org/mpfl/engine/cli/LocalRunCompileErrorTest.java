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
            List<String> args = new ArrayList<>(List.of("run", bad.toString(), "--local"));
            args.addAll(options);
            Ended run = mpflc(args);
            String said = run.stderr();
            assertEquals(1, run.exit(), options + ": " + said);
            assertTrue(said.contains(bad + ":3:"), options + ": the diagnostic names the file and line: " + said);
            assertFalse(said.contains("Exception"), options + ": no exception: " + said);
            assertFalse(said.contains("\tat "), options + ": no stack trace: " + said);
        }
    }

    /**
     * {@code mpflc run FILE --local --hosts 1} without a value for a param that has no default started the engine and
     * its host, and every rank failed at its start ("param 'n' has no value") without the param's place in the document;
     * {@code --local} alone refused it at its {@code <param>}. Now it is refused as --local refuses it, before the engine
     * or a host starts: the diagnostic is all the command says.
     */
    @Test
    void aRequiredParamWithoutValueIsRefusedAtItsDeclarationBeforeTheHostsStart() throws Exception {
        Path doc = Files.writeString(dir.resolve("needs-n.mpfl.xml"), "<workflow xmlns=\"urn:mpfl:1.0\" name=\"needs-n\">\n"
                + "  <param name=\"n\" type=\"int\"/>\n  <process name=\"p\" ranks=\"1\">\n"
                + "    <output name=\"twice\" value=\"2 * n\"/>\n  </process>\n</workflow>\n");
        Ended run = mpflc(List.of("run", doc.toString(), "--local", "--hosts", "1"));
        String said = run.stderr();
        assertEquals(1, run.exit(), said);
        assertEquals(doc + ":2:3: error: param 'n' has no value: it has no default, so give it with --param n=VALUE", said.strip(),
                "the diagnostic at the <param>, and nothing started");
    }

    /** How a command that ends by itself ended. */
    private record Ended(int exit, String stderr) {
    }

    /** {@code mpflc ARGS} in a JVM of its own, which is to end by itself. */
    private Ended mpflc(List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(ChildJvm.command(ChildJvm.shortLivedOptions("256m"), Mpflc.class.getName()));
        cmd.addAll(args);
        Path err = Files.createTempFile(dir, "run", ".err");
        Process run = new ProcessBuilder(cmd).redirectOutput(Files.createTempFile(dir, "run", ".out").toFile())
                .redirectError(err.toFile()).start();
        try {
            // it ends by itself; 120 s is the margin for a loaded machine, the class timeout the bound
            assertTrue(run.waitFor(120, TimeUnit.SECONDS), args + ": mpflc run ended by itself: " + Files.readString(err));
        } finally {
            run.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        return new Ended(run.exitValue(), Files.readString(err, StandardCharsets.UTF_8));
    }
}
