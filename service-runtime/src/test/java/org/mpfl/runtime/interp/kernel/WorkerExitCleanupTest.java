package org.mpfl.runtime.interp.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.ir.MpflType;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.TaggedSleeps;
import org.mpfl.testing.childjvm.ChildJvm;

/**
 * A JVM that exits while a rank still has its kernel worker (a failed rank ends {@code mpflc run --local} while
 * the other ranks start theirs) leaves nothing behind: no shared-memory file in {@code /dev/shm}, no socket
 * directory in the temporary directory, no worker process, no process the worker started (a Python kernel's
 * children and an orphan of theirs; a starting command worker's background jobs). Each case runs in a child JVM
 * that exits with {@code System.exit} and prints what it had; this JVM then looks for it.
 */
@StartsProcesses
class WorkerExitCleanupTest {
    private static final String PYTHON = System.getProperty("mpfl.test.python", "/usr/bin/python3");
    private final TaggedSleeps sleeps = TaggedSleeps.tag();

    @AfterEach
    void killLeftovers() {
        sleeps.kill();
    }

    @Test
    void aJvmExitingWithAnOpenPythonWorkerRemovesItsFilesAndProcess(@TempDir Path tmp) throws Exception {
        assertNothingLeftBy(runChild(tmp, "open"), tmp);
    }

    @Test
    void aJvmExitingWhileAWorkerStartsRemovesItsFilesAndProcess(@TempDir Path tmp) throws Exception {
        assertNothingLeftBy(runChild(tmp, "starting"), tmp);
    }

