package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.runtime.interp.kernel.KernelFailure;
import org.mpfl.testing.Await;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.TaggedSleeps;

/**
 * The processes a Python kernel starts are stopped with its worker, however the worker ends: the rank ends, the
 * kernel raises, the worker is killed from outside mid-call, the run aborts the rank mid-call. The kernel
 * ({@code kernels:spawn}) starts five {@code sleep}s of the test's own numbers — a child, a child in a process group
 * of its own, a shell's background job under the shell, and an orphan whose parent exited at once (init's child
 * already while the worker runs) — and waits until all five run; afterwards none may be left.
 */
@StartsProcesses
@Timeout(180)
@ExtendWith(KernelTestPython.ForClass.class)
class KernelChildProcessesTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);
    /** A give-up bound: the rank's end stops them before it returns. */
    private static final Duration GONE = Duration.ofSeconds(20);
    private final TaggedSleeps sleeps = TaggedSleeps.tag();

    @AfterEach
    void killLeftovers() {
        sleeps.kill();
    }

    @Test
    void aRankThatEndsStopsWhatItsKernelStarted() throws Exception {
        Set<Thread> before = pumps();
        InterpreterHarness.Result r = run(Map.of("mode", "end")).succeeded();
        assertEquals(1.0, r.output("y", 0), "the kernel ran to its end");
        sleeps.awaitNone(GONE, "no process the kernel started outlives the rank");
        // the sleeps had the worker's stdout and stderr: with them gone, the threads reading those pipes end too
        Await.until(GONE, "the rank's output pumps ended", () -> newer(pumps(), before), Set::isEmpty);
    }

    @Test
    void aKernelThatRaisesAfterStartingProcessesLeavesNoneRunning() throws Exception {
        RankFault f = run(Map.of("mode", "raise")).singleFault();
        assertTrue(f.getMessage().contains("failed after starting processes"), f.getMessage());
        sleeps.awaitNone(GONE, "no process the failed kernel started outlives the rank");
    }

    @Test
    void aWorkerKilledFromOutsideMidCallTakesWhatItStartedWithIt(@TempDir Path dir) throws Exception {
        Path pidfile = dir.resolve("pid");
        CompletableFuture<InterpreterHarness.Result> run = CompletableFuture.supplyAsync(() ->
                run(Map.of("mode", "kill", "pidfile", pidfile.toString())));
        try {
            Await.until(Duration.ofSeconds(30), "the kernel started its processes", () -> Files.exists(pidfile));
            assertEquals(5, sleeps.live().size(), "all five run: " + sleeps.live());
            String[] said = Files.readString(pidfile).strip().split(" ");
            long worker = Long.parseLong(said[0]);
            // setsid exec'd the interpreter in place: the JVM's own child, the leader of a session of its own
            assertTrue(ProcessHandle.current().children().anyMatch(p -> p.pid() == worker), "the worker is this JVM's child");
            assertEquals(worker, Long.parseLong(said[1]), "the worker leads its session");
            ProcessHandle.of(worker).orElseThrow().destroyForcibly(); // SIGKILL, as the OOM killer would
            // what the worker started goes with it at once, not only when the rank ends
            sleeps.awaitNone(GONE, "no process the killed worker started is left");
            RankFault f = run.get(30, TimeUnit.SECONDS).singleFault();
            assertTrue(f.getMessage().contains(KernelFailure.LOST_MARK), "lost, as before: " + f.getMessage());
        } finally {
            run.cancel(true);
        }
    }

    @Test
    void aRankAbortedMidCallStopsWhatItsKernelStarted(@TempDir Path dir) throws Exception {
        Path pidfile = dir.resolve("pid");
        InterpreterHarness.Result r = run(Map.of("mode", "hang", "pidfile", pidfile.toString(), "ranks", "2"));
        assertFalse(r.timedOut(), "the abort ended rank 0's call");
        assertTrue(Files.exists(pidfile), "rank 0's kernel had started its processes when rank 1 failed");
        assertTrue(r.rank(1).fault().getMessage().contains("the other rank's kernel is running"), r.failures());
        assertTrue(r.rank(0).aborted(), "rank 0 was aborted: " + r.failures());
        sleeps.awaitNone(GONE, "no process the aborted kernel started is left");
    }

    /** The live threads that read a kernel worker's stdout or stderr (OutputPump). */
    private static Set<Thread> pumps() {
        Set<Thread> found = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("mpfl-kernel-std")) {
                found.add(t);
            }
        }
        return found;
    }

    private static Set<Thread> newer(Set<Thread> now, Set<Thread> before) {
        Set<Thread> left = new HashSet<>(now);
        left.removeAll(before);
        return left;
    }

    private InterpreterHarness.Result run(Map<String, String> params) {
        Map<String, String> all = new HashMap<>(params);
        all.put("tag", Long.toString(sleeps.first()));
        return InterpreterHarness.run("pykernel-orphans.mpfl.xml", all, LIMIT);
    }
}
