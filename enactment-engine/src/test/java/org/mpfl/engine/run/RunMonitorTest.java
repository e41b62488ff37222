package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.registry.HostRegistry;
import org.mpfl.engine.store.EngineDatabase;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.FaultKind;
import org.mpfl.protocol.RankEvent;
import org.mpfl.testing.Await;

/**
 * Monitoring reports to the lifecycle through {@link RunFaults} alone: what a rank's events mean for
 * the run (all done: succeeded; a workflow fault: failed; a lost host: an infrastructure fault of the
 * run's current domain), events of another domain refused, and every applied event in the run's log.
 * In process: a recording {@link RunFaults}, an embedded H2 database, no hosts.
 */
class RunMonitorTest {
    @TempDir
    Path dir;

    private EngineDatabase db;
    private ExecutorService workers;
    private final List<String> reported = new CopyOnWriteArrayList<>();
    private final RunFaults faults = new RunFaults() {
        @Override
        public void succeeded(Run run) {
            reported.add("succeeded " + run.id());
        }

        @Override
        public void failed(Run run, RunError error) {
            reported.add("failed " + run.id() + ": rank " + error.rank() + " " + error.message());
        }

        @Override
        public void infrastructureFault(Run run, String domainId, RunError error, Map<String, String> lostHosts) {
            reported.add("infrastructure " + run.id() + " " + domainId + " " + lostHosts.keySet() + ": " + error.message());
        }
    };
    private final LiveRuns runs = new LiveRuns();
    private RunMonitor monitor;
    private HostRegistry registry;

    @BeforeEach
    void open() throws Exception {
        db = EngineDatabase.openEmbedded(dir);
        workers = Executors.newCachedThreadPool();
        registry = new HostRegistry(Duration.ofSeconds(60));
        monitor = new RunMonitor(runs, db.runs(), new RunJournal(db.runs()), faults, registry,
                null, RunSettings.defaults(), workers);
    }

    @AfterEach
    void close() {
        workers.shutdownNow();
        db.close();
    }

    private Run running() {
        Run run = new Run("r", "w", "d1", "t1", Map.of(), 1);
        run.placed(List.of(new RankPlacement(0, "p", "s", "h0", new Endpoint("http://h0/s", null, "h0")),
                new RankPlacement(1, "p", "s", "h1", new Endpoint("http://h1/s", null, "h1"))));
        run.endStartup();
        run.markRunning(2, true);
        runs.adopt(run);
        return run;
    }

    private static RankEvent state(String domain, int rank, long seq, String state, String message) {
        return state(domain, rank, seq, state, message, null);
    }

    private static RankEvent state(String domain, int rank, long seq, String state, String message, FaultKind fault) {
        return new RankEvent(domain, rank, seq, 10 + seq, RankEvent.Type.STATE, state, "compute", "w.mpfl.xml:3:5", message,
                null, null, null, fault);
    }

    @Test
    void everyRankDoneIsASuccessReportedOnce() throws Exception {
        running();
        monitor.rankEvents("r", List.of(state("d1", 0, 1, "DONE", null)));
        assertEquals(List.of(), reported, "one rank of two done: nothing to report");
        monitor.rankEvents("r", List.of(state("d1", 1, 1, "DONE", null), state("d1", 1, 1, "DONE", null)));
        assertEquals(List.of("succeeded r"), reported, "reported once, whatever repeats");
        assertEquals(2, db.runs().events("r", 0, 10).size(), "each event is in the log once, as in the detail: "
                + db.runs().events("r", 0, 10));
    }

    @Test
    void aWorkflowFaultFailsTheRunWithTheRanksError() throws Exception {
        running();
        monitor.rankEvents("r", List.of(state("d1", 1, 1, "FAILED", "RuntimeFault: division by zero")));
        assertEquals(List.of("failed r: rank 1 RuntimeFault: division by zero"), reported);
    }

    /**
     * A kernel's own exception may say anything, "kernel worker lost:" and "peer unreachable:" too: its host says it
     * is the workflow's fault, and the run fails at once (no settling, no restart), whatever the text.
     */
    @Test
    void aFailureWhoseTextSaysLostOrUnreachableIsTheWorkflowsWhenItsHostSaysSo() throws Exception {
        running();
        String lie = "compute python m:f: kernel m:f raised an exception:\nRuntimeError: kernel worker lost: just kidding";
        monitor.rankEvents("r", List.of(state("d1", 1, 1, "FAILED", lie, FaultKind.WORKFLOW)));
        assertEquals(List.of("failed r: rank 1 " + lie), reported);
    }

