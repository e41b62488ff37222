package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.mpfl.testing.Await;

/**
 * What {@code mpflc run DOC --local} does itself, beyond {@link InProcessDocumentRunTest}'s cases: {@code --timeout}
 * cancelling the run and ending its rank threads, and ranks that open no socket. A class of its own so that its
 * waits (a run held for seconds) go beside the cases' in another test JVM.
 */
class InProcessRunEndsTest extends DocumentRuns {

    @Override
    List<String> where() {
        return List.of("--local");
    }

    @Test
    void aTimeoutCancelsARunThatWouldWaitForeverAndEndsItsRanks() throws Exception {
        long start = System.nanoTime();
        // the deadlock document's ranks wait for each other; --timeout 1 comes before the deadlock watch (5 s)
        Result r = run("deadlock", List.of("--timeout", "1"));
        assertEquals("CANCELLED", r.state(), r.err());
        assertEquals(1, r.exit());
        assertEquals("cancelled: --timeout 1 s passed", r.json().at("/error/message").asText(), "not a user's cancel: "
                + r.json());
        // bounded: 1 s of timeout, then the cancel ends the ranks at their wait; 30 s is a margin for a loaded
        // 2-core machine (the run itself needs well under a second there), not a measurement
        assertTrue(System.nanoTime() - start < 30_000_000_000L, "ended within 30 s");
        // the aborted ranks end at their wait: waited for (30 s, the same margin), not assumed
        Await.until(Duration.ofSeconds(30), "every rank thread of the cancelled run ended", () -> Thread.getAllStackTraces()
                .keySet().stream().noneMatch(t -> t.getName().startsWith("mpfl-rank-") && t.isAlive()));
    }

    /**
     * The ranks in this JVM send their messages without token proofs, which is safe only while nothing outside
     * the JVM can reach them: while a run's ranks live, this JVM has no socket it did not have before the run
     * (its file descriptors, read from {@code /proc/self/fd}), listening or other.
     */
    @Test
    void theRanksOfARunInThisJvmOpenNoSocket() throws Exception {
        assertRankThreadsGone();
        Set<String> before = sockets();
        ExecutorService runner = Executors.newSingleThreadExecutor();
        try {
            // the deadlock document's ranks wait for each other until --timeout cancels the run: time to look. 3 s, not 5:
            // the deadlock detector calls it after the ranks stood blocked for 5 s (RunSettings' grace), so a timeout
            // of 5 s raced it, and a loaded CI machine saw the run FAILED as deadlocked instead of CANCELLED
            Future<Result> run = runner.submit(() -> run("deadlock", List.of("--timeout", "3")));
            Await.until(Duration.ofSeconds(30), "the run's ranks are running", () -> Thread.getAllStackTraces().keySet()
                    .stream().anyMatch(t -> t.getName().startsWith("mpfl-rank-") && t.isAlive()));
            Set<String> during = sockets();
            during.removeAll(before);
            assertEquals(Set.of(), during, "sockets opened by the run in this JVM");
            // 60 s: 3 s of timeout and the cancel, with a margin for a loaded 2-core machine
            Result r = run.get(60, TimeUnit.SECONDS);
            assertEquals("CANCELLED", r.state(), r.err());
        } finally {
            runner.shutdownNow();
        }
        assertRankThreadsGone();
    }

    private static void assertRankThreadsGone() throws Exception {
        Await.until(Duration.ofSeconds(30), "no rank thread of an earlier run is alive", () -> Thread.getAllStackTraces()
                .keySet().stream().noneMatch(t -> t.getName().startsWith("mpfl-rank-") && t.isAlive()));
    }

    /** The sockets this JVM has open ({@code socket:[inode]} links in {@code /proc/self/fd}). */
    private static Set<String> sockets() throws IOException {
        Path fds = Path.of("/proc/self/fd");
        assertTrue(Files.isDirectory(fds), "this test reads /proc (Linux)");
        Set<String> out = new TreeSet<>();
        try (var list = Files.list(fds)) {
            for (Path fd : list.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:")) {
                        out.add(target);
                    }
                } catch (IOException gone) {
                    // closed while listed (the listing's own descriptor, say): not open now
                }
            }
        }
        return out;
    }
}
