package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.json.Json;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.protocol.HostCredential;
import org.mpfl.testing.Http;
import org.mpfl.testing.Ports;
import org.mpfl.testing.StartsProcesses;

/**
 * {@code mpflc up --provider slurm} on a real single-node Slurm cluster ({@link SlurmCluster}): the
 * engine runs as its own process and, for the runs waiting in its queue, submits jobs that start
 * {@code mpflc host} on the node. One machine has one slurmd (Debian's Slurm is built without
 * multiple-slurmd support), so "nodes" here are jobs on the one node, one at a time (select/linear
 * gives a job the whole node); a second job waits PENDING (Resources) while one runs.
 *
 * <p>Bounds: each wait is at most {@value #WAIT_S} s; what is waited for takes a few seconds on an idle
 * machine (a host JVM starting, a Slurm scheduling pass), and the margin is for a loaded 2-core one.
 */
@Timeout(900)
@StartsProcesses
class SlurmCapacityTest {
    static final int WAIT_S = 120;
    static SlurmCluster slurm;
    static Path dir;
    static Path mpflc;
    static Path ring;
    /** A two-rank ring that goes round as many laps as it is told: a run that lasts. */
    static Path laps;
    final List<Process> children = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("mpfl-slurm-capacity-");
        slurm = SlurmCluster.start();
        mpflc = SlurmCluster.mpflcScript(dir);
        ring = Path.of("..", "samples", "ring", "ring.mpfl.xml").toAbsolutePath().normalize();
        laps = Path.of("src", "test", "resources", "mpfl", "laps.mpfl.xml").toAbsolutePath();
    }

    @AfterAll
    static void stop() {
        if (slurm != null) {
            slurm.close();
        }
        if (dir != null) {
            FileTrees.deleteQuietly(dir);
        }
    }

    @AfterEach
    void stopChildren() throws Exception {
        for (Process p : children) {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        SlurmCluster.run(List.of("scancel", "--full", "--user=root"), slurm.environment());
        awaitTrue(() -> squeue().isEmpty(), "every job ended");
    }

    /**
     * A queued run waits for its job ("Slurm job N PENDING (Resources)" while a job from outside holds
     * the node), starts on the job's host when it joins and SUCCEEDS; the credential the host enrolled
     * with is in no process's command line, not in the job script and not in scontrol show job; the
     * job is released after the idle time and squeue no longer lists it.
     */
    @Test
    void aQueuedRunStartsOnItsJobsHostAndTheJobIsReleasedWhenIdle() throws Exception {
        Path data = dir.resolve("idle");
        String blocker = sbatchBlocker();
        // 8 s idle (was 15, waited for in full): the credential checks below start as soon as the host joined,
        // while the queued run is placed on it, so only their tail can fall into the idle time; 8 s leaves those
        // few tool calls several seconds even if the short ring ends first on a loaded 2-core machine
        Engine engine = engine(data, freePort(), "--max-nodes", "1", "--idle-release", "8");
        awaitRunning(blocker);
        Process run = run(engine, data.resolve("run.out"), ring, "ranks=2");
        String runId = awaitRunId(engine);
        String reason = awaitReason(engine, runId, "PENDING (Resources)");
        assertTrue(reason.matches("(?s).*Slurm job \\d+ PENDING \\(Resources\\).*"), reason);
        SlurmCluster.run(List.of("scancel", blocker), slurm.environment());
        awaitTrue(() -> !hosts(engine).isEmpty(), "the job's host joined");
        List<String> jobs = squeue();
        assertEquals(1, jobs.size(), "one job of the engine: " + jobs);
        String job = jobs.get(0).split("\\|")[0];

        // the host is up (the queued run keeps it from being released): its credential is in its environment only
        String secret = HostCredential.parse(hostCredential(), "the host's environment").secret();
        assertFalse(commandLines().stream().anyMatch(c -> c.contains(secret)), "no credential on a command line");
        String script = SlurmCluster.run(List.of("scontrol", "write", "batch_script", job, "-"), slurm.environment());
        assertTrue(script.contains("srun") && script.contains(" host "), "the job script starts the host: " + script);
        assertFalse(script.contains(secret), "no credential in the job script: " + script);
        String shown = SlurmCluster.run(List.of("scontrol", "show", "job", "-dd", job), slurm.environment());
        assertFalse(shown.contains(secret) || shown.contains(HostCredential.ENV + "="), "no credential in scontrol show job: " + shown);

        JsonNode result = result(run, data.resolve("run.out"));
        assertEquals("SUCCEEDED", result.get("state").asText(), result.toString());
        assertEquals(1, result.at("/outputs/token/0").asInt(), "0 + 1 around the ring: " + result);
        JsonNode detail = Http.get(engine.url + "/api/runs/" + runId).json();
        for (JsonNode rank : detail.get("ranks")) {
            assertTrue(rank.get("host").asText().startsWith("slurm-"), "on the job's host: " + detail);
        }
        awaitTrue(() -> squeue().isEmpty(), "the idle job was released (scancel) after 8 s");
        awaitTrue(() -> hosts(engine).isEmpty(), "its host left the engine");
        assertEquals(1, jobLogs(data).size(), "one job was submitted");
    }

    /** Two runs that need more than --max-nodes 1 at once: the second waits QUEUED, saying so, and succeeds after the first. */
    @Test
    void aRunBeyondMaxNodesWaitsQueuedThenSucceeds() throws Exception {
        Path data = dir.resolve("max");
        Engine engine = engine(data, freePort(), "--max-nodes", "1", "--idle-release", "5");
        Process first = run(engine, data.resolve("first.out"), laps, "laps=2000");
        Process second = run(engine, data.resolve("second.out"), ring, "ranks=2");
        awaitTrue(() -> runs(engine).size() == 2, "both runs accepted");
        String seen = null;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (seen == null && System.nanoTime() < end) {
            for (JsonNode r : runs(engine)) {
                String reason = Http.get(engine.url + "/api/runs/" + r.get("id").asText()).json().at("/queue/reason").asText("");
                // while the other run holds the one job's host: short of free places, and no job may be added
                if (reason.contains("at --max-nodes 1") && reason.contains(" free ")) {
                    seen = reason;
                }
            }
            Thread.sleep(100);
        }
        assertTrue(seen != null, "one run waited at --max-nodes 1 while the other ran");
        assertEquals("SUCCEEDED", result(first, data.resolve("first.out")).get("state").asText());
        assertEquals("SUCCEEDED", result(second, data.resolve("second.out")).get("state").asText());
        assertTrue(jobLogs(data).size() <= 2, "never more than one job at once, and no job per retry: " + jobLogs(data));
    }

    /**
     * The engine SIGKILLed while its job is pending: the restarted engine adopts the job (nothing is
     * submitted twice) and the queued run completes on its host; SIGKILLed again while the job runs a
     * run: adopted again, the run (re-attached, docs/durability.md) completes, still on the one job.
     */
    @Test
    void anEngineKilledWhileItsJobIsPendingOrRunningAdoptsItAfterARestart() throws Exception {
        Path data = dir.resolve("restart");
        // the engine starts again at this port while the job's host keeps dialling it: outside the ephemeral range, so
        // that no dial of the closed port is given it as its own port and holds it against the restart (docs/fixtures.md)
        int port = Ports.outsideEphemeralRange();
        String blocker = sbatchBlocker();
        Engine engine = engine(data, port, "--max-nodes", "1", "--idle-release", "5");
        awaitRunning(blocker);
        Process run = run(engine, data.resolve("run.out"), ring, "ranks=2");
        String runId = awaitRunId(engine);
        awaitReason(engine, runId, "PENDING (Resources)");
        engine.process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        run.destroyForcibly();
        assertEquals(2, squeue().size(), "the blocker and the engine's job, still pending: " + squeue());
        // idle release long enough for the second run below to find the adopted job's host still there
        Engine again = engine(data, port, "--max-nodes", "1", "--idle-release", "60");
        SlurmCluster.run(List.of("scancel", blocker), slurm.environment());
        awaitTrue(() -> state(again, runId).equals("SUCCEEDED"), "the run completed after the restart");
        assertEquals(1, jobLogs(data).size(), "nothing submitted twice: " + jobLogs(data));

        // killed again while the job runs and a run is going on its host: adopted again, the run completes
        Process lasting = run(again, data.resolve("lasting.out"), laps, "laps=200000");
        awaitTrue(() -> runs(again).stream().anyMatch(r -> !r.get("id").asText().equals(runId)), "the second run was accepted");
        String lastingId = runs(again).stream().map(r -> r.get("id").asText()).filter(id -> !id.equals(runId)).findFirst().orElseThrow();
        // RUNNING in the run store (the listing filters stored records), so the next engine re-attaches to it
        awaitTrue(() -> runs(again, "?state=RUNNING").stream().anyMatch(r -> r.get("id").asText().equals(lastingId)),
                "the second run runs, and its record says so");
        again.process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        lasting.destroyForcibly();
        // 5 s, not 60: nothing more runs on the adopted job, and its run is re-attached (busy) before the engine
        // first looks for idle hosts (Engine starts Reattachment before the CapacityManager), so only the release
        // at the end waits on this
        Engine third = engine(data, port, "--max-nodes", "1", "--idle-release", "5");
        // 200,000 laps after a re-attachment on a loaded 2-core machine: a longer bound than the others, and
        // the run's record and the engine's log in the message if it is not met
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3L * WAIT_S);
        while (!state(third, lastingId).equals("SUCCEEDED")) {
            if (System.nanoTime() > end || state(third, lastingId).equals("FAILED")) {
                throw new AssertionError("the run going when the engine was killed did not complete: "
                        + Http.get(third.url + "/api/runs/" + lastingId).json() + "\n" + Files.readString(third.log));
            }
            Thread.sleep(500);
        }
        assertEquals(1, jobLogs(data).size(), "still one job: nothing submitted twice: " + jobLogs(data));
        awaitTrue(() -> squeue().isEmpty(), "the adopted job was released when idle");
    }

    /**
     * The only run that wanted a job is cancelled while the job is still pending: the job is withdrawn within seconds,
     * not after the 300 s idle release (nor left to start a host for nobody once the node frees up).
     */
    @Test
    void aPendingJobNoRunWaitsForIsWithdrawn() throws Exception {
        Path data = dir.resolve("unwanted");
        String blocker = sbatchBlocker();
        Engine engine = engine(data, freePort(), "--max-nodes", "1", "--idle-release", "300");
        try {
            awaitRunning(blocker);
            Process run = run(engine, data.resolve("run.out"), ring, "ranks=2");
            String runId = awaitRunId(engine);
            awaitReason(engine, runId, "PENDING (Resources)");
            assertEquals(2, squeue().size(), "the blocker and the engine's pending job: " + squeue());
            assertEquals(200, Http.send("POST", engine.url + "/api/runs/" + runId + "/cancel",
                    "Bearer " + Files.readString(data.resolve("engine.token")).strip(), null).status());
            // the grace is 10 s and the engine looks every second: 60 s is a loaded machine's margin, far below 300 s
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (squeue().size() > 1 && System.nanoTime() < end) {
                Thread.sleep(250);
            }
            assertEquals(List.of(blocker), squeue().stream().map(l -> l.split("\\|")[0]).toList(), "only the blocker is left");
            run.destroyForcibly();
        } finally {
            SlurmCluster.run(List.of("scancel", blocker), slurm.environment());
        }
    }

    /**
     * A job cancelled from outside mid-run: the run fails naming the job and the node (whether the engine hears of it
     * from Slurm or from the host not answering first), and the engine's log gives the job's final state, CANCELLED
     * (squeue says COMPLETING while Slurm stops its processes, which the engine used to report as the job's end:
     * "ended: COMPLETING").
     */
    @Test
    void aJobCancelledFromOutsideFailsItsRunNamingJobAndNode() throws Exception {
        Path data = dir.resolve("scancel");
        Engine engine = engine(data, freePort(), "--max-nodes", "1", "--idle-release", "60");
        Process run = run(engine, data.resolve("run.out"), laps, "laps=100000000");
        String runId = awaitRunId(engine);
        awaitTrue(() -> state(engine, runId).equals("RUNNING"), "the run runs on the job's host");
        printStartLatency("sbatch", engine, runId);
        String job = squeue().get(0).split("\\|")[0];
        SlurmCluster.run(List.of("scancel", job), slurm.environment());
        awaitTrue(() -> state(engine, runId).equals("FAILED"), "the run failed");
        String error = Http.get(engine.url + "/api/runs/" + runId).json().at("/error/message").asText();
        assertTrue(error.contains("Slurm job " + job) && error.contains(slurm.node()), "names job and node: " + error);
        awaitTrue(() -> readLog(engine).contains("Slurm job " + job + " on node " + slurm.node() + " was cancelled outside MPFL (CANCELLED"),
                "the engine's log gives the job's final state");
        assertFalse(readLog(engine).contains("ended: COMPLETING"), readLog(engine));
        run.destroyForcibly();
    }

    /**
     * The nodes cannot reach the engine (its --public-url names a port nothing listens on): the job runs, its host keeps
     * trying to announce itself, and after --join-timeout the engine cancels the job and the queued run's reason says
     * why, naming the job, the node and the URL, instead of "host starting" until the job's time limit.
     */
    @Test
    void aJobWhoseHostCannotReachTheEngineIsCancelledAfterTheJoinTimeout() throws Exception {
        Path data = dir.resolve("unreachable");
        String unreachable = "http://127.0.0.1:" + freePort();
        Engine engine = engine(data, freePort(), "--max-nodes", "1", "--idle-release", "300", "--public-url", unreachable,
                "--join-timeout", "10");
        Process run = run(engine, data.resolve("run.out"), ring, "ranks=2");
        String runId = awaitRunId(engine);
        String reason = awaitReason(engine, runId, "never joined");
        assertTrue(reason.matches("(?s).*Slurm job \\d+ on node " + java.util.regex.Pattern.quote(slurm.node()) + " ran for \\d+ s but its"
                + " host slurm-\\S+ never joined the engine at " + java.util.regex.Pattern.quote(unreachable)
                + " \\(--join-timeout 10 s\\): cancelled.*next one in \\d+ s.*"), reason);
        String job = reason.replaceAll("(?s).*Slurm job (\\d+) on node .*", "$1");
        awaitTrue(() -> squeue().stream().noneMatch(l -> l.startsWith(job + "|")), "the job was cancelled: " + squeue());
        assertTrue(readLog(engine).contains("Slurm job " + job + " on node " + slurm.node() + " ran for "), "the engine's log says it too");
        run.destroyForcibly();
    }

    /**
     * A submission that got no answer, through a real sbatch: a stand-in {@code sbatch} first on the engine's PATH
     * submits through the real one, then either says what sbatch says when slurmctld's reply timed out ("Socket timed
     * out on send/recv operation", exit 1) without the job's id, or hangs until the engine gives up on it (30 s). The
     * engine looks the job up by its name instead of forgetting it (after the timed-out reply it used to forget it,
     * revoke its credential and submit a second job): the job is adopted with the id the real sbatch gave, its host
     * joins, the run succeeds on it, nothing is submitted twice, and the engine's stop cancels it.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"says its reply timed out", "hangs"})
    void aSubmissionThatGotNoAnswerIsFoundByItsNameThroughARealSbatch(String standInSbatch) throws Exception {
        Path data = dir.resolve("unanswered-" + standInSbatch.replace(' ', '-'));
        Path standIns = Files.createDirectories(data.resolve("stand-ins"));
        List<String> ending = standInSbatch.equals("hangs")
                ? List.of("exec sleep 619") // exec: the engine's kill after 30 s ends it, nothing is left
                : List.of("echo 'sbatch: error: Batch job submission failed: Socket timed out on send/recv operation' >&2", "exit 1");
        List<String> script = new ArrayList<>(List.of("# stands in for sbatch: submits through the real one, then no answer",
                "echo called >> '" + standIns.resolve("sbatch.calls") + "'",
                "/usr/bin/sbatch \"$@\" > '" + standIns.resolve("sbatch.answer") + "' 2>&1"));
        script.addAll(ending);
        standIn(standIns, "sbatch", script.toArray(String[]::new));
        Engine engine = engine(data, freePort(), pathFirst(standIns), "--max-nodes", "1", "--idle-release", "300");
        Process run = run(engine, data.resolve("run.out"), ring, "ranks=2");
        JsonNode result = result(run, data.resolve("run.out"));
        assertEquals("SUCCEEDED", result.get("state").asText(), result.toString() + "\n" + readLog(engine));
        String job = Files.readString(standIns.resolve("sbatch.answer")).strip();
        assertTrue(job.matches("\\d+"), "the real sbatch submitted job " + job);
        // the job's host may join, and the run succeed on it, while the engine still waits for the hanging sbatch
        awaitTrue(() -> readLog(engine).matches("(?s).*adopted Slurm job " + job + " \\(host slurm-\\S+, found by its name"
                + " mpfl-slurm-\\S+\\) \\(its submission got no answer\\).*"), "the engine found the job by its name");
        String log = readLog(engine);
        assertTrue(log.contains("no answer to the submission of Slurm job mpfl-slurm-") && log.contains("looked up by its name"), log);
        assertEquals(List.of("called"), Files.readAllLines(standIns.resolve("sbatch.calls")), "submitted once, not twice");
        assertEquals(1, jobLogs(data).size(), "one job: " + jobLogs(data));
        JsonNode ids = Http.get(engine.url + "/api/capacity").json().path("jobs");
        assertEquals(job, ids.path(0).path("jobId").asText(), "the engine tracks the job by its id: " + ids);

        // the engine stops on purpose: the job it found by its name is cancelled
        assertEquals(List.of(job + "|RUNNING"), squeue().stream().map(l -> l.substring(0, l.lastIndexOf('|'))).toList());
        engine.process.destroy();
        assertTrue(engine.process.waitFor(WAIT_S, TimeUnit.SECONDS), "the engine stopped: " + readLog(engine));
        awaitTrue(() -> squeue().isEmpty(), "the stopped engine cancelled the job it found by its name: " + squeue());
        assertTrue(commandLines().stream().noneMatch(c -> c.equals("sleep 619")), "no hanging sbatch is left");
    }

    /**
     * The engine stops while scancel hangs (a stand-in {@code scancel} first on its PATH that never answers): the stop
     * cancels both its jobs at once and gives up after its one 20 s deadline, not 30 s per job one after the other, and
     * its log names each job that may be left and one command to cancel them by hand; the hanging scancels are stopped.
     */
    @Test
    void aStopWhileScancelHangsIsBoundedAndSaysHowToCancelTheJobsByHand() throws Exception {
        Path data = dir.resolve("scancel-hangs");
        Path standIns = Files.createDirectories(data.resolve("stand-ins"));
        standIn(standIns, "scancel", "# stands in for scancel: slurmctld never answers", "exec sleep 617");
        // 1 CPU per job: a 2-CPU machine has room for the two jobs by its CPUs (select/linear runs one, the other pends)
        Engine engine = engine(data, freePort(), pathFirst(standIns), "--max-nodes", "2", "--cpus-per-node", "1", "--idle-release", "300");
        Process run = run(engine, data.resolve("run.out"), ring, "ranks=2");
        awaitTrue(() -> capacityJobIds(engine).size() == 2, "the engine submitted two jobs");
        List<String> ids = capacityJobIds(engine);
        long stopping = System.nanoTime();
        engine.process.destroy();
        assertTrue(engine.process.waitFor(WAIT_S, TimeUnit.SECONDS), "the engine stopped: " + readLog(engine));
        long tookS = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - stopping);
        // before: up to 10 s for the poller, then 30 s per job, one after the other (70 s here)
        assertTrue(tookS < 55, "the stop waited one deadline for both jobs, not 30 s each: " + tookS + " s\n" + readLog(engine));
        String log = readLog(engine);
        for (String id : ids) {
            assertTrue(log.matches("(?s).*Slurm job " + id + " \\(host slurm-\\S+\\) may be left: cannot cancel it: [^\n]*; to end it by"
                    + " hand: scancel " + id + "\n.*"), id + ": " + log);
        }
        assertTrue(log.contains("2 Slurm jobs may be left in the scheduler as the engine stops") && log.contains(
                "to cancel them by hand: scancel " + String.join(" ", ids)), log);
        awaitTrue(() -> commandLines().stream().noneMatch(c -> c.equals("sleep 617")), "no hanging scancel is left");
        run.destroyForcibly();
    }

    /**
     * The same queued run through slurmrestd, authenticated with a JWT from {@code scontrol token}; a
     * wrong or expired JWT stops {@code mpflc up} with a clear error before it serves.
     */
    @Test
    void theSameQueuedRunThroughSlurmrestdWithAJwtAndAWrongOrExpiredJwtIsRefusedClearly() throws Exception {
        String restd = slurm.startRestd();
        Path data = Files.createDirectories(dir.resolve("rest"));
        Path wrong = ownerOnly(data.resolve("wrong.jwt"), "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdW4iOiJyb290IiwiZXhwIjo0MTAyNDQ0ODAwfQ."
                + "bm90LWEtc2lnbmF0dXJlLW9mLXRoaXMtY2x1c3Rlcg");
        assertUpRefusesTheJwt(restd, data, wrong, "refused the JWT in " + wrong);

        // a real token of this cluster whose lifetime has passed: refused before serving, saying it expired
        String shortLived = slurm.token(1);
        long expiresMs = 1000 * Json.MAPPER.readTree(java.util.Base64.getUrlDecoder().decode(shortLived.split("\\.")[1]))
                .path("exp").asLong();
        awaitTrue(() -> System.currentTimeMillis() > expiresMs + 1000, "the one-second token expired");
        Path expired = ownerOnly(data.resolve("expired.jwt"), shortLived);
        assertUpRefusesTheJwt(restd, data, expired, "the JWT in " + expired + " expired at");

        Path jwt = ownerOnly(data.resolve("slurm.jwt"), slurm.token(600));
        Engine engine = engine(data, freePort(), "--max-nodes", "1", "--idle-release", "5", "--slurmrestd", restd,
                "--slurm-jwt-file", jwt.toString());
        Process run = run(engine, data.resolve("run.out"), ring, "ranks=2");
        String runId = awaitRunId(engine);
        JsonNode result = result(run, data.resolve("run.out"));
        assertEquals("SUCCEEDED", result.get("state").asText(), result.toString());
        JsonNode detail = Http.get(engine.url + "/api/runs/" + runId).json();
        assertTrue(detail.at("/ranks/0/host").asText().startsWith("slurm-"), "on the job's host: " + detail);
        assertEquals(1, jobLogs(data).size(), "one job, submitted through slurmrestd: " + jobLogs(data));
        printStartLatency("slurmrestd", engine, runId);
        awaitTrue(() -> squeue().isEmpty(), "the idle job was released through slurmrestd");
    }

    /** More CPUs per job than the partition's nodes have: mpflc up refuses before it serves, instead of jobs pending for ever. */
    @Test
    void jobsLargerThanAnyNodeAreRefusedAtStart() throws Exception {
        Path data = dir.resolve("too-big");
        Files.createDirectories(data);
        Path log = data.resolve("up.log");
        Process up = child(List.of(mpflc.toString(), "up", "--port", "0", "--bind", "127.0.0.1", "--data", data.toString(),
                "--provider", "slurm", "--partition", "debug", "--cpus-per-node", "4096", "--node-mpflc", mpflc.toString()), log);
        assertTrue(up.waitFor(WAIT_S, TimeUnit.SECONDS), "mpflc up stopped: " + Files.readString(log));
        String said = Files.readString(log);
        assertTrue(up.exitValue() != 0 && said.contains("no node of partition 'debug' has 4096 CPUs (sinfo: ")
                && said.contains("give --cpus-per-node "), said);
        assertFalse(said.contains("MPFL engine and console"), "it did not serve: " + said);

        // the same through slurmrestd, and a partition Slurm does not have
        String restd = slurm.startRestd();
        Path jwt = ownerOnly(data.resolve("slurm.jwt"), slurm.token(600));
        for (String partition : List.of("debug", "no-such")) {
            Path restLog = data.resolve("up-rest-" + partition + ".log");
            Process rest = child(List.of(mpflc.toString(), "up", "--port", "0", "--bind", "127.0.0.1", "--data", data.toString(),
                    "--provider", "slurm", "--partition", partition, "--cpus-per-node", "4096", "--node-mpflc", mpflc.toString(),
                    "--slurmrestd", restd, "--slurm-jwt-file", jwt.toString()), restLog);
            assertTrue(rest.waitFor(WAIT_S, TimeUnit.SECONDS), "mpflc up stopped: " + Files.readString(restLog));
            String restSaid = Files.readString(restLog);
            assertTrue(rest.exitValue() != 0 && (partition.equals("debug")
                    ? restSaid.contains("no node of partition 'debug' has 4096 CPUs (slurmrestd: ") && restSaid.contains("give --cpus-per-node ")
                    : restSaid.contains("Slurm has no partition 'no-such' (slurmrestd's nodes are in: debug")), restSaid);
            assertFalse(restSaid.contains("MPFL engine and console"), "it did not serve: " + restSaid);
        }
    }

    /**
     * The partition's own limits count: a run needing more places than its nodes hold at once (here the one node,
     * room for nproc/2 jobs of 2 CPUs) fails at once although --max-nodes would allow it (it waited for ever, one job
     * pending Resources behind the other); a --walltime longer than the partition's MaxTime stops mpflc up before it
     * serves, through sbatch's tools and slurmrestd (every job would pend PartitionTimeLimit).
     */
    @Test
    void thePartitionsNodesAndMaxTimeCountInWhatCanEverFit() throws Exception {
        int jobsAtOnce = Runtime.getRuntime().availableProcessors() / 2;
        int ranks = 2 * jobsAtOnce + 1;
        Path data = dir.resolve("partition");
        String restd = slurm.startRestd();
        Path jwt = ownerOnly(Files.createDirectories(data).resolve("slurm.jwt"), slurm.token(600));
        for (List<String> via : List.of(List.<String>of(), List.of("--slurmrestd", restd, "--slurm-jwt-file", jwt.toString()))) {
            Path engineData = data.resolve(via.isEmpty() ? "sbatch" : "slurmrestd");
            List<String> args = new ArrayList<>(List.of("--max-nodes", String.valueOf(jobsAtOnce + 1), "--idle-release", "5"));
            args.addAll(via);
            Engine engine = engine(engineData, freePort(), args.toArray(String[]::new));
            Process run = run(engine, engineData.resolve("run.out"), ring, "ranks=" + ranks);
            JsonNode result = result(run, engineData.resolve("run.out"));
            assertEquals("FAILED", result.get("state").asText(), result.toString());
            String error = result.toString();
            assertTrue(error.contains("the run needs " + ranks + " ranks at once") && error.contains("partition 'debug' has 1 node: "
                    + slurm.node() + " ") && error.contains("room for at most " + jobsAtOnce + " job") && error.contains("--max-nodes "
                    + (jobsAtOnce + 1)), error);
            assertTrue(jobLogs(engineData).isEmpty(), "no job submitted for it: " + jobLogs(engineData));
        }

        SlurmCluster.run(List.of("scontrol", "update", "PartitionName=debug", "MaxTime=10"), slurm.environment());
        try {
            Path log = data.resolve("up-walltime.log");
            Process up = child(List.of(mpflc.toString(), "up", "--port", "0", "--bind", "127.0.0.1", "--data", data.resolve("w").toString(),
                    "--provider", "slurm", "--partition", "debug", "--walltime", "1:00:00", "--node-mpflc", mpflc.toString()), log);
            assertTrue(up.waitFor(WAIT_S, TimeUnit.SECONDS), "mpflc up stopped: " + Files.readString(log));
            String said = Files.readString(log);
            assertTrue(up.exitValue() != 0 && said.contains("--walltime 1:00:00 is longer than partition 'debug' allows (MaxTime=00:10:00"),
                    said);
            Path restLog = data.resolve("up-walltime-rest.log");
            Process rest = child(List.of(mpflc.toString(), "up", "--port", "0", "--bind", "127.0.0.1", "--data", data.resolve("w").toString(),
                    "--provider", "slurm", "--partition", "debug", "--walltime", "1:00:00", "--node-mpflc", mpflc.toString(),
                    "--slurmrestd", restd, "--slurm-jwt-file", jwt.toString()), restLog);
            assertTrue(rest.waitFor(WAIT_S, TimeUnit.SECONDS), "mpflc up stopped: " + Files.readString(restLog));
            String restSaid = Files.readString(restLog);
            assertTrue(rest.exitValue() != 0 && restSaid.contains("--walltime 1:00:00 is longer than partition 'debug' allows (MaxTime=10"),
                    restSaid);
        } finally {
            SlurmCluster.run(List.of("scontrol", "update", "PartitionName=debug", "MaxTime=UNLIMITED"), slurm.environment());
        }
    }

    // ------------------------------------------------------------------ helpers

    /**
     * {@code mpflc up} through slurmrestd with the JWT in {@code jwtFile}: it stops before it serves,
     * saying {@code expected} and how to make a new token.
     */
    private void assertUpRefusesTheJwt(String restd, Path data, Path jwtFile, String expected) throws Exception {
        Path log = data.resolve(jwtFile.getFileName() + ".log");
        Process up = child(List.of(mpflc.toString(), "up", "--port", "0", "--bind", "127.0.0.1", "--data", data.toString(),
                "--provider", "slurm", "--partition", "debug", "--node-mpflc", mpflc.toString(), "--slurmrestd", restd,
                "--slurm-jwt-file", jwtFile.toString()), log);
        assertTrue(up.waitFor(WAIT_S, TimeUnit.SECONDS), "mpflc up stopped: " + Files.readString(log));
        String said = Files.readString(log);
        assertTrue(up.exitValue() != 0 && said.contains(expected) && said.contains("scontrol token"), said);
        assertFalse(said.contains("MPFL engine and console"), "it did not serve: " + said);
    }

    private static Path ownerOnly(Path file, String text) throws IOException {
        Files.writeString(file, text + "\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    /** An engine process and its log. */
    record Engine(Process process, String url, Path log) {
    }

    /**
     * Prints how long a queued run took from being accepted to all ranks RUNNING, split into Slurm's
     * part (sbatch → the job RUNNING, as the engine's 1 s poll saw it: an upper bound) and MPFL's (the
     * rest: deciding to submit, the host's JVM start and enrolment, placement, deployment, fan-out),
     * from the engine's log and the run's record. docs/benchmarks.md quotes these lines.
     */
    private static void printStartLatency(String path, Engine engine, String runId) throws Exception {
        JsonNode d = Http.get(engine.url + "/api/runs/" + runId).json();
        java.util.regex.Pattern timing = java.util.regex.Pattern.compile("timing submittedMs=(\\d+) runningSeenMs=(\\d+) joinedSeenMs=(\\d+)");
        // the run can be placed on the new host (the registry's enrolment event) before the capacity manager's
        // next 1 s poll notices the join and logs its timing: wait for that line
        awaitTrue(() -> timing.matcher(readLog(engine)).find(), "the engine logged the job's timing");
        java.util.regex.Matcher m = timing.matcher(Files.readString(engine.log));
        assertTrue(m.find(), "the engine logged the job's timing");
        long submitted = Long.parseLong(m.group(1));
        long running = Long.parseLong(m.group(2));
        long allRunning = d.get("startedMs").asLong() + d.get("startupMs").asLong();
        long total = allRunning - d.get("createdMs").asLong();
        // a poll delayed past the host's start (a slow squeue under load) sees RUNNING and the join at once: the
        // job was RUNNING by the time its ranks ran at the latest
        long slurm = Math.min(running, allRunning) - submitted;
        assertTrue(slurm >= 0 && total >= slurm, "the parts add up: " + d);
        System.out.printf("start latency of a queued run via %s: accepted -> all ranks RUNNING %d ms = Slurm (sbatch -> job RUNNING,"
                + " seen by a 1 s poll) <= %d ms + MPFL %d ms%n", path, total, slurm, total - slurm);
    }

    private Engine engine(Path data, int port, String... more) throws Exception {
        return engine(data, port, java.util.Map.of(), more);
    }

    /** An engine whose environment has {@code env} on top of the cluster's (e.g. a PATH with stand-ins first). */
    private Engine engine(Path data, int port, java.util.Map<String, String> env, String... more) throws Exception {
        Files.createDirectories(data);
        Path log = data.resolve("engine-" + System.nanoTime() + ".log");
        List<String> cmd = new ArrayList<>(List.of(mpflc.toString(), "up", "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--data", data.toString(), "--provider", "slurm", "--partition", "debug",
                "--node-mpflc", mpflc.toString(), "--node-bind", "127.0.0.1", "--job-log-dir", data.resolve("jobs").toString()));
        if (!List.of(more).contains("--cpus-per-node")) {
            cmd.addAll(List.of("--cpus-per-node", "2"));
        }
        cmd.addAll(List.of(more));
        Process p = child(cmd, log, env);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (System.nanoTime() < end) {
            String text = Files.exists(log) ? Files.readString(log) : "";
            if (text.contains("press Ctrl-C to stop")) {
                // the banner says where capacity comes from, and the bounds it works to (the join timeout too)
                assertTrue(text.contains("capacity from Slurm: partition debug through " + (List.of(more).contains("--slurmrestd")
                        ? "slurmrestd at " : "sbatch, up to ")), text);
                int join = List.of(more).indexOf("--join-timeout");
                assertTrue(text.contains("a job whose host has not joined after " + (join < 0 ? "300" : more[join + 1]) + " s is cancelled"),
                        text);
                return new Engine(p, "http://127.0.0.1:" + port, log);
            }
            if (!p.isAlive()) {
                throw new AssertionError("the engine exited: " + text);
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the engine did not start within " + WAIT_S + " s: " + Files.readString(log));
    }

    private Process run(Engine engine, Path out, Path workflow, String param) throws IOException {
        return child(List.of(mpflc.toString(), "run", workflow.toString(), "--engine", engine.url, "--data",
                out.getParent().toString(), "--json", "--param", param), out);
    }

    private Process child(List<String> cmd, Path out) throws IOException {
        return child(cmd, out, java.util.Map.of());
    }

    private Process child(List<String> cmd, Path out, java.util.Map<String, String> env) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().putAll(slurm.environment());
        pb.environment().putAll(env);
        Process p = pb.start();
        children.add(p);
        return p;
    }

    private static JsonNode result(Process run, Path out) throws Exception {
        assertTrue(run.waitFor(WAIT_S * 2L, TimeUnit.SECONDS), "the run ended: " + Files.readString(out));
        String text = Files.readString(out);
        String json = text.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElseThrow(() -> new AssertionError(text));
        return Json.MAPPER.readTree(json);
    }

    private static List<JsonNode> runs(Engine engine) {
        return runs(engine, "");
    }

    private static List<JsonNode> runs(Engine engine, String query) {
        try {
            List<JsonNode> out = new ArrayList<>();
            Http.get(engine.url + "/api/runs" + query).json().forEach(out::add);
            return out;
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String awaitRunId(Engine engine) throws InterruptedException {
        awaitTrue(() -> !runs(engine).isEmpty(), "the run was accepted");
        return runs(engine).get(0).get("id").asText();
    }

    private static String state(Engine engine, String runId) {
        try {
            return Http.get(engine.url + "/api/runs/" + runId).json().path("state").asText();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String awaitReason(Engine engine, String runId, String part) throws Exception {
        String[] last = {""};
        awaitTrue(() -> {
            try {
                last[0] = Http.get(engine.url + "/api/runs/" + runId).json().at("/queue/reason").asText("");
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return last[0].contains(part);
        }, "the run waits for its job: " + part);
        return last[0];
    }

    private static List<JsonNode> hosts(Engine engine) {
        try {
            List<JsonNode> out = new ArrayList<>();
            Http.get(engine.url + "/api/registry/hosts").json().forEach(out::add);
            return out;
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Submits a job from outside that holds the node (select/linear: the whole node) until cancelled; its
     * id. Not waited for: Slurm starts it while the test's engine JVM starts ({@link #awaitRunning} before
     * the run that makes the engine submit its own job).
     */
    private static String sbatchBlocker() throws Exception {
        return SlurmCluster.run(List.of("sbatch", "--parsable", "--nodes=1", "--output=/dev/null", "--wrap=sleep 600"),
                slurm.environment()).strip();
    }

    private static void awaitRunning(String job) throws InterruptedException {
        awaitTrue(() -> squeue().stream().anyMatch(l -> l.startsWith(job + "|RUNNING")), "job " + job + " runs");
    }

    /** Every job squeue lists, as {@code ID|STATE|NAME}. */
    private static List<String> squeue() {
        try {
            return SlurmCluster.run(List.of("squeue", "-h", "-o", "%i|%T|%j"), slurm.environment()).lines()
                    .map(String::strip).filter(s -> !s.isEmpty()).toList();
        } catch (IOException e) {
            throw new AssertionError(e.getMessage(), e);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes an executable stand-in for one of Slurm's tools into {@code dir}: {@code #!/bin/sh}, then these lines. */
    private static void standIn(Path dir, String tool, String... lines) throws IOException {
        Path f = dir.resolve(tool);
        Files.writeString(f, "#!/bin/sh\n" + String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(f, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    }

    /** The environment that puts {@code dir} first on the PATH, so that the engine runs the stand-ins in it. */
    private static java.util.Map<String, String> pathFirst(Path dir) {
        return java.util.Map.of("PATH", dir + ":" + System.getenv("PATH"));
    }

    /** The ids of the jobs the engine holds, as GET /api/capacity lists them (none while it does not answer). */
    private static List<String> capacityJobIds(Engine engine) {
        try {
            List<String> out = new ArrayList<>();
            Http.get(engine.url + "/api/capacity").json().path("jobs").forEach(j -> {
                if (j.hasNonNull("jobId")) {
                    out.add(j.get("jobId").asText());
                }
            });
            return out;
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The jobs the engine submitted: one output file each. */
    private static List<Path> jobLogs(Path data) throws IOException {
        if (!Files.isDirectory(data.resolve("jobs"))) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(data.resolve("jobs"))) {
            return files.toList();
        }
    }

    /** The credential in the environment of the job's host process (read as root from /proc). */
    private static String hostCredential() throws IOException {
        Set<String> found = new HashSet<>();
        for (ProcessHandle p : ProcessHandle.allProcesses().toList()) {
            String c = p.info().commandLine().orElse("");
            if (c.contains(mpflc.toString()) || c.contains(Mpflc.class.getName()) && c.contains(" host ")) {
                try {
                    String env = Files.readString(Path.of("/proc", String.valueOf(p.pid()), "environ"), StandardCharsets.ISO_8859_1);
                    for (String kv : env.split("\0")) {
                        if (kv.startsWith(HostCredential.ENV + "=")) {
                            found.add(kv.substring(HostCredential.ENV.length() + 1));
                        }
                    }
                } catch (IOException e) {
                    // it ended meanwhile
                }
            }
        }
        assertEquals(1, found.size(), "one host credential in the job's processes");
        return found.iterator().next();
    }

    private static List<String> commandLines() {
        List<String> out = new ArrayList<>();
        ProcessHandle.allProcesses().forEach(p -> p.info().commandLine().ifPresent(out::add));
        return out;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String readLog(Engine engine) {
        try {
            return Files.readString(engine.log);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError(what + " (not within " + WAIT_S + " s)" + slurm.logs());
            }
            Thread.sleep(200);
        }
    }
}