    @Test
    void aFailureItsHostSaysIsTheInfrastructuresIsAnInfrastructureFaultWhateverItsText() throws Exception {
        running();
        monitor.rankEvents("r", List.of(state("d1", 0, 1, "FAILED", "the worker went away", FaultKind.INFRASTRUCTURE)));
        Await.until(Duration.ofSeconds(30), "the fault reported after the settling time", () -> !reported.isEmpty());
        assertEquals(List.of("infrastructure r d1 []: the worker went away"), reported);
    }

    /**
     * The other ranks a rank's infrastructure fault stopped end ABORTED after it: the fault stays the cause the run
     * restarts after, never the abort it caused. The last ABORTED was taken as "every rank aborted and nobody said
     * why", whose settling raced the fault's own: at load ~20 (KernelFaultRestartTest) the restart's cause read
     * "DomainAbortedException: … was aborted: rank 0 failed" instead of the SIGKILLed kernel worker.
     */
    @Test
    void theAbortAnInfrastructureFaultCausedIsNeverReportedAsTheCause() throws Exception {
        running();
        String killed = "kernel worker lost: python worker was killed by signal 9 (SIGKILL) from outside";
        monitor.rankEvents("r", List.of(state("d1", 0, 1, "FAILED", killed, FaultKind.INFRASTRUCTURE)));
        monitor.rankEvents("r", List.of(state("d1", 1, 1, "FAILED", "DomainAbortedException: domain d1 was aborted: rank 0 failed",
                FaultKind.WORKFLOW)));
        // every decision was submitted with the events: let them all run out, then read what was reported
        workers.shutdown();
        assertTrue(workers.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(List.of("infrastructure r d1 []: " + killed), reported);
    }

    /** The status poll learns a failure's kind as events do (the FAILED event may have been lost on the way). */
    @Test
    void aFailureLearntFromStatusKeepsItsKind() throws Exception {
        Run run = running();
        RankStatus lost = new RankStatus("FAILED", null, null, "peer unreachable: send to rank 1 failed", null, null,
                FaultKind.INFRASTRUCTURE);
        monitor.applyStatus(run, 0, lost); // the first poll gives the rank's own FAILED event time to arrive
        monitor.applyStatus(run, 0, lost);
        Await.until(Duration.ofSeconds(30), "the fault reported after the settling time", () -> !reported.isEmpty());
        assertEquals(List.of("infrastructure r d1 []: peer unreachable: send to rank 1 failed"), reported);

        RankStatus own = new RankStatus("FAILED", null, null, "peer unreachable: (a kernel's own words)", null, null,
                FaultKind.WORKFLOW);
        monitor.applyStatus(run, 1, own);
        monitor.applyStatus(run, 1, own);
        assertEquals("failed r: rank 1 peer unreachable: (a kernel's own words)", reported.get(1), reported.toString());
    }

    @Test
    void anEventOfAnotherDomainIsRefusedAndChangesNothing() {
        running();
        assertThrows(ForeignEventException.class, () -> monitor.rankEvents("r", List.of(state("forged", 0, 1, "FAILED", "x"))));
        assertThrows(UnknownRunException.class, () -> monitor.rankEvents("nope", List.of(state("d1", 0, 1, "DONE", null))));
        assertEquals(List.of(), reported);
    }

    @Test
    void aLostHostIsAnInfrastructureFaultOfTheCurrentDomain() {
        registry.announce(new org.mpfl.engine.registry.HostAnnouncement("h0", "http://h0/s", null, List.of("s"), 1, null));
        running();
        monitor.hostLost(new org.mpfl.engine.registry.HostInfo("h1", "http://h1/s", null, Set.of("s"), 1, 0, false, null),
                HostRegistry.Departure.LOST);
        assertEquals(1, reported.size(), reported.toString());
        assertTrue(reported.get(0).startsWith("infrastructure r d1 [h1]: service host h1"), reported.toString());
        assertFalse(reported.get(0).contains("unreachable as well"), reported.toString());
    }

    /** A gateway cut loses several hosts at once: the fault names every one of the run's hosts that is gone, not the first. */
    @Test
    void aLostHostNamesTheRunsOtherHostsThatAreGoneToo() {
        running(); // h0 is not (or no longer) in the registry
        monitor.hostLost(new org.mpfl.engine.registry.HostInfo("h1", "http://h1/s", null, Set.of("s"), 1, 0, false, null),
                HostRegistry.Departure.LOST);
        assertEquals(1, reported.size(), reported.toString());
        assertTrue(reported.get(0).startsWith("infrastructure r d1 [h0, h1]: service host h1"), reported.toString());
        assertTrue(reported.get(0).contains("unreachable as well: h0 (left the registry)"), reported.toString());
    }
}
