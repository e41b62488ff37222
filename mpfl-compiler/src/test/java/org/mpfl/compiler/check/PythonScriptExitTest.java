package org.mpfl.compiler.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.kernel.PythonScript;
import org.mpfl.testing.Await;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.childjvm.ChildJvm;

/**
 * A JVM that exits while {@link PythonScript} waits for its interpreter (a Ctrl-C of {@code mpflc check} or
 * {@code mpflc run --local} while the kernels are parsed) leaves nothing of the script behind: not its directory,
 * whatever it holds by then, and not the interpreter. Before, the exit deleted the two files it knew of and then the
 * directory, which anything else in it kept (as would a file made between the two deletions), and the interpreter
 * ran on.
 */
@StartsProcesses
class PythonScriptExitTest {

    @Test
    void aJvmExitingWhileTheInterpreterRunsLeavesNeitherItsDirectoryNorTheInterpreter(@TempDir Path tmp) throws Exception {
        // an "interpreter" that writes next to its script, says so, and waits to be stopped
        Path python = tmp.resolve("python");
        Files.writeString(python, """
                #!/bin/sh
                : > "$(dirname "$1")/written-by-the-interpreter"
                echo $$ > "$(dirname "$1")/../interpreter.pid.tmp"
                mv "$(dirname "$1")/../interpreter.pid.tmp" "$(dirname "$1")/../interpreter.pid"
                exec sleep 600
                """);
        Files.setPosixFilePermissions(python, PosixFilePermissions.fromString("rwx------"));
        Path scratch = Files.createDirectories(tmp.resolve("scratch"));
        List<String> cmd = new ArrayList<>(ChildJvm.command(List.of("-Djava.io.tmpdir=" + scratch), ExitingJvm.class.getName()));
        cmd.add(python.toString());
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> said = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                said.add(line);
            }
        }
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child JVM did not exit: " + said);
        assertEquals(7, child.exitValue(), "child JVM: " + said);
        long interpreter = Long.parseLong(Files.readString(scratch.resolve("interpreter.pid")).strip());
        try {
            Await.until(Duration.ofSeconds(20), "the interpreter " + interpreter + " ends with the JVM",
                    () -> ProcessHandle.of(interpreter).map(h -> !h.isAlive()).orElse(true));
        } finally {
            ProcessHandle.of(interpreter).ifPresent(ProcessHandle::destroyForcibly);
        }
        try (Stream<Path> left = Files.list(scratch)) {
            assertFalse(left.anyMatch(p -> p.getFileName().toString().startsWith("mpflc-python-")),
                    "the script's directory stayed: " + said);
        }
    }

    /** The child: runs a script with the test's interpreter and exits (status 7) once that interpreter runs. */
    public static final class ExitingJvm {
        public static void main(String[] args) throws Exception {
            Path pid = Path.of(System.getProperty("java.io.tmpdir"), "interpreter.pid");
            Thread asking = new Thread(() -> {
                try {
                    PythonScript.answer(args[0], List.of(), "script.py", "pass\n".getBytes(StandardCharsets.UTF_8), List.of(),
                            "testing", JsonNodeType.OBJECT);
                } catch (Exception e) {
                    System.out.println("answer: " + e);
                }
            }, "asking");
            asking.setDaemon(true);
            asking.start();
            Await.until(Duration.ofSeconds(30), "the interpreter runs", () -> Files.exists(pid));
            System.out.println("the interpreter runs");
            System.exit(7);
        }
    }
}
