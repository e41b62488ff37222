package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.docs.DocumentedCommands;

/**
 * Ctrl-C (SIGINT) of {@code bin/mpflc run --local} with a Python kernel, at each step where it makes a kernel's
 * temporary file — while its check runs Python ({@code mpflc-python-*}), once the kernel libraries are unpacked and the
 * rank is about to start its worker ({@code mpfl-kernels-*}), while the worker starts ({@code mpfl-kernel-py-*}) —
 * leaves none of them, no shared-memory file and no worker once the command has ended. Before the fix the check's
 * directories were left every time, and a {@code mpfl-kernel-py-*} directory or a {@code /dev/shm} file now and then:
 * the rank went on starting its worker while the JVM exited. The command has a temporary directory of this test's own.
 */
@StartsProcesses
@Timeout(300)
class InterruptedKernelRunTest {
    @TempDir
    Path dir;

    @Test
    void ctrlCAtEachStepOfAKernelsStartLeavesNoFileAndNoWorker() throws Exception {
        Path document = StoppedLocalRunTest.spinDocument(dir);
        for (String step : List.of("mpflc-python-", "mpfl-kernels-", "mpfl-kernel-py-")) {
            Path tmp = Files.createDirectories(dir.resolve("tmp-" + step));
            try {
                stopAt(step, document, tmp);
            } finally {
                processesOf(tmp).forEach(ProcessHandle::destroyForcibly);
            }
        }
    }

    private void stopAt(String step, Path document, Path tmp) throws Exception {
        Path err = dir.resolve(step + ".err");
        Process p;
        // told by inotify when the file is made: the check's directories live only while its Python runs
        try (WatchService watch = tmp.getFileSystem().newWatchService()) {
            tmp.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
            p = mpflc(document, tmp, err);
            awaitEntry(watch, step, p);
        }
        assertTrue(p.isAlive(), "the run ended before it was stopped: " + Files.readString(err));
        assertEquals(0, new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start().waitFor());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the command ended after SIGINT");
        String context = "stopped at " + step + "; stderr: " + Files.readString(err);
        assertEquals(List.of(), names(tmp).stream().filter(n -> n.startsWith("mpfl")).toList(), "left in TMPDIR, " + context);
        assertEquals(List.of(), names(Path.of("/dev/shm")).stream().filter(n -> n.startsWith("mpfl-kernel-" + p.pid() + "-"))
                .toList(), "shared memory left, " + context);
        assertEquals(List.of(), processesOf(tmp).stream().map(ProcessHandle::pid).toList(), "workers left running, " + context);
    }

    /** The live processes with {@code tmp} in their arguments: the command's JVM and its Python worker. */
    private static List<ProcessHandle> processesOf(Path tmp) {
        return ProcessHandle.allProcesses().filter(h -> h.isAlive() && h.info().arguments()
                .map(a -> String.join(" ", a).contains(tmp.toString())).orElse(false)).toList();
    }

    /** Waits until an entry named {@code prefix}… is made in the watched directory (or {@code p} ended). */
    private static void awaitEntry(WatchService watch, String prefix, Process p) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (p.isAlive() && System.nanoTime() < deadline) {
            WatchKey key = watch.poll(1, TimeUnit.SECONDS);
            if (key == null) {
                continue;
            }
            boolean made = key.pollEvents().stream().anyMatch(e -> e.context().toString().startsWith(prefix));
            key.reset();
            if (made) {
                return;
            }
        }
        throw new AssertionError("no " + prefix + "* was made in the temporary directory within 120 s");
    }

    private static List<String> names(Path directory) throws Exception {
        try (Stream<Path> listed = Files.list(directory)) {
            return listed.map(f -> f.getFileName().toString()).toList();
        }
    }

    /** {@code bin/mpflc run DOCUMENT --local}, SIGINT handled as in a terminal (StoppedLocalRunTest says why). */
    private Process mpflc(Path document, Path tmp, Path err) throws Exception {
        List<String> cmd = List.of("env", "--default-signal=INT", DocumentedCommands.root().resolve("bin/mpflc").toString(), "run",
                document.toString(), "--local", "--python", "/usr/bin/python3");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile());
        pb.environment().put("TMPDIR", tmp.toString());
        pb.environment().put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        pb.environment().remove("MPFL_ENGINE");
        return pb.start();
    }
}
