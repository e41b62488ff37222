package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.ir.cli.Commands;

/**
 * {@code <workflow restarts="1">} run with plain {@code mpflc run --local} (the ranks as threads of the command's JVM:
 * no engine, no checkpoint, docs/cli.md) never restarted, and said nothing of it. Found by a user walkthrough. It now
 * says so in one line, with what restarts it.
 */
class LocalRestartsWarningTest {
    @TempDir
    Path dir;

    private static final String WARNING = "mpflc run: warning: the workflow's restarts=\"1\" does not apply: --local runs the"
            + " ranks in this JVM, with no checkpoint to restart from; --local --restarts 1 or --local --hosts N runs it on a"
            + " local engine, which restarts it";

    private String run(String restarts) throws Exception {
        Path doc = Files.writeString(dir.resolve("r.mpfl.xml"), "<workflow xmlns=\"urn:mpfl:1.0\" name=\"r\"" + restarts + ">"
                + "<process name=\"p\" ranks=\"1\"/></workflow>");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Commands.run(List.of("run", doc.toString(), "--local"),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String said = err.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, said);
        assertTrue(said.contains("running the ranks in this JVM"), said);
        return said;
    }

    @Test
    void restartsThatCannotApplyInThisJvmAreSaidOnce() throws Exception {
        String said = run(" restarts=\"1\"");
        assertEquals(1, said.lines().filter(WARNING::equals).count(), said);
        assertEquals(1, said.lines().filter(l -> l.contains("restarts")).count(), said);
    }

    @Test
    void aWorkflowWithoutRestartsGetsNoWarning() throws Exception {
        assertTrue(run("").lines().noneMatch(l -> l.contains("warning")), "no warning");
        assertTrue(run(" restarts=\"0\"").lines().noneMatch(l -> l.contains("warning")), "no warning for 0");
    }
}
