package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpfl.testing.Await;

/**
 * {@link DocumentRunCases} with {@code mpflc run DOC --local --json}: no engine, no service host, the ranks
 * as threads of the command line's JVM (here the test's), messaging through the in-JVM transport. Threads
 * only, no child process. Plus what only this path does itself: {@code --timeout} cancelling the run.
 */
class InProcessDocumentRunTest extends DocumentRunCases {

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
        assertEquals("cancelled by user", r.json().at("/error/message").asText(), r.json().toString());
        // bounded: 1 s of timeout, then the cancel ends the ranks at their wait; 30 s is a margin for a loaded
        // 2-core machine (the run itself needs well under a second there), not a measurement
        assertTrue(System.nanoTime() - start < 30_000_000_000L, "ended within 30 s");
        // the aborted ranks end at their wait: waited for (30 s, the same margin), not assumed
        Await.until(Duration.ofSeconds(30), "every rank thread of the cancelled run ended", () -> Thread.getAllStackTraces()
                .keySet().stream().noneMatch(t -> t.getName().startsWith("mpfl-rank-") && t.isAlive()));
    }
}
