package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpfl.runtime.settings.RuntimeSettings;
import org.mpfl.testing.StartsProcesses;

/**
 * {@code <compute command>}: the C sample (samples/c-kernel/scale.c, compiled here with {@code cc})
 * runs through the documented protocol like a Python kernel; an absolute command outside the
 * workflow's libraries runs only from a directory the host allows.
 */
@StartsProcesses
@Timeout(120)
class CommandKernelTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final Path SAMPLE = Path.of("../samples/c-kernel/scale.c");

    @AfterEach
    void noAllowedDirectories() {
        System.clearProperty(RuntimeSettings.KERNEL_COMMAND_DIRS.name());
    }

    static void compile(Path executable) throws IOException, InterruptedException {
        Files.createDirectories(executable.getParent());
        Process cc = new ProcessBuilder("cc", "-O2", "-o", executable.toString(), SAMPLE.toAbsolutePath().toString())
                .inheritIO().start();
        assertTrue(cc.waitFor(60, TimeUnit.SECONDS), "cc ended");
        assertEquals(0, cc.exitValue(), "cc compiled " + SAMPLE);
    }

    private static Path document(Path dir, String library, String command) throws IOException {
        Path file = Files.createDirectories(dir).resolve("ckernel.mpfl.xml");
        Files.writeString(file, """
                <workflow xmlns="urn:mpfl:1.0" name="ckernel">
                  %s
                  <process name="node" ranks="2">
                    <var name="a" type="double[]" init="fill(5, double(rank + 1))"/>
                    <var name="factor" type="double" init="1.5"/>
                    <var name="total" type="double"/>
                    <compute command="%s" in="a, factor" out="a, total"/>
                    <compute command="%s" in="a, factor" out="a, total"/>
                    <output name="a" value="a"/>
                    <output name="total" value="total"/>
                  </process>
                </workflow>
                """.formatted(library, command, command));
        return file;
    }

    @Test
    void theCSampleRunsThroughTheProtocol(@TempDir Path dir) throws Exception {
        compile(dir.resolve("bin/scale"));
        InterpreterHarness.Result r = InterpreterHarness.run(document(dir, "<library path=\"bin\"/>", "bin/scale"), Map.of(),
                LIMIT).succeeded();
        for (int rank = 0; rank < 2; rank++) {
            double v = (rank + 1) * 1.5 * 1.5;
            assertArrayEquals(new double[] {v, v, v, v, v}, (double[]) r.output("a", rank), "scaled twice in place");
            assertEquals(5 * v, (double) r.output("total", rank), 1e-12);
            assertTrue(r.rank(rank).logs.contains("info: scaled 5 values by 1.5"), "its stdout is the log: " + r.rank(rank).logs);
        }
    }

    @Test
    void anAbsoluteCommandOutsideTheLibrariesNeedsAnAllowedDirectory(@TempDir Path dir) throws Exception {
        Path elsewhere = dir.resolve("tools/scale");
        compile(elsewhere);
        Path file = document(dir.resolve("doc"), "", elsewhere.toString());
        RankFault refused = InterpreterHarness.run(file, Map.of(), LIMIT).anyFault();
        assertTrue(refused.getMessage().contains("is outside the workflow's libraries")
                && refused.getMessage().contains("--allow-command-dir"), refused.getMessage());
        System.setProperty(RuntimeSettings.KERNEL_COMMAND_DIRS.name(), dir.resolve("tools").toString());
        InterpreterHarness.Result allowed = InterpreterHarness.run(file, Map.of(), LIMIT).succeeded();
        assertEquals(5 * 2.25, (double) allowed.output("total", 0), 1e-12);
    }

    /**
     * {@code dir/bin/NAME}: a command worker in Python that connects its control channel ({@code s}), then runs
     * {@code body} — a stand-in for a misbehaving kernel of any language.
     */
    private static void connectedWorker(Path dir, String name, String body) throws IOException {
        worker(dir, name, """
                #!/usr/bin/python3
                import os, socket, struct, time
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(os.environ["MPFL_KERNEL_SOCKET"])
                """ + body);
    }

    /** {@code dir/bin/NAME}, an executable with the text {@code script}. */
    private static void worker(Path dir, String name, String script) throws IOException {
        Path worker = Files.createDirectories(dir.resolve("bin")).resolve(name);
        Files.writeString(worker, script);
        Files.setPosixFilePermissions(worker, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    }

    /**
     * A program that runs and ends without ever connecting (no kernel worker at all, or one failing before it speaks the
     * protocol): the rank fails naming that, its exit status and its last lines, not "did not start" (it ran).
     */
    @Test
    void aProgramThatEndsWithoutConnectingIsNamedSo(@TempDir Path dir) throws Exception {
        worker(dir, "plain", "#!/bin/sh\necho hi from a plain script\nexit 0\n");
        RankFault f = InterpreterHarness.run(document(dir, "<library path=\"bin\"/>", "bin/plain"), Map.of(), LIMIT).anyFault();
        assertTrue(f.getMessage().contains("ended before it connected to its control channel ($MPFL_KERNEL_SOCKET,"
                + " docs/kernel-protocol.md): exited with status 0"), f.getMessage());
    }

    /**
     * A worker that lives on but never connects its channel, or connects it and never says {@code ready 1}: the rank
     * fails after {@code mpfl.kernel.startTimeoutMs}, naming what is missing and the bound.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "false | did not connect within 1500 ms (mpfl.kernel.startTimeoutMs)",
        "true  | connected but sent no 'ready 1' frame within 1500 ms (mpfl.kernel.startTimeoutMs)"})
    void aWorkerThatNeverSaysReadyIsNamedSo(boolean connects, String message, @TempDir Path dir) throws Exception {
        if (connects) {
            connectedWorker(dir, "silent", "time.sleep(30)\n");
        } else {
            worker(dir, "silent", "#!/bin/sh\nexec sleep 30\n");
        }
        System.setProperty(RuntimeSettings.KERNEL_START_TIMEOUT_MS.name(), "1500");
        try {
            RankFault f = InterpreterHarness.run(document(dir, "<library path=\"bin\"/>", "bin/silent"), Map.of(), LIMIT).anyFault();
            assertTrue(f.getMessage().contains(message), f.getMessage());
        } finally {
            System.clearProperty(RuntimeSettings.KERNEL_START_TIMEOUT_MS.name());
        }
    }

    /**
     * A worker that breaks its channel at a call while it lives on: it closes its end (the rank fails at once, and stops
     * the worker after it waited 10 s for its exit), or sends a frame longer than the protocol allows (refused as such).
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "receive(); s.close(); time.sleep(60) | the worker closed the control channel (the worker was stopped)",
        "receive(); s.sendall(struct.pack('<I', 0xffffffff) + b'result'); time.sleep(60)"
                + " | the worker sent a frame of 4294967295 bytes (at most 268435456)"})
    void aWorkerBreakingItsChannelAtACallFailsTheRankSayingHow(String body, String message, @TempDir Path dir) throws Exception {
        readyWorker(dir, "breaker", body + "\n");
        RankFault f = InterpreterHarness.run(document(dir, "<library path=\"bin\"/>", "bin/breaker"), Map.of(), LIMIT).anyFault();
        assertTrue(f.getMessage().contains(message), f.getMessage());
    }

    /**
     * A worker whose exit status comes a while after its channel closed — as a SIGKILLed worker's does when the JVM's
     * reaper thread waits for a core on a loaded machine — is named by that status. Before, the rank read it after
     * 1 s at most, and a SIGKILL from outside (an infrastructure fault, retried) could read as "the worker was stopped"
     * (a workflow fault, not retried).
     */
    @Test
    void aWorkersExitStatusThatComesLateIsStillNamed(@TempDir Path dir) throws Exception {
        readyWorker(dir, "late", "receive(); s.close(); time.sleep(2.5); raise SystemExit(4)\n");
        InterpreterHarness.Result r = InterpreterHarness.run(document(dir, "<library path=\"bin\"/>", "bin/late"), Map.of(), LIMIT);
        // the rank that reads its worker's status first fails the run; another still waiting is interrupted by that
        List<String> faults = r.ranks().stream().map(InterpreterHarness.RankRecord::fault).filter(f -> f != null)
                .map(RankFault::getMessage).toList();
        assertTrue(faults.stream().anyMatch(m -> m.contains("exited with status 4")), faults.toString());
    }

    /**
     * Two ranks' workers fail at a call: one closes its channel and lives on (its rank waits up to 10 s for its exit), the
     * other exits soon after. The second rank's failure aborts the domain while the first still waits: the first rank
     * still names its own worker's cause (before, it said only "ended while the rank was interrupted").
     */
    @Test
    void aRankInterruptedWhileItsWorkerIsStoppedStillNamesTheCause(@TempDir Path dir) throws Exception {
        Path closed = dir.resolve("closed");
        readyWorker(dir, "pair", """
                receive()
                try:
                    os.close(os.open(%s, os.O_CREAT | os.O_EXCL))
                    s.close()
                    time.sleep(60)
                except FileExistsError:
                    time.sleep(0.3)
                    raise SystemExit(3)
                """.formatted("'" + closed + "'"));
        InterpreterHarness.Result r = InterpreterHarness.run(document(dir, "<library path=\"bin\"/>", "bin/pair"), Map.of(), LIMIT);
        List<String> faults = r.ranks().stream().map(InterpreterHarness.RankRecord::fault).filter(f -> f != null)
                .map(RankFault::getMessage).toList();
        assertTrue(faults.stream().allMatch(m -> m.contains("the worker closed the control channel (the worker was stopped)")
                || m.contains("exited with status 3")), faults.toString());
        assertTrue(faults.stream().noneMatch(m -> m.contains("interrupted")), faults.toString());
    }

    /**
     * A worker that begins its answer (the length and a part of the text) and sends no more while it lives: the rank
     * fails once the rest did not come within {@code mpfl.kernel.frameTimeoutMs}. Before, a call has no deadline, and
     * the rank waited as long as the worker lived: this test ran into its limit.
     */
    @Test
    void aFrameBegunAndNeverFinishedFailsTheRankWithinTheFrameTimeout(@TempDir Path dir) throws Exception {
        readyWorker(dir, "truncated", """
                receive()
                s.sendall(struct.pack("<I", 100) + b"result\\nto")
                time.sleep(120)
                """);
        System.setProperty(RuntimeSettings.KERNEL_FRAME_TIMEOUT_MS.name(), "1500");
        try {
            RankFault f = InterpreterHarness.run(document(dir, "<library path=\"bin\"/>", "bin/truncated"), Map.of(), LIMIT)
                    .anyFault();
            assertTrue(f.getMessage().contains("sent 9 of a frame's 100 bytes and no more within 1500 ms"
                    + " (mpfl.kernel.frameTimeoutMs)"), f.getMessage());
        } finally {
            System.clearProperty(RuntimeSettings.KERNEL_FRAME_TIMEOUT_MS.name());
        }
    }

    /** A worker that says {@code ready 1}, then runs {@code body} (with {@code receive()} for a request). */
    private static void readyWorker(Path dir, String name, String body) throws IOException {
        connectedWorker(dir, name, """
                def receive():
                    head = b""
                    while len(head) < 4:
                        head += s.recv(4 - len(head))
                    n, body = struct.unpack("<I", head)[0], b""
                    while len(body) < n:
                        body += s.recv(n - len(body))
                    return body.decode()
                b = b"ready 1"
                s.sendall(struct.pack("<I", len(b)) + b)
                """ + body);
    }

    /**
     * A command that names a new output inside the inputs' regions (below FREE, not an input's own region): refused,
     * naming the output and the rule, where the rank read whatever the inputs' bytes were there.
     */
    @Test
    void anOutputPlacedInsideTheInputsIsRefused(@TempDir Path dir) throws Exception {
        // 'total' fine; 'a' at offset 8 with 3 values: inside input a's region, not a itself
        answeringWorker(dir, "overlap", "result\\na double[] 8 3\\ntotal double 1.0");
        RankFault f = InterpreterHarness.run(document(dir, "<library path=\"bin\"/>", "bin/overlap"), Map.of(), LIMIT).anyFault();
        assertTrue(f.getMessage().contains("returned output 'a' at offset 8, inside the inputs' regions (FREE was 64)"), f.getMessage());
    }

    /**
     * A command that names an output larger than its shared memory (a wrong count, say): refused as lying outside it,
     * where the rank allocated the array first (16 GiB: the JVM's OutOfMemoryError, or the memory taken).
     */
    @Test
    void anOutputLargerThanTheSharedMemoryIsRefusedBeforeAnythingIsAllocated(@TempDir Path dir) throws Exception {
        answeringWorker(dir, "huge", "result\\na double[] 64 2147483647\\ntotal double 1.0");
        RankFault f = InterpreterHarness.run(document(dir, "<library path=\"bin\"/>", "bin/huge"), Map.of(), LIMIT).anyFault();
        assertTrue(f.getMessage().contains("region 64+17179869176 lies outside the shared memory"), f.getMessage());
    }

    /**
     * A result line that does not read as its type fails the rank naming the output and the text: the protocol's
     * {@code boolean} is {@code true} or {@code false} (docs/kernel-protocol.md), as an {@code int} is digits. Before,
     * any other word ({@code yes}, {@code 1}, {@code True}) was read as false, silently. An output sent twice is refused
     * too, where the last line won.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "ok boolean yes     | returned an unreadable boolean value 'yes'",
        "ok boolean True    | returned an unreadable boolean value 'True'",
        "ok boolean true\\ntotal double 2.0 | sent output 'total' twice",
    })
    void aResultLineThatDoesNotReadAsItsTypeIsRefused(String line, String message, @TempDir Path dir) throws Exception {
        answeringWorker(dir, "answers", "result\\ntotal double 1.0\\n" + line.strip());
        Path document = dir.resolve("answers.mpfl.xml");
        Files.writeString(document, """
                <workflow xmlns="urn:mpfl:1.0" name="answers">
                  <library path="bin"/>
                  <process name="node" ranks="1">
                    <var name="total" type="double"/>
                    <var name="ok" type="boolean" init="true"/>
                    <compute command="bin/answers" out="total, ok"/>
                    <output name="ok" value="ok"/>
                  </process>
                </workflow>
                """);
        RankFault f = InterpreterHarness.run(document, Map.of(), LIMIT).anyFault();
        assertTrue(f.getMessage().contains(message.strip()), f.getMessage());
    }

    /**
     * A command that answers a call with {@code error exception} and its message: the rank fails naming the command, as a
     * Python kernel's failure names its {@code MODULE:FUNCTION}. Found by a user walkthrough: it said "kernel - raised an
     * exception", the {@code -} being the call's target on the wire, which a command has none of.
     */
    @Test
    void aCommandsExceptionNamesTheCommand(@TempDir Path dir) throws Exception {
        answeringWorker(dir, "refuses", "error exception\\nfactor must not be negative");
        RankFault f = InterpreterHarness.run(document(dir, "<library path=\"bin\"/>", "bin/refuses"), Map.of(), LIMIT).anyFault();
        assertTrue(f.getMessage().contains("kernel bin/refuses raised an exception:\nfactor must not be negative"), f.getMessage());
    }

    /** A worker that says {@code ready 1} and answers every call with the frame {@code result} (a Python string's text). */
    private static void answeringWorker(Path dir, String name, String result) throws IOException {
        readyWorker(dir, name, """
                while True:
                    request = receive()
                    if request.startswith("exit"):
                        break
                    b = "%s".encode()
                    s.sendall(struct.pack("<I", len(b)) + b)
                """.formatted(result));
    }
}
