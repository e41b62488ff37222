package org.mpfl.runtime.interp.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.childjvm.ChildJvm;

/**
 * A JVM that exits while a rank still has its kernel worker (a failed rank ends {@code mpflc run --local} while
 * the other ranks start theirs) leaves nothing behind: no shared-memory file in {@code /dev/shm}, no socket
 * directory in the temporary directory, no worker process. Each case runs in a child JVM that exits with
 * {@code System.exit} and prints what it had; this JVM then looks for it.
 */
@StartsProcesses
class WorkerExitCleanupTest {
    private static final String PYTHON = System.getProperty("mpfl.test.python", "/usr/bin/python3");

    @Test
    void aJvmExitingWithAnOpenPythonWorkerRemovesItsFilesAndProcess(@TempDir Path tmp) throws Exception {
        assertNothingLeftBy(runChild(tmp, "open"), tmp);
    }

    @Test
    void aJvmExitingWhileAWorkerStartsRemovesItsFilesAndProcess(@TempDir Path tmp) throws Exception {
        assertNothingLeftBy(runChild(tmp, "starting"), tmp);
    }

    /** The child said where its worker's shared-memory file was and which process the worker was: both are gone. */
    private static void assertNothingLeftBy(List<String> said, Path tmp) throws Exception {
        assertGone(Path.of(value(said, "shm")), Long.parseLong(value(said, "worker")), tmp);
    }

    private static void assertGone(Path shm, long worker, Path tmp) throws IOException, InterruptedException {
        assertTrue(shm.getFileName().toString().startsWith("mpfl-kernel-"), shm.toString());
        assertFalse(Files.exists(shm), "the worker's shared-memory file is left: " + shm);
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(), left.filter(p -> p.getFileName().toString().startsWith("mpfl-k")).toList(),
                    "socket directories left in the child's temporary directory");
        }
        // the worker is killed by the exiting JVM; its parent gone, init reaps it (or it stays a zombie, which runs nothing)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (running(worker) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertFalse(running(worker), "worker process " + worker + " outlived the JVM that started it");
    }

    private static boolean running(long pid) throws IOException {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        if (!Files.exists(stat)) {
            return false;
        }
        try {
            String s = Files.readString(stat);
            return !s.substring(s.lastIndexOf(')') + 2).startsWith("Z");
        } catch (IOException e) {
            return false; // gone between the two reads
        }
    }

    private static String value(List<String> said, String key) {
        return said.stream().filter(l -> l.startsWith(key + " ")).map(l -> l.substring(key.length() + 1)).findFirst()
                .orElseThrow(() -> new AssertionError("the child did not say " + key + ": " + said));
    }

    private static List<String> runChild(Path tmp, String mode) throws Exception {
        List<String> cmd = new ArrayList<>(ChildJvm.command(List.of("-Djava.io.tmpdir=" + tmp, "-Dmpfl.test.python=" + PYTHON),
                ExitingJvm.class.getName()));
        cmd.add(mode);
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                lines.add(line);
            }
        }
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child JVM did not exit: " + lines);
        assertEquals(7, child.exitValue(), "child JVM: " + lines);
        return lines;
    }

    /** The child: starts a worker and exits (status 7) with it open, or while it starts, printing what it made. */
    public static final class ExitingJvm {
        public static void main(String[] args) throws Exception {
            if (args[0].equals("open")) {
                KernelWorker worker = KernelWorker.start("the python worker", List.of(System.getProperty("mpfl.test.python"), "-u",
                        RankKernels.script().toString()), Map.of(), null, (level, text) -> { }, 30_000, 1 << 20);
                System.out.println("shm " + worker.arena().file());
                System.out.println("worker " + ProcessHandle.current().children().findFirst().orElseThrow().pid());
                System.exit(7);
            }
            // a worker that never connects: the JVM exits while KernelWorker.start waits for it
            CountDownLatch started = new CountDownLatch(1);
            Thread rank = new Thread(() -> {
                try {
                    KernelWorker.start("the command worker", List.of("sh", "-c", "echo shm $MPFL_KERNEL_SHM; echo worker $$; exec sleep 600"),
                            Map.of(), null, (level, text) -> {
                                System.out.println(text);
                                if (text.startsWith("worker ")) {
                                    started.countDown();
                                }
                            }, 120_000, 1 << 20);
                } catch (KernelFailure e) {
                    System.out.println("failed " + e.getMessage());
                }
            }, "rank-0");
            rank.setDaemon(true);
            rank.start();
            if (!started.await(30, TimeUnit.SECONDS)) {
                System.out.println("the worker did not start");
                System.exit(1);
            }
            System.exit(7);
        }
    }
}