    /**
     * A rank that starts its Python worker while the JVM already exits (Ctrl-C of {@code mpflc run --local} as the
     * rank starts: the other threads run on while the shutdown hooks run, one of which waits for the cancelled run's
     * last line) leaves no Python runtime directory, socket directory, shared-memory file or worker. Before the fix
     * the runtime module's directory ({@code mpfl-kernel-py-*}) was made, its removal could no longer be registered,
     * and it stayed.
     */
    @Test
    void aRankStartingItsWorkerWhileTheJvmExitsLeavesNothing(@TempDir Path tmp) throws Exception {
        List<String> said = runChild(tmp, "exiting");
        assertTrue(said.stream().anyMatch(l -> l.startsWith("script ")), "the child tried to start its worker: " + said);
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(), left.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("mpfl-k")).toList(),
                    "kernel directories left in the child's temporary directory: " + said);
        }
        String pid = value(said, "pid");
        try (Stream<Path> shm = Files.list(Path.of("/dev/shm"))) {
            assertEquals(List.of(), shm.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("mpfl-kernel-" + pid + "-"))
                    .toList(), "shared-memory files of the child left: " + said);
        }
        assertEquals(List.of(), ProcessHandle.allProcesses().filter(h -> h.isAlive()
                && h.info().arguments().map(a -> String.join(" ", a).contains(tmp.toString())).orElse(false))
                .map(ProcessHandle::pid).toList(), "workers of the child left running: " + said);
    }

    /**
     * The child said where its worker's shared-memory file was and which process the worker was: both are gone,
     * and so are the processes the worker started.
     */
    private void assertNothingLeftBy(List<String> said, Path tmp) throws Exception {
        assertTrue(said.contains("started " + sleeps.first()), "the worker had started its processes: " + said);
        assertGone(Path.of(value(said, "shm")), Long.parseLong(value(said, "worker")), tmp);
        sleeps.awaitNone(Duration.ofSeconds(20), "no process the worker started outlives the JVM");
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

    private List<String> runChild(Path tmp, String mode) throws Exception {
        List<String> cmd = new ArrayList<>(ChildJvm.command(List.of("-Djava.io.tmpdir=" + tmp, "-Dmpfl.test.python=" + PYTHON),
                ExitingJvm.class.getName()));
        cmd.add(mode);
        cmd.add(Long.toString(sleeps.first()));
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

    /**
     * The child: starts a worker that starts processes sleeping the test's numbers (args[1] on), and exits (status 7)
     * with the worker open, or while it starts, printing what it made.
     */
    public static final class ExitingJvm {
        /**
         * Exits (status 7) and, while a shutdown hook holds the exit (as the cancel of a followed run does), starts a
         * Python worker as a rank would; says what it got.
         */
        static void startWhileExiting() throws Exception {
            System.out.println("pid " + ProcessHandle.current().pid());
            CountDownLatch exiting = new CountDownLatch(1);
            CountDownLatch tried = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                exiting.countDown();
                try {
                    tried.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "holds-the-exit"));
            new Thread(() -> System.exit(7), "exits").start();
            exiting.await();
            try {
                Path script = RankKernels.script();
                System.out.println("script " + script);
                KernelWorker worker = KernelWorker.start("the python worker", List.of(System.getProperty("mpfl.test.python"), "-u",
                        script.toString()), Map.of(), null, (level, text) -> { }, 30_000, 1 << 20);
                System.out.println("started " + worker.arena().file());
            } catch (Throwable e) { // before the fix, an IllegalStateException from Runtime.addShutdownHook
                System.out.println("script refused: " + e);
            }
            System.out.flush();
            tried.countDown();
            Thread.sleep(60_000); // the exit ends this thread
        }

        public static void main(String[] args) throws Exception {
            long tag = Long.parseLong(args[1]);
            if (args[0].equals("exiting")) {
                startWhileExiting();
                return;
            }
            if (args[0].equals("open")) {
                // the Python worker's kernel (kernels:spawn of the interpreter tests) starts five and returns
                Path kernels = Files.createTempDirectory("kernels"); // in the test's temporary directory: JUnit removes it
                try (InputStream in = ExitingJvm.class.getResourceAsStream("/interp/pykernels/kernels.py")) {
                    Files.copy(in, kernels.resolve("kernels.py"));
                }
                List<String> python = List.of(System.getProperty("mpfl.test.python"), "-u", RankKernels.script().toString());
                KernelWorker worker = KernelWorker.start("the python worker", python, Map.of("MPFL_KERNEL_PATH", kernels.toString()),
                        null, (level, text) -> { }, 30_000, 1 << 20);
                System.out.println("shm " + worker.arena().file());
                System.out.println("worker " + ProcessHandle.current().children().findFirst().orElseThrow().pid());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                String loaded = worker.exchange("load kernels:spawn", deadline);
                if (!loaded.startsWith("ok")) {
                    System.out.println("cannot load: " + loaded);
                    System.exit(1);
                }
                Map<String, Object> inputs = new LinkedHashMap<>();
                inputs.put("x", 0.0);
                inputs.put("mode", "end");
                inputs.put("tag", tag);
                inputs.put("pidfile", "");
                KernelCall.call(worker, "kernels:spawn", inputs, Map.of("y", MpflType.DOUBLE));
                System.out.println("started " + tag);
                System.exit(7);
            }
            // a worker that never connects: the JVM exits while KernelWorker.start waits for it
            CountDownLatch started = new CountDownLatch(1);
            Thread rank = new Thread(() -> {
                try {
                    // a background job, and an orphan of a subshell that exited: both in the worker's session; both
                    // run before the worker says its pid
                    String script = "echo shm $MPFL_KERNEL_SHM; sleep " + tag + " & (sleep " + (tag + 1) + " &); "
                            + "while [ \"$(pgrep -cf '^sleep (" + tag + "|" + (tag + 1) + ")$')\" != 2 ]; do sleep 0.01; done; "
                            + "echo started " + tag + "; echo worker $$; exec sleep 600";
                    KernelWorker.start("the command worker", List.of("sh", "-c", script), Map.of(), null, (level, text) -> {
                        System.out.println(text);
                        if (text.startsWith("worker ")) {
                            started.countDown();
                        }
                    }, 120_000, 1 << 20);
                } catch (KernelFailure | java.io.InterruptedIOException e) {
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
