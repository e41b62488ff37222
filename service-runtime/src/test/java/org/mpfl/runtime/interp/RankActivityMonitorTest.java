package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.protocol.RunRequest;
import org.mpfl.runtime.monitor.RankMonitor;

/** WAIT/ACTIVITY reporting, driven by explicit scans instead of the watchdog's clock. */
class RankActivityMonitorTest {
    private static final SourceLocation AT = new SourceLocation("w.mpfl.xml", 3, 5);

    static final class Sink implements RankMonitor {
        final List<String> events = new ArrayList<>();

        @Override
        public List<RunRequest.ProcessSlice> processes() {
            return List.of();
        }

        @Override
        public void activity(String activity, String location) {
            events.add("ACTIVITY " + activity + " " + location);
        }

        @Override
        public void waiting(String activity, String location, String waitingFor) {
            events.add("WAIT " + activity + " " + location + " " + waitingFor);
        }
    }

    private static long ms(long v) {
        return TimeUnit.MILLISECONDS.toNanos(v);
    }

    @Test
    void aWaitIsReportedOnlyAfterTheThresholdAndClearedWhenTheCallReturns() {
        Sink sink = new Sink();
        RankActivityMonitor m = new RankActivityMonitor(sink);
        RankActivityMonitor.Blocking b = m.begin("receive", AT, () -> "receive from 1 tag 0 comm world");
        long start = b.startNanos;
        m.scan(start + ms(5));
        assertEquals(List.of(), sink.events, "a short block is not a wait");
        m.scan(start + ms(RankActivityMonitor.WAIT_AFTER_MS + 1));
        m.scan(start + ms(RankActivityMonitor.WAIT_AFTER_MS + 50));
        m.end(b);
        assertEquals(List.of("WAIT receive w.mpfl.xml:3:5 receive from 1 tag 0 comm world", "ACTIVITY receive w.mpfl.xml:3:5"),
                sink.events, "one WAIT while blocked, one clearing ACTIVITY");
    }

    @Test
    void aRankBlockingAgainSoonIsReportedOnlyAfterALongerBlock() {
        Sink sink = new Sink();
        RankActivityMonitor m = new RankActivityMonitor(sink);
        RankActivityMonitor.Blocking first = m.begin("receive", AT, () -> "receive from 1");
        m.scan(first.startNanos + ms(20));
        m.end(first);
        RankActivityMonitor.Blocking second = m.begin("receive", AT, () -> "receive from 1");
        m.scan(second.startNanos + ms(20));
        assertEquals(2, sink.events.size(), "not reported again after 20 ms: " + sink.events);
        m.scan(second.startNanos + ms(RankActivityMonitor.WAIT_AFTER_RECENT_MS + 1));
        assertEquals(3, sink.events.size(), "a real hang is still reported: " + sink.events);
        m.end(second);
    }

    @Test
    void withParallelBranchesTheRankWaitsOnlyWhenEveryBranchIsBlocked() {
        Sink sink = new Sink();
        RankActivityMonitor m = new RankActivityMonitor(sink);
        m.branchesStarted(2);
        RankActivityMonitor.Blocking a = m.begin("receive", AT, () -> "receive from 1");
        m.scan(a.startNanos + ms(100));
        assertEquals(List.of(), sink.events, "the other branch still runs");
        RankActivityMonitor.Blocking b = m.begin("send", AT, () -> "ssend to 2");
        m.scan(b.startNanos + ms(100));
        assertEquals(1, sink.events.size());
        assertTrue(sink.events.get(0).endsWith("receive from 1; ssend to 2"), sink.events.get(0));
        m.end(b);
        m.end(a);
        m.branchesEnded(2);
        assertEquals(2, sink.events.size(), "cleared once: " + sink.events);
    }

    @Test
    void theActivityAfterAClearedWaitIsReportedRightAway() {
        Sink sink = new Sink();
        RankActivityMonitor m = new RankActivityMonitor(sink);
        RankActivityMonitor.Blocking b = m.begin("receive", AT, () -> "receive from 1");
        m.scan(b.startNanos + ms(RankActivityMonitor.WAIT_AFTER_MS + 1));
        m.end(b);
        m.reached("compute", AT);
        assertEquals(List.of("WAIT receive w.mpfl.xml:3:5 receive from 1", "ACTIVITY receive w.mpfl.xml:3:5",
                "ACTIVITY compute w.mpfl.xml:3:5"), sink.events,
                "the clearing event does not restart the sampling clock, so the compute after the wait is shown");
    }

    @Test
    void activitiesAreSampled() {
        Sink sink = new Sink();
        RankActivityMonitor m = new RankActivityMonitor(sink);
        for (int i = 0; i < 1000; i++) {
            m.reached("send", AT);
        }
        assertEquals(List.of("ACTIVITY send w.mpfl.xml:3:5"), sink.events);
    }

    @Test
    void aComputeIsInterruptedOnceTheDomainIsAborted() throws Exception {
        Sink sink = new Sink();
        RankActivityMonitor m = new RankActivityMonitor(sink);
        boolean[] aborted = {false};
        m.watchAbort(() -> aborted[0]);
        m.busyStart();
        m.scan(System.nanoTime());
        assertTrue(!Thread.currentThread().isInterrupted());
        aborted[0] = true;
        m.scan(System.nanoTime());
        assertTrue(Thread.interrupted(), "interrupted, and the flag is cleared here");
        m.scan(System.nanoTime());
        m.busyEnd();
        assertTrue(!Thread.interrupted(), "only once");
    }
}
