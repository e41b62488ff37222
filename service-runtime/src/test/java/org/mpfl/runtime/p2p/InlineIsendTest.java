package org.mpfl.runtime.p2p;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.Request;
import org.mpfl.runtime.api.RankProgram;

/**
 * A small isend over the binary channel is written on the sender's own thread, without a copy of
 * its array and without waiting for the answer (no hand-over to the lane's background sender).
 * What must still hold: every message arrives once, in order, with the contents it had when the
 * isend was called; a request completes only when its message is stored, so an isend answered BUSY
 * is resent from the caller's array; and changing the array after completion changes nothing.
 */
class InlineIsendTest {
    private static final int TAG = 3;
    private static final Duration LIMIT = Duration.ofSeconds(30);

    private static void assertAllOk(List<InProcessCluster.RankResult> results) {
        for (InProcessCluster.RankResult r : results) {
            assertNull(r.failure(), () -> "rank " + r.rank() + " failed: " + r.failure());
        }
    }

    /** Message {@code i}: {@code longs} times i, but i² first. */
    private static long[] numbered(int i, int longs) {
        long[] a = new long[longs];
        Arrays.fill(a, i);
        a[0] = (long) i * i;
        return a;
    }

    /** Rank 0 isends {@code count} arrays of {@code longs} numbered longs to rank 1, waits for all, then overwrites them. */
    private static RankProgram numberedIsends(int count, int longs, long receiverDelayMs) {
        return ctx -> {
            Communicator w = ctx.world();
            if (w.rank() == 0) {
                w.send(new long[] {-1}, 1, TAG); // the lane picks its transport with this one
                List<long[]> arrays = new ArrayList<>();
                List<Request> requests = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    long[] a = numbered(i, longs);
                    arrays.add(a);
                    requests.add(w.isend(a, 1, TAG));
                }
                Request.awaitAll(requests.toArray(Request[]::new));
                for (long[] a : arrays) {
                    Arrays.fill(a, -7); // after completion the message is the receiver's
                }
                w.send(new long[] {-2}, 1, TAG);
            } else {
                Thread.sleep(receiverDelayMs);
                assertArrayEquals(new long[] {-1}, (long[]) w.recv(0, TAG, LIMIT).value());
                for (int i = 0; i < count; i++) {
                    assertArrayEquals(numbered(i, longs), (long[]) w.recv(0, TAG, LIMIT).value(), "message " + i);
                }
                assertArrayEquals(new long[] {-2}, (long[]) w.recv(0, TAG, LIMIT).value(), "nothing after the last");
                ctx.output("received", count);
            }
        };
    }

    @Test
    void smallIsendsArriveOnceInOrderWithTheirContents() {
        try (InProcessCluster cluster = InProcessCluster.start(2, MessagingSettings.fromSystemProperties())) {
            List<InProcessCluster.RankResult> results = cluster.run(new int[] {0, 1}, "binary", Map.of(),
                    numberedIsends(500, 4, 0)).await(LIMIT);
            assertAllOk(results);
            assertEquals(500, results.get(1).outputs().get("received"));
        }
    }

    /**
     * The receiver's buffer takes 16 KB; rank 0 isends 100 × 2 KB while rank 1 does not receive for
     * 300 ms, so most isends are answered BUSY and resent by the lane from the caller's arrays.
     */
    @Test
    void isendsAnsweredBusyAreResentFromTheCallersArrays() {
        MessagingSettings small = MessagingSettings.fromSystemProperties().withUnexpectedLimitBytes(16 * 1024);
        try (InProcessCluster cluster = InProcessCluster.start(2, small)) {
            List<InProcessCluster.RankResult> results = cluster.run(new int[] {0, 1}, "binary", Map.of(),
                    numberedIsends(100, 256, 300)).await(LIMIT);
            assertAllOk(results);
            assertEquals(100, results.get(1).outputs().get("received"));
        }
    }
}
