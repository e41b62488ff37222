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
 * {@code mpflc up --python PATH} reaches the service hosts it starts (docs/cli.md): an interpreter that does not run
 * is refused by the host at its start, and {@code up} ends saying so, naming the path, rather than serving hosts whose
 * every Python kernel would fail later.
 */
@StartsProcesses
@Timeout(180)
class UpPythonOptionTest {
    @TempDir
    Path dir;

    @Test
    void anInterpreterThatDoesNotRunStopsUpNamingIt() throws Exception {
        // an executable that is no interpreter: a path that is no executable file is refused by up itself, before any
        // host starts (MistypedOptionValuesTest)
        String notPython = "/bin/false";
        List<String> cmd = new ArrayList<>(ChildJvm.command(ChildJvm.shortLivedOptions("256m"), Mpflc.class.getName()));
        cmd.addAll(List.of("up", "--hosts", "1", "--port", "0", "--bind", "127.0.0.1", "--data", dir.resolve("data").toString(),
                "--python", notPython));
        Path out = dir.resolve("up.out");
        Path err = dir.resolve("up.err");
        Process up = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            // it ends by itself once its host refused; 120 s is the margin for a loaded machine, the class timeout the bound
            assertTrue(up.waitFor(120, TimeUnit.SECONDS), "mpflc up ended by itself: " + Files.readString(err));
        } finally {
            up.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String said = Files.readString(err, StandardCharsets.UTF_8);
        assertEquals(1, up.exitValue(), said);
        assertTrue(said.contains("--python " + notPython + " is not a Python 3 interpreter"), "the host names the interpreter: " + said);
        assertTrue(said.contains("service host 0 ended"), "up says which host: " + said);
        assertFalse(said.contains("\tat "), "no stack trace: " + said);
        assertFalse(Files.readString(out).contains("press Ctrl-C"), "it did not go on to serve");
    }
}
