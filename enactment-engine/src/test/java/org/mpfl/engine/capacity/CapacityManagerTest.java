package org.mpfl.engine.capacity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.HostCredential;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * Capacity on demand in one engine against a {@link FakeScheduler} (SlurmCapacityTest runs a real Slurm): what the
 * queue says and does when the provider's limits, its scheduler or its jobs stand in the way.
 */
@Timeout(120)
class CapacityManagerTest {
    @TempDir
    Path dir;
    Engine engine;
    final FakeScheduler slurm = new FakeScheduler();

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
    }

    void start(int maxNodes, int cpusPerNode) throws Exception {
        engine = Engine.start(slurm.engineConfig(dir, maxNodes, cpusPerNode));
    }

    String run(int ranks) throws Exception {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", ranks))));
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), body);
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    JsonNode detail(String id) throws Exception {
        return Http.get(engine.url() + "/api/runs/" + id).json();
    }

    String awaitReason(String id, String part) throws Exception {
        return Await.until(Duration.ofSeconds(30), () -> "run " + id + " waits saying '" + part + "'", () -> detail(id),
                d -> d.at("/queue/reason").asText("").contains(part)).at("/queue/reason").asText();
    }

    /** More ranks than --max-nodes × --cpus-per-node can ever bring: the run fails at once, naming the limit and the need. */
    @Test
    void aRunLargerThanTheProviderCanEverBringFailsAtOnceNamingTheLimitAndTheNeed() throws Exception {
        start(2, 4);
        String id = run(9);
        JsonNode d = Await.runEnds(Duration.ofSeconds(30), () -> detail(id));
        assertEquals("FAILED", d.get("state").asText(), d.toString());
        String error = d.at("/error/message").asText();
        assertTrue(error.contains("needs 9 ranks") && error.contains("--max-nodes 2 × --cpus-per-node 4 = 8 places"), error);
        assertTrue(slurm.submitted.isEmpty(), "no job for a run that can never fit: " + slurm.submitted);

        // exactly the most it can bring: it waits for its jobs, the reason naming them
        String fits = run(8);
        String reason = awaitReason(fits, "Slurm job 101 PENDING (Resources)");
        assertTrue(reason.contains("Slurm job 100 PENDING (Resources)"), reason);
        assertEquals("QUEUED", detail(fits).get("state").asText());
    }

    /**
     * With no host registered yet, a queued run's reason says what the provider is doing, first and alone: the hint to
     * enrol a host or start local ones (what an engine without a provider says) is misleading while Slurm starts them.
     */
    @Test
    void withNoHostYetTheReasonIsTheProvidersPartNotTheHintToEnrolOne() throws Exception {
        start(2, 4);
        String id = run(4);
        String reason = awaitReason(id, "Slurm job 100 PENDING (Resources)");
        assertEquals("waiting for a host from Slurm job 100 PENDING (Resources)", reason);
    }

    /**
     * With a host registered that is too small for the run, the reason still leads with what the provider does about it
     * (it led with the placement's "needs 4 places, 2 free…", the Slurm job last), and says the placement's part after.
     */
    @Test
    void withTooFewPlacesTheReasonLeadsWithTheJobOnItsWay() throws Exception {
        engine = Engine.start(slurm.engineConfig(dir, 1, 4).invoker(new FakeRanks(r -> { })));
        HostCredential small = HostCalls.credential(engine, "small");
        Http.Answer a = Http.send("POST", engine.url() + "/api/registry/hosts", small.authorization(),
                Map.of("hostId", "small", "soapUrl", "http://127.0.0.1:1/axis2/services/small", "services", List.of("ring"),
                        "capacity", 2));
        assertEquals(201, a.status(), a.body());
        String id = run(4);
        String reason = awaitReason(id, "Slurm job 100 PENDING (Resources)");
        assertTrue(reason.startsWith("waiting for a host from Slurm job 100 PENDING (Resources); "), reason);
        assertTrue(reason.contains("; needs 4 ranks of 'ring' (service 'ring'); 2 free"), "the placement's part follows: " + reason);
        slurm.set("100", JobStatus.Phase.RUNNING, "RUNNING", "None", "n7");
        reason = awaitReason(id, "Slurm job 100 RUNNING on n7, host starting");
        assertTrue(reason.startsWith("waiting for a host from Slurm job 100 RUNNING on n7, host starting; "), reason);
    }

    /**
     * A run that can never fit, submitted behind a run that waits for its jobs, fails at once naming what it asks and
     * the most there can be (it used to wait behind the head, saying nothing, until its own turn came); after a restart
     * with a smaller --max-nodes, a queued run that no longer fits fails as the engine starts, wherever it stands (no
     * other host holds a credential that could bring it places: aRestoredRunWaitsForTheOtherHosts… covers one that does).
     */
    @Test
    void aRunThatCanNeverFitFailsAtOnceAlsoBehindOthersAndAfterTheLimitsShrink() throws Exception {
        start(2, 4);
        String head = run(4);
        awaitReason(head, "Slurm job 100 PENDING (Resources)");
        String behind = run(9);
        JsonNode d = Await.runEnds(Duration.ofSeconds(30), () -> detail(behind));
        assertEquals("FAILED", d.get("state").asText(), d.toString());
        String error = d.at("/error/message").asText();
        assertTrue(error.contains("needs 9 ranks") && error.contains("--max-nodes 2 × --cpus-per-node 4 = 8 places"), error);
        assertEquals("QUEUED", detail(head).get("state").asText(), "the head still waits for its job");
        assertEquals(List.of("100"), engine.capacity().orElseThrow().jobIds(), "no job for the run that cannot fit");

        String eight = run(8);
        awaitReason(eight, "waiting behind run " + head);
        engine.close();
        FakeScheduler smaller = new FakeScheduler();
        engine = Engine.start(smaller.engineConfig(dir, 1, 4));
        d = Await.runEnds(Duration.ofSeconds(30), () -> detail(eight));
        assertEquals("FAILED", d.get("state").asText(), d.toString());
        assertTrue(d.at("/error/message").asText().contains("needs 8 ranks")
                && d.at("/error/message").asText().contains("--max-nodes 1 × --cpus-per-node 4 = 4 places"), d.toString());
        awaitReason(head, "Slurm job 100 PENDING (Resources)");
    }

    /**
     * A queued run that fits only with a host other than Slurm's (h0, 4 places besides --max-nodes 1 × 4) is queued
     * again after an engine restart and waits while h0 has not announced itself again (it does within a heartbeat),
     * then is placed on h0 and its Slurm job's host. It used to fail at the restarted engine's first look at the queue
     * as "never fits", counting only the hosts registered at that moment.
     */
    @Test
    void aRestoredRunWaitsForTheOtherHostsToAnnounceAgainAndIsPlacedWhenTheyDo() throws Exception {
        engine = Engine.start(slurm.engineConfig(dir, 1, 4).invoker(new FakeRanks(r -> { })));
        HostCredential h0 = HostCalls.credential(engine, "h0");
        announce(h0);
        String id = run(8);
        awaitReason(id, "Slurm job 100 PENDING (Resources)");
        engine.close();

        FakeScheduler again = new FakeScheduler();
        engine = Engine.start(again.engineConfig(dir, 1, 4).invoker(new FakeRanks(r -> { })));
        // the provider's note in the reason: the queue was looked at with the provider's never-fits check
        JsonNode d = Await.until(Duration.ofSeconds(30), "run " + id + " failed or waiting for its Slurm job", () -> detail(id),
                r -> r.path("state").asText().equals("FAILED") || r.at("/queue/reason").asText("").contains("Slurm job 100"));
        assertEquals("QUEUED", d.path("state").asText(), "h0 has not announced itself again yet: " + d);

        announce(h0);
        HostJob job = again.submitted.get(0);
        Http.Answer joined = Http.send("POST", engine.url() + "/api/registry/hosts",
                HostCredential.parse(job.credential(), "the job").authorization(), host(job.hostId()));
        assertEquals(201, joined.status(), joined.body());
        // PENDING (placed, its ranks being started) comes between QUEUED and RUNNING: wait past both
        d = Await.until(Duration.ofSeconds(30), "run " + id + " placed and started", () -> detail(id),
                r -> !List.of("QUEUED", "PENDING").contains(r.path("state").asText()));
        assertEquals("RUNNING", d.path("state").asText(), d.toString());
    }

    /**
     * The wait for other hosts after a restart is bounded by the heartbeat timeout: a restored run that fits only with
     * a host that never comes back fails then, saying why, as any run that can never fit.
     */
    @Test
    void aRestoredRunWhoseOtherHostNeverComesBackFailsAfterTheHeartbeatTimeout() throws Exception {
        start(1, 4);
        announce(HostCalls.credential(engine, "h0"));
        String id = run(8);
        awaitReason(id, "Slurm job 100 PENDING (Resources)");
        engine.close();

        Duration timeout = Duration.ofSeconds(3);
        long before = System.currentTimeMillis();
        engine = Engine.start(new FakeScheduler().engineConfig(dir, 1, 4).heartbeatTimeout(timeout));
        JsonNode d = Await.runEnds(Duration.ofSeconds(30), () -> detail(id));
        assertEquals("FAILED", d.get("state").asText(), d.toString());
        assertTrue(d.at("/error/message").asText().contains("needs 8 ranks")
                && d.at("/error/message").asText().contains("--max-nodes 1 × --cpus-per-node 4 = 4 places"), d.toString());
        assertTrue(d.path("endedMs").asLong() >= before + timeout.toMillis(), "not before the hosts had a heartbeat timeout: " + d);
    }

    void announce(HostCredential c) throws Exception {
        Http.Answer a = Http.send("POST", engine.url() + "/api/registry/hosts", c.authorization(), host(c.hostId()));
        assertEquals(201, a.status(), a.body());
    }

    static Map<String, Object> host(String id) {
        return Map.of("hostId", id, "soapUrl", "http://127.0.0.1:1/axis2/services/" + id, "services", List.of("ring"),
                "capacity", 4);
    }

    /**
     * The engine stops on purpose: it cancels its jobs, and their hosts say goodbye (as a Slurm job's host does on the
     * SIGTERM of scancel) while the engine still serves. The run on them stays RUNNING in the store, as after a kill,
     * for the engine started next (docs/durability.md): before, the goodbye failed it ("said goodbye as it stopped")
     * although the engine was stopping, and a run with restarts left was restarted into the stop.
     */
    @Test
    void goodbyesOfTheHostsAStoppingEngineReleasesLeaveTheirRunsToTheNextEngine() throws Exception {
        engine = Engine.start(slurm.engineConfig(dir, 1, 4).invoker(new FakeRanks(r -> { })));
        String id = run(4);
        awaitReason(id, "Slurm job 100 PENDING (Resources)");
        HostJob job = slurm.submitted.get(0);
        HostCredential credential = HostCredential.parse(job.credential(), "the job");
        announce(credential);
        Await.until(Duration.ofSeconds(30), "run " + id + " running", () -> detail(id).path("state").asText().equals("RUNNING"));
        List<Integer> goodbyes = new java.util.concurrent.CopyOnWriteArrayList<>();
        String url = engine.url();
        slurm.onCancel = j -> {
            try {
                goodbyes.add(Http.send("DELETE", url + "/api/registry/hosts/" + j.hostId(), credential.authorization(), null).status());
            } catch (java.io.IOException | InterruptedException e) {
                throw new IllegalStateException("the host's goodbye: " + e, e);
            }
        };

        engine.close();
        engine = null;
        assertEquals(List.of(204), goodbyes, "the host said goodbye while the engine stopped");
        try (org.mpfl.engine.store.EngineDatabase db = org.mpfl.engine.store.EngineDatabase.openEmbedded(dir)) {
            org.mpfl.engine.store.RunRecord r = db.runs().run(id).orElseThrow();
            assertEquals("RUNNING", r.state(), "left for the next engine: " + r.detail());
            assertTrue(r.detail().path("error").isMissingNode() || r.detail().path("error").isNull(), r.detail().toString());
        }
    }

    /**
     * The scheduler's own limit (a partition with room for fewer jobs than --max-nodes) counts in what can ever fit: a
     * run that only --max-nodes would allow fails at once, naming the partition; one within the partition waits.
     */
    @Test
    void theSchedulersOwnLimitCountsInWhatCanEverFit() throws Exception {
        slurm.limit = new JobsAtOnce(1, "partition 'debug' has 1 node: n1 4 CPUs (sinfo), room for at most 1 job of 2 CPUs at once");
        start(4, 2);
        String id = run(3);
        JsonNode d = Await.runEnds(Duration.ofSeconds(30), () -> detail(id));
        assertEquals("FAILED", d.get("state").asText(), d.toString());
        String error = d.at("/error/message").asText();
        assertTrue(error.contains("the run needs 3 ranks at once, more than Slurm jobs can ever bring: partition 'debug' has 1 node:"
                + " n1 4 CPUs (sinfo), room for at most 1 job of 2 CPUs at once, fewer than --max-nodes 4: 1 × --cpus-per-node 2"
                + " = 2 places; run it with fewer ranks (or --oversubscribe), or start the engine with a larger --partition"), error);
        String fits = run(2);
        awaitReason(fits, "Slurm job 100 PENDING (Resources)");
    }

    /**
     * The engine stops while Slurm cannot cancel its job: the job's record stays in the run store and the next engine
     * adopts it (submitting nothing for it again); the failure is reported with the command that ends it by hand.
     */
    @Test
    void aJobWhoseCancelFailsKeepsItsRecordAndTheAdminIsToldHowToEndIt() throws Exception {
        start(1, 2);
        String id = run(2);
        awaitReason(id, "Slurm job 100 PENDING (Resources)");
        slurm.cancelFails = "scancel failed (exit 1): slurm_kill_job error: Unable to contact slurm controller";
        List<String> left = engine.capacity().orElseThrow().close(true);
        assertEquals(2, left.size(), "the job, then how to cancel all that may be left: " + left);
        assertTrue(left.get(0).startsWith("Slurm job 100 (host ") && left.get(0).contains("may be left: cannot cancel it")
                && left.get(0).contains("Unable to contact slurm controller")
                && left.get(0).contains("to end it by hand: scancel 100") && left.get(0).contains("record is kept"), left.get(0));
        assertTrue(left.get(1).startsWith("1 Slurm job may be left") && left.get(1).endsWith("to cancel them by hand: scancel 100"),
                left.get(1));
        engine.close();

        FakeScheduler again = new FakeScheduler();
        again.states.put("100", slurm.states.get("100"));
        engine = Engine.start(again.engineConfig(dir, 1, 2));
        assertEquals(List.of("100"), engine.capacity().orElseThrow().jobIds(), "the next engine adopted the job");
        awaitReason(id, "Slurm job 100 PENDING (Resources)");
        assertTrue(again.submitted.isEmpty(), "nothing submitted again: " + again.submitted);
    }

    /**
     * A job that runs but whose host never joins (the node cannot reach the engine's URL, and a host that never reached
     * its engine retries for ever) is cancelled after --join-timeout: the queued run's reason says so, naming the job,
     * its node and the engine's URL, and the next job comes after the start back-off. Before, the job held its node up
     * to its time limit while the run said "host starting" for ever.
     */
    @Test
    void aRunningJobWhoseHostNeverJoinsIsCancelledAfterTheJoinTimeout() throws Exception {
        engine = Engine.start(slurm.engineConfig(dir, 1, 2).capacity(slurm,
                new CapacitySettings(1, 2, Duration.ofSeconds(300), Duration.ofMillis(100), Duration.ofSeconds(1))));
        String id = run(2);
        awaitReason(id, "Slurm job 100 PENDING (Resources)");
        slurm.set("100", JobStatus.Phase.RUNNING, "RUNNING", "None", "n7");
        String reason = awaitReason(id, "never joined");
        assertTrue(reason.contains("Slurm job 100 on node n7 ran for ") && reason.contains("--join-timeout 1 s")
                && reason.contains(engine.url()) && reason.contains("cancelled") && reason.contains("next one in "), reason);
        assertEquals(List.of("100"), slurm.cancelled, "the job was cancelled");
        Await.until(Duration.ofSeconds(60), () -> "a next job after the back-off: " + slurm.submitted, () -> slurm.submitted.size(),
                n -> n == 2);
        assertTrue(engine.capacity().orElseThrow().view().startFailure().contains("never joined"),
                engine.capacity().orElseThrow().view().toString());
    }

    /**
     * The engine stops while a submission is under way (sbatch interrupted after slurmctld took the job): the job is
     * found by its name and cancelled, not left in Slurm with its record deleted (it started a host later for nobody).
     */
    @Test
    void aJobWhoseSubmissionTheStoppingEngineInterruptedIsFoundAndCancelled() throws Exception {
        slurm.submitHangs = new java.util.concurrent.CountDownLatch(1);
        start(1, 2);
        run(2);
        assertTrue(slurm.submitReached.await(30, java.util.concurrent.TimeUnit.SECONDS), "the submission reached the scheduler");
        List<String> left = engine.capacity().orElseThrow().close(true);
        assertEquals(List.of(), left, "nothing left behind");
        assertEquals(List.of("100"), slurm.cancelled, "the job the interrupted sbatch submitted was cancelled");
    }

    /**
     * The engine stops while slurmctld hangs (every scancel waits): the jobs are cancelled at once, not one after the
     * other, and the stop gives up on them together after its one deadline (it waited 10 s, then up to 30 s per job),
     * saying which jobs may be left, with the command that ends them by hand; their records stay for the next engine.
     */
    @Test
    void aStopWhileTheSchedulerHangsWaitsOneDeadlineForAllJobsAndSaysWhichAreLeft() throws Exception {
        start(3, 2);
        String id = run(6);
        awaitReason(id, "Slurm job 102 PENDING (Resources)");
        CapacityManager capacity = engine.capacity().orElseThrow();
        capacity.stopDeadline = Duration.ofSeconds(2);
        slurm.cancelHangs = new java.util.concurrent.CountDownLatch(1);
        long start = System.nanoTime();
        List<String> left;
        try {
            left = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(30), () -> capacity.close(true));
        } finally {
            slurm.cancelHangs.countDown(); // the scheduler answers again: nothing hangs the engine's close after the test
        }
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs >= 1_900 && tookMs < 15_000, "one deadline of 2 s for the whole stop: " + tookMs + " ms");
        assertEquals(3, slurm.cancelTimes.size(), "every job's cancel was asked for: " + slurm.cancelTimes);
        long spreadMs = (slurm.cancelTimes.get(2) - slurm.cancelTimes.get(0)) / 1_000_000;
        assertTrue(spreadMs < 1_500, "the cancels were asked together, not one after the other: " + spreadMs + " ms apart");
        assertEquals(4, left.size(), "one line per job and how to cancel them all: " + left);
        for (String job : List.of("100", "101", "102")) {
            assertTrue(left.stream().anyMatch(l -> l.startsWith("Slurm job " + job + " (host ") && l.contains("no answer")
                    && l.endsWith("to end it by hand: scancel " + job)), job + ": " + left);
        }
        assertTrue(left.get(3).contains("3 Slurm jobs may be left") && left.get(3).endsWith("to cancel them by hand: scancel 100 101 102"),
                left.get(3));
        engine.close();
        engine = null;
        assertEquals(3, recorded().stream().filter(r -> r.matches("mpfl-slurm-.*=10[012]")).count(), "kept for the next engine: "
                + recorded());
    }

    /**
     * A submission that got no answer (sbatch timed out after slurmctld took the job) is not forgotten: the job is
     * looked up by its name on the next round and adopted, and no second job is submitted in its place.
     */
    @Test
    void aJobWhoseSubmissionGotNoAnswerIsFoundByItsNameNotSubmittedTwice() throws Exception {
        slurm.submitHangs = new java.util.concurrent.CountDownLatch(1);
        start(1, 2);
        String id = run(2);
        assertTrue(slurm.submitReached.await(30, java.util.concurrent.TimeUnit.SECONDS), "the submission reached the scheduler");
        slurm.submitHangs.countDown();
        slurm.submitHangs = null;
        awaitReason(id, "Slurm job 100 PENDING (Resources)");
        assertEquals(List.of("100"), engine.capacity().orElseThrow().jobIds(), "the job was found by its name");
        assertEquals(1, slurm.submitted.size(), "not submitted twice: " + slurm.submitted);
    }

    /**
     * A job whose host joined while its submission hung (sbatch took the job, then gave no answer) is held once it is
     * found by its name, for the idle time after its host is seen: it was withdrawn in the round that found it, as a
     * job pending for nobody since its submission, before the manager had seen its host at all.
     */
    @Test
    void aJobFoundByItsNameWhoseHostJoinedMeanwhileIsNotWithdrawnAtOnce() throws Exception {
        slurm.submitHangs = new java.util.concurrent.CountDownLatch(1);
        engine = Engine.start(new org.mpfl.engine.EngineConfig().port(0).dataDir(dir).heartbeatTimeout(Duration.ofMinutes(5))
                .capacity(slurm, new CapacitySettings(1, 2, Duration.ofSeconds(3), Duration.ofMillis(100))));
        String id = run(2);
        assertTrue(slurm.submitReached.await(30, java.util.concurrent.TimeUnit.SECONDS), "the submission reached the scheduler");
        // the run that wanted the job is cancelled (no run waits for it), then the job's host joins
        assertEquals(200, Http.send("POST", engine.url() + "/api/runs/" + id + "/cancel", "Bearer " + engine.token(), null).status());
        HostJob job = slurm.submitted.get(0);
        Http.Answer joined = Http.send("POST", engine.url() + "/api/registry/hosts",
                HostCredential.parse(job.credential(), "the job").authorization(), host(job.hostId()));
        assertEquals(201, joined.status(), joined.body());
        long submitted = System.nanoTime();
        // the submission hangs past the idle time (3 s), as an sbatch that waits 30 s for slurmctld does past the grace
        Await.until(Duration.ofSeconds(30), "the idle time passed while the submission hung",
                () -> System.nanoTime() - submitted > 3_500_000_000L);
        slurm.submitHangs.countDown();
        CapacityManager capacity = engine.capacity().orElseThrow();
        CapacityView.Job seen = Await.until(Duration.ofSeconds(30), "job 100 found by its name, then its host seen or the job cancelled",
                () -> capacity.view().jobs().stream().filter(j -> "100".equals(j.jobId())).findFirst().orElse(null),
                j -> j != null && (j.joined() || j.releasing()) || !slurm.cancelled.isEmpty());
        assertTrue(seen != null && seen.joined() && !seen.releasing(), "held until its host was seen: " + seen + ", cancelled "
                + slurm.cancelled);
    }

    /**
     * Submissions that fail are tried again after 2 s, then 4 s, doubling up to 2 minutes (they were tried on every
     * poll, once a second), and the queued run's reason says why and when the next try is.
     */
    @Test
    void failedSubmissionsBackOffExponentiallyFrom2SecondsTo2Minutes() throws Exception {
        assertEquals(List.of(2L, 4L, 8L, 16L, 32L, 64L, 120L, 120L), java.util.stream.IntStream.rangeClosed(1, 8)
                .mapToObj(n -> CapacityManager.submitRetry(n).toSeconds()).toList());
        start(1, 2);
        slurm.submitFails = "sbatch failed (exit 1): Batch job submission failed: Unable to contact slurm controller";
        String id = run(2);
        String reason = awaitReason(id, "1 failure in a row; next try in");
        assertTrue(reason.contains("Slurm jobs cannot be submitted: sbatch failed (exit 1)"), reason);
        Await.until(Duration.ofSeconds(60), "three submissions tried", () -> slurm.submitTimes.size() >= 3);
        List<Long> t = slurm.submitTimes;
        long first = (t.get(1) - t.get(0)) / 1_000_000;
        long second = (t.get(2) - t.get(1)) / 1_000_000;
        // the engine polls every 100 ms here: without the back-off the tries came 100 ms apart
        assertTrue(first >= 1_900 && second >= 3_900, "2 s, then 4 s between tries: " + first + " ms, " + second + " ms");
        assertTrue(slurm.submitted.isEmpty());
        slurm.submitFails = null;
        awaitReason(id, "Slurm job 100 PENDING (Resources)");
        assertTrue(!detail(id).at("/queue/reason").asText().contains("cannot be submitted"), "a submission that works clears it");
    }

    /**
     * A pending job cancelled by an administrator (scancel, outside MPFL): the queued run's reason says so, not that
     * the job "ended before its host joined"; a job that failed to start names its output file, and says what it
     * means when the file is missing, or what the file's last line says.
     */
    @Test
    void thePendingJobCancelledOutsideAndAMissingJobLogAreSaidPlainly() throws Exception {
        Path logs = java.nio.file.Files.createDirectories(dir.resolve("jobs"));
        slurm.logDir = logs;
        start(1, 2);
        String id = run(2);
        awaitReason(id, "Slurm job 100 PENDING (Resources)");
        slurm.end("100", "CANCELLED", "");
        String reason = awaitReason(id, "Slurm job 100 was cancelled outside MPFL");
        assertTrue(reason.contains("scancel by an administrator or its user) while it was pending, before its host joined;"
                + " the next Slurm job in 5 s"), reason);

        awaitReason(id, "Slurm job 101 PENDING (Resources)");
        slurm.end("101", "FAILED", "JobLaunchFailure");
        reason = awaitReason(id, "Slurm job 101 ended: FAILED (JobLaunchFailure)");
        String log = logs.resolve(slurm.submitted.get(1).name() + ".log").toString();
        assertTrue(reason.contains("its output file " + log + " does not exist: the job ended before it ran on a node, or the"
                + " node cannot write there"), reason);

        reason = awaitReason(id, "Slurm job 102 PENDING (Resources)");
        java.nio.file.Files.writeString(logs.resolve(slurm.submitted.get(2).name() + ".log"),
                "srun: starting\nmpflc: node n1: its name does not resolve; give a bind address\n\n");
        slurm.end("102", "FAILED", "NonZeroExitCode");
        reason = awaitReason(id, "Slurm job 102 ended: FAILED (NonZeroExitCode)");
        assertTrue(reason.contains("ends: mpflc: node n1: its name does not resolve; give a bind address"), reason);
    }

    /**
     * A job ended outside MPFL is reported with its final state, not with the COMPLETING Slurm shows while it stops the
     * job's processes (it used to read "ended: COMPLETING"); one that stays COMPLETING is taken as ended after the
     * ending wait, saying so; a final state is said with what it means (TIMEOUT: its time limit ran out).
     */
    @Test
    void aJobEndedOutsideIsReportedWithItsFinalStateNotCompleting() throws Exception {
        start(1, 2);
        String id = run(2);
        awaitReason(id, "Slurm job 100 PENDING (Resources)");
        slurm.set("100", JobStatus.Phase.RUNNING, "RUNNING", "None", "n7");
        awaitReason(id, "Slurm job 100 RUNNING on n7, host starting");
        slurm.set("100", JobStatus.Phase.ENDING, "COMPLETING", "None", "n7");
        awaitReason(id, "Slurm job 100 COMPLETING on n7");
        assertEquals(List.of("100"), engine.capacity().orElseThrow().jobIds(), "an ending job is held until its final state");
        slurm.set("100", JobStatus.Phase.ENDED, "CANCELLED", "None", "");
        String reason = awaitReason(id, "Slurm job 100 on node n7 was cancelled outside MPFL (CANCELLED: scancel by an administrator"
                + " or its user); the next Slurm job in 5 s");
        assertTrue(!reason.contains("ended: COMPLETING"), reason);

        awaitReason(id, "Slurm job 101 PENDING (Resources)");
        engine.capacity().orElseThrow().endingWait = Duration.ofSeconds(1);
        slurm.set("101", JobStatus.Phase.ENDING, "COMPLETING", "None", "n8");
        awaitReason(id, "Slurm job 101 on node n8 was ended outside MPFL and is still COMPLETING after 1 s (its final state is not"
                + " known yet)");

        awaitReason(id, "Slurm job 102 PENDING (Resources)");
        slurm.set("102", JobStatus.Phase.ENDED, "TIMEOUT", "TimeLimit", "n9");
        awaitReason(id, "Slurm job 102 on node n9 ended: TIMEOUT (TimeLimit): its time limit ran out (--walltime, or the partition's)");
    }

    /** The engine prunes the job log directory when it starts (and whenever a job ends): 60 old outputs become 50. */
    @Test
    void theEnginePrunesTheJobLogDirectory() throws Exception {
        Path logs = java.nio.file.Files.createDirectories(dir.resolve("jobs"));
        for (int i = 0; i < 60; i++) {
            Path f = java.nio.file.Files.writeString(logs.resolve("mpfl-slurm-old" + i + ".log"), "x\n");
            java.nio.file.Files.setLastModifiedTime(f, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - i * 60_000L));
        }
        slurm.logDir = logs;
        start(1, 2);
        try (var files = java.nio.file.Files.list(logs)) {
            assertEquals(50, files.count(), "pruned to the 50 newest when the engine started");
        }
    }

    /** A job the previous engine recorded before it learnt its id (it stopped between sbatch and recording the id). */
    void recordedWithoutItsId(String name) throws Exception {
        try (org.mpfl.engine.store.EngineDatabase db = org.mpfl.engine.store.EngineDatabase.openEmbedded(dir)) {
            db.capacityJobs().save(new org.mpfl.engine.store.CapacityJobStore.StoredJob(name, "slurm", name.substring("mpfl-".length()),
                    null, System.currentTimeMillis()));
        }
    }

    /** The jobs recorded in the run store (an engine must be stopped to read them). */
    List<String> recorded() throws Exception {
        try (org.mpfl.engine.store.EngineDatabase db = org.mpfl.engine.store.EngineDatabase.openEmbedded(dir)) {
            return db.capacityJobs().all().stream().map(j -> j.jobName() + "=" + j.jobId()).toList();
        }
    }

    static final String SQUEUE_DOWN = "squeue --noheader --states=all failed (exit 1): slurm_load_jobs error: Unable to contact"
            + " slurm controller (connect failure)";

    /**
     * The previous engine's job recorded without its id is looked up by its name again while squeue does not answer
     * (slurmctld restarting), and adopted once it does: before, one failed look-up at start left it for good without an
     * id (never polled, never released, counted as a job on its way so that nothing was submitted for the queue).
     */
    @Test
    void aJobRecordedWithoutItsIdIsLookedUpAgainWhileTheSchedulerDoesNotAnswer() throws Exception {
        recordedWithoutItsId("mpfl-slurm-lost0");
        slurm.states.put("100", new JobStatus("100", JobStatus.Phase.PENDING, "PENDING", "Resources", ""));
        slurm.named.put("mpfl-slurm-lost0", "100");
        slurm.findFails = new CapacityException(SQUEUE_DOWN, null, true);
        slurm.findFailures.set(3);
        start(1, 2);
        CapacityManager capacity = engine.capacity().orElseThrow();
        Await.until(Duration.ofSeconds(30), () -> "adopted after " + slurm.finds.get() + " look-ups", capacity::jobIds,
                ids -> ids.equals(List.of("100")));
        assertEquals(4, slurm.finds.get(), "looked up until it answered, then no more");
        String id = run(2);
        awaitReason(id, "Slurm job 100 PENDING (Resources)");
        assertTrue(slurm.submitted.isEmpty(), "nothing submitted in its place: " + slurm.submitted);
        // its cancel fails as the engine stops, so its record stays: with the id found, which the next engine adopts
        slurm.cancelFails = SQUEUE_DOWN;
        engine.close();
        engine = null;
        assertEquals(List.of("mpfl-slurm-lost0=100"), recorded());
    }

    /**
     * A look-up the scheduler refuses (not a failure to answer) is not asked again, nor one that still fails after the
     * window: the job is given up (its record kept for the next engine, its credential revoked), and the queue gets a
     * job of its own.
     */
    @Test
    void aJobWhoseLookUpIsRefusedOrKeepsFailingIsGivenUpAndItsRecordKept() throws Exception {
        recordedWithoutItsId("mpfl-slurm-lost1");
        slurm.findFails = new CapacityException("squeue --noheader --states=all failed (exit 1): squeue: error: Invalid user", null,
                false);
        start(1, 2);
        assertEquals(List.of(), engine.capacity().orElseThrow().jobIds());
        assertEquals(1, slurm.finds.get(), "a refusal is not asked again");
        String id = run(2);
        awaitReason(id, "Slurm job 100 PENDING (Resources)");
        assertEquals(1, slurm.finds.get());
        engine.close();
        engine = null;
        assertTrue(recorded().contains("mpfl-slurm-lost1=null"), "kept for the next engine: " + recorded());

        FakeScheduler again = new FakeScheduler();
        again.findFails = new CapacityException(SQUEUE_DOWN, null, true);
        engine = Engine.start(again.engineConfig(dir, 1, 2));
        engine.capacity().orElseThrow().adoptLookUpWindow = Duration.ofSeconds(1);
        Await.until(Duration.ofSeconds(30), () -> "a job submitted for the queue once the look-up is given up", () -> again.submitted,
                s -> !s.isEmpty());
        int asked = again.finds.get();
        assertTrue(asked > 1, "asked again within the window: " + asked);
        engine.close();
        engine = null;
        assertTrue(recorded().contains("mpfl-slurm-lost1=null"), "still kept: " + recorded());
    }
}
