package org.mpfl.engine.cli;

import org.mpfl.ir.cli.Commands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.Await;
import org.mpfl.engine.HostCalls;

/** The engine's mpflc commands as a user types them. */
@Timeout(180)
class CliTest {
    @TempDir
    Path dir;
    private String home;

    /** The commands look for an engine in ~/.mpfl/engine: the tests' own, not one the developer's machine runs. */
    @BeforeEach
    void ownHome() {
        home = System.setProperty("user.home", dir.resolve("home").toString());
    }

    @AfterEach
    void restoreHome() {
        System.setProperty("user.home", home);
    }

    record Result(int exit, String out, String err) {
        JsonNode json() throws Exception {
            return Json.MAPPER.readTree(out);
        }
    }

    static Result mpflc(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Commands.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    Path plan(String service, int ranks) throws Exception {
        Path p = dir.resolve(service + ".json");
        Files.writeString(p, Json.write(Map.of("workflow", service, "processes", List.of(Map.of("name", service, "service", service, "ranks", ranks)))));
        return p;
    }

    @Test
    @StartsProcesses
    void runLocalStartsHostsRunsTheRingAndPrintsOneJsonObject() throws Exception {
        Result r = mpflc("run", plan("ring", 4).toString(), "--local", "--hosts", "2", "--service",
                "ring=org.mpfl.engine.e2e.RingProgram", "--param", "rounds=2", "--json");
        assertEquals(0, r.exit(), r.err() + r.out());
        assertEquals(1, r.out().strip().lines().count(), "exactly one JSON object: " + r.out());
        JsonNode j = r.json();
        assertEquals("SUCCEEDED", j.get("state").asText());
        assertEquals(8, j.at("/outputs/token/0").asInt());
        assertTrue(j.get("error").isNull());
        assertTrue(j.get("elapsedMs").asLong() > 0);
        assertEquals(List.of("run", "state", "outputs", "error", "elapsedMs"), iterable(j));
    }

    @Test
    @StartsProcesses
    void runLocalFailingRankExitsOneWithTheCause() throws Exception {
        Result r = mpflc("run", plan("failing", 3).toString(), "--local", "--service", "failing=org.mpfl.engine.e2e.FailingProgram");
        assertEquals(1, r.exit(), r.err());
        assertTrue(r.err().contains("FAILED: rank 1"), r.err());
        assertTrue(r.err().contains("boom in rank 1"), r.err());
    }

    @Test
    @StartsProcesses
    void runLocalWithADocumentThatDoesNotCompileReportsWhereAndGivesTheClusterStartUp() throws Exception {
        Path doc = Files.writeString(dir.resolve("broken.mpfl.xml"), """
                <workflow xmlns="urn:mpfl:1.0" name="broken" version="1">
                  <process name="p" ranks="2" service="P">
                    <send to="nowhere" data="1"/>
                  </process>
                </workflow>
                """);
        Result r = mpflc("run", doc.toString(), "--local");
        assertEquals(1, r.exit(), r.err());
        assertTrue(r.err().contains("broken.mpfl.xml:3:"), "file:line:col of the error: " + r.err());
        assertTrue(!r.err().contains("FAILED") && !r.err().contains("Exception"), "no run, no stack trace: " + r.err());
    }

    @Test
    void statusCancelAndTokenAgainstARunningEngine() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> r.awaitAbort(30_000))))) {
            HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s",
                    "services", List.of("w")));
            Path wrongToken = Files.writeString(dir.resolve("wrong.token"), "wrong\n");
            Result refused = mpflc("run", plan("w", 2).toString(), "--engine", engine.url(), "--token-file", wrongToken.toString());
            assertEquals(1, refused.exit());
            assertTrue(refused.err().contains("wrong engine token"), refused.err());

            String id = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "w",
                    "processes", List.of(Map.of("name", "w", "ranks", 2))))).json().get("id").asText();
            // the run is placed asynchronously: status lists ranks once they are placed (bounded wait)
            Await.until(Duration.ofSeconds(30), "both ranks placed", () -> Http.get(engine.url() + "/api/runs/" + id).json(),
                    d -> d.path("ranks").size() >= 2);
            Result status = mpflc("status", id, "--engine", engine.url());
            assertEquals(1, status.exit(), "not SUCCEEDED (yet)");
            assertTrue(status.out().contains("run " + id), status.out());
            assertTrue(status.out().contains("rank 1"), status.out());

            String data = dir.resolve("engine").toString();
            Result cancel = mpflc("cancel", id, "--engine", engine.url(), "--data", data);
            assertEquals(0, cancel.exit(), cancel.err());
            Result again = mpflc("cancel", id, "--engine", engine.url(), "--data", data);
            assertEquals(1, again.exit());
            Result json = mpflc("status", id, "--engine", engine.url(), "--json");
            assertEquals("CANCELLED", json.json().get("state").asText());
        }
    }

    @Test
    void hostsListsTheRegistryWithTheRanksInUseOfEachHost() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> r.awaitAbort(30_000))))) {
            Result none = mpflc("hosts", "--engine", engine.url());
            assertEquals(0, none.exit(), none.err());
            assertTrue(none.out().startsWith("no service hosts registered (start some: mpflc up --hosts N"), none.out());
            HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("w", "v"),
                    "capacity", 4, "site", "lab"));
            String id = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "w",
                    "processes", List.of(Map.of("name", "w", "ranks", 3))))).json().get("id").asText();
            Await.until(Duration.ofSeconds(30), "the run's ranks placed", () -> Http.get(engine.url() + "/api/runs/" + id).json(),
                    d -> d.path("ranks").size() == 3);
            Result listed = mpflc("hosts", "--engine", engine.url());
            assertEquals(0, listed.exit(), listed.err());
            List<String> lines = listed.out().lines().toList();
            assertTrue(lines.get(0).matches("HOST +SITE +RANKS +HEARTBEAT +STATE +SERVICES"), listed.out());
            assertTrue(lines.get(1).matches("h +lab +3/4 +\\d+ s ago +ok +(w,v|v,w)"), listed.out());
            assertFalse(listed.out().contains("capacity"), "no capacity section without a provider: " + listed.out());
            Result json = mpflc("hosts", "--engine", engine.url(), "--json");
            assertEquals(3, json.json().get("hosts").get(0).get("ranksInUse").asInt(), json.out());
            assertTrue(json.json().get("capacity").isNull(), json.out());
            assertEquals(0, mpflc("cancel", id, "--engine", engine.url(), "--data", dir.resolve("engine").toString()).exit());
            Await.until(Duration.ofSeconds(30), "the slots free again", () -> mpflc("hosts", "--engine", engine.url()).out(),
                    out -> out.contains(" 0/4 "));
        }
    }

    /**
     * On an engine with a capacity provider, {@code mpflc hosts} lists its jobs after the hosts, also a pending one whose
     * host is not registered yet, and why the next job waits when one failed to start; {@code --json} has them too.
     */
    @Test
    void hostsListsTheCapacityProvidersJobsAndWhyTheNextOneWaits() throws Exception {
        org.mpfl.engine.capacity.FakeScheduler slurm = new org.mpfl.engine.capacity.FakeScheduler();
        try (Engine engine = Engine.start(slurm.engineConfig(dir.resolve("engine"), 1, 2)
                .heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT))) {
            Result idle = mpflc("hosts", "--engine", engine.url());
            assertEquals(0, idle.exit(), idle.err());
            assertTrue(idle.out().contains("capacity: Slurm jobs, at most 1 at once of 2 CPUs each\n  no Slurm jobs"), idle.out());
            assertEquals(201, Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "w",
                    "processes", List.of(Map.of("name", "w", "service", "w", "ranks", 2))))).status());
            Result pending = Await.until(Duration.ofSeconds(30), "job 100 listed", () -> mpflc("hosts", "--engine", engine.url()),
                    r -> r.out().contains("PENDING"));
            String hostId = slurm.submitted.get(0).hostId();
            List<String> lines = pending.out().lines().toList();
            assertTrue(lines.get(0).startsWith("no service hosts registered"), pending.out());
            assertTrue(lines.stream().anyMatch(l -> l.matches("  JOB +STATE +NODE +HOST")), pending.out());
            assertTrue(lines.stream().anyMatch(l -> l.matches("  100 +PENDING \\(Resources\\) +- +" + hostId)), pending.out());
            assertFalse(pending.out().contains(slurm.submitted.get(0).credential()), "no credential: " + pending.out());
            JsonNode json = mpflc("hosts", "--engine", engine.url(), "--json").json();
            assertEquals(0, json.get("hosts").size(), json.toString());
            assertEquals("100", json.at("/capacity/jobs/0/jobId").asText(), json.toString());
            assertEquals("PENDING", json.at("/capacity/jobs/0/state").asText(), json.toString());

            slurm.end("100", "FAILED", "JobLaunchFailure");
            Result failed = Await.until(Duration.ofSeconds(30), "the start failure listed", () -> mpflc("hosts", "--engine", engine.url()),
                    r -> r.out().contains("start failure:"));
            assertTrue(failed.out().contains("  start failure: 1 Slurm job in a row ended before their host joined (last: Slurm job 100"
                    + " ended: FAILED (JobLaunchFailure)"), failed.out());
            assertTrue(failed.out().lines().anyMatch(l -> l.matches("  next submission: not before \\d\\d:\\d\\d:\\d\\d \\(in \\d+ s\\)")),
                    failed.out());
        }
    }

    /** A run across sites: status says how the sites were chosen and each rank's site. */
    /** A rank the run does not have is an error naming the ranks it has: it used to print nothing and exit 0, as for a quiet rank. */
    @Test
    void logsOfARankTheRunDoesNotHaveNamesTheRanksItHas() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> r.awaitAbort(30_000))))) {
            HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("w"), "capacity", 4));
            String id = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "w",
                    "processes", List.of(Map.of("name", "w", "ranks", 4))))).json().get("id").asText();
            Await.until(Duration.ofSeconds(30), "the four ranks placed", () -> Http.get(engine.url() + "/api/runs/" + id).json(),
                    d -> d.path("ranks").size() == 4);
            Result none = mpflc("logs", id, "--engine", engine.url(), "--rank", "99");
            assertEquals(1, none.exit(), none.out() + none.err());
            assertTrue(none.err().contains("run " + id + " has ranks 0-3; there is no rank 99"), none.err());
            assertEquals(400, Http.get(engine.url() + "/api/runs/" + id + "/logs?rank=4").status());
            Result quiet = mpflc("logs", id, "--engine", engine.url(), "--rank", "3");
            assertEquals(0, quiet.exit(), quiet.err());
            assertEquals("", quiet.out());
            assertEquals(0, mpflc("cancel", id, "--engine", engine.url(), "--data", dir.resolve("engine").toString()).exit());
        }
    }

    @Test
    void statusSaysThePlacementAndEachRanksSite() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> r.awaitAbort(30_000))))) {
            HostCalls.announce(engine, Map.of("hostId", "a1", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("w"),
                    "capacity", 1, "site", "A"));
            HostCalls.announce(engine, Map.of("hostId", "b1", "soapUrl", "http://127.0.0.1:2/s", "services", List.of("w"),
                    "capacity", 1, "site", "B"));
            String id = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "w",
                    "processes", List.of(Map.of("name", "w", "ranks", 2))))).json().get("id").asText();
            Await.until(Duration.ofSeconds(30), "both ranks placed", () -> Http.get(engine.url() + "/api/runs/" + id).json(),
                    d -> d.path("ranks").size() == 2);
            Result status = mpflc("status", id, "--engine", engine.url());
            assertTrue(status.out().contains("placement: spans sites "), status.out());
            assertTrue(status.out().contains("host a1 (site A)") && status.out().contains("host b1 (site B)"), status.out());
            assertEquals(0, mpflc("cancel", id, "--engine", engine.url(), "--data", dir.resolve("engine").toString()).exit());
        }
    }

    @Test
    void runsListsTheEnginesRunsNewestFirstChosenByStateAndWorkflowAndAsJson() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> r.awaitAbort(30_000))))) {
            HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("w", "v")));
            assertEquals("no runs yet", mpflc("runs", "--engine", engine.url()).out().strip());
            String first = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "w",
                    "processes", List.of(Map.of("name", "w", "ranks", 2))))).json().get("id").asText();
            // newest first: the second run is created in a later millisecond than the first
            long firstCreated = Http.get(engine.url() + "/api/runs/" + first).json().get("createdMs").asLong();
            Await.until(Duration.ofSeconds(5), "the clock passed the first run's creation", () -> System.currentTimeMillis() > firstCreated);
            String second = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "v",
                    "processes", List.of(Map.of("name", "v", "ranks", 1))))).json().get("id").asText();
            assertEquals(0, mpflc("cancel", first, "--engine", engine.url(), "--data", dir.resolve("engine").toString()).exit());

            Result all = mpflc("runs", "--engine", engine.url());
            assertEquals(0, all.exit(), all.err());
            List<String> lines = all.out().lines().toList();
            assertEquals(List.of("RUN", "WORKFLOW", "STATE", "CREATED", "TIME", "RANKS", "ERROR"),
                    List.of(lines.get(0).split("\\s+")), all.out());
            assertEquals(3, lines.size(), all.out());
            assertTrue(lines.get(1).startsWith(second + "  v ") && lines.get(2).startsWith(first + "  w "), "newest first: " + all.out());
            assertTrue(lines.get(2).contains(" CANCELLED ") && lines.get(2).matches(".* 2( .*)?$"), "its state and ranks: " + all.out());

            Result cancelled = mpflc("runs", "--engine", engine.url(), "--state", "cancelled");
            assertEquals(2, cancelled.out().lines().count(), cancelled.out());
            assertTrue(cancelled.out().contains(first) && !cancelled.out().contains(second), cancelled.out());
            assertEquals("no runs match", mpflc("runs", "--engine", engine.url(), "--workflow", "nosuch").out().strip());
            Result misspelt = mpflc("runs", "--engine", engine.url(), "--state", "runing");
            assertEquals(1, misspelt.exit(), misspelt.out());
            assertTrue(misspelt.err().contains("no run state 'runing'; one of PENDING, QUEUED, RUNNING, SUCCEEDED, FAILED,"
                    + " CANCELLED"), "not an empty list: " + misspelt.err());
            Result one = mpflc("runs", "--engine", engine.url(), "--limit", "1");
            assertTrue(one.out().contains(second) && !one.out().contains(first), one.out());
            assertTrue(one.out().strip().endsWith("(more runs: --limit N shows more, --state, --workflow and --project choose)"), one.out());
            JsonNode json = mpflc("runs", "--engine", engine.url(), "--json").json();
            assertEquals(2, json.size(), json.toString());
            assertEquals(second, json.get(0).get("id").asText());
            assertEquals(2, mpflc("runs", "--engine", engine.url(), "--limit", "0").exit());
            // the engine's largest page: asked for 10001 (one more, are there more?), the engine refused it
            Result page = mpflc("runs", "--engine", engine.url(), "--limit", "10000");
            assertEquals(0, page.exit(), page.err());
            assertEquals(3, page.out().lines().count(), page.out());
            Result beyond = mpflc("runs", "--engine", engine.url(), "--limit", "2147483647");
            assertEquals(2, beyond.exit(), beyond.err());
            assertEquals("mpflc runs: --limit must be from 1 to 10000 (the most runs the engine lists at once)\n", beyond.err());
        }
    }

    @Test
    void runFindsTheEngineOfADataDirectoryAsTheOtherClientCommandsDo() throws Exception {
        Path data = dir.resolve("engine");
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(data).invoker(new FakeRanks(r -> r.state("DONE"))))) {
            HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("w")));
            Result run = mpflc("run", plan("w", 2).toString(), "--data", data.toString(), "--json");
            assertEquals(0, run.exit(), run.err() + run.out());
            assertEquals("SUCCEEDED", run.json().get("state").asText(), run.out());
            assertEquals(run.json().get("run").asText(), Http.get(engine.url() + "/api/runs/" + run.json().get("run").asText())
                    .json().get("id").asText(), "the run is the engine's");
        }
        Result nowhere = mpflc("run", plan("w", 2).toString(), "--data", dir.resolve("no-engine-here").toString());
        assertEquals(2, nowhere.exit(), nowhere.err());
        assertTrue(nowhere.err().contains("give --engine URL (or set $MPFL_ENGINE); " + dir.resolve("no-engine-here")
                + " names no engine: it does once 'mpflc up --data DIR' started one there; or run here with --local"), nowhere.err());
        Result runs = mpflc("runs", "--data", dir.resolve("no-engine-here").toString());
        assertEquals(2, runs.exit(), runs.err());
        assertTrue(runs.err().contains(dir.resolve("no-engine-here") + " names no engine"), runs.err());
    }

    /** A workflow 'p' with an int param 'n' (default 1) whose one rank outputs 'twice' = 2 * n. */
    private static final String TWICE_N = """
            <workflow xmlns="urn:mpfl:1.0" name="p">
              <param name="n" type="int" default="1"/>
              <process name="w" ranks="1">
                <output name="twice" value="2 * n"/>
              </process>
            </workflow>
            """;

    @Test
    void runTakesParamsWithTheShortDashPAsCheckDoes() throws Exception {
        Path doc = Files.writeString(dir.resolve("p.mpfl.xml"), TWICE_N);
        Result r = mpflc("run", doc.toString(), "--local", "-p", "n=21", "--json");
        assertEquals(0, r.exit(), r.err());
        assertEquals(42, r.json().get("outputs").get("twice").get("0").asInt(), r.out());
    }

    /**
     * A stored workflow's run with a {@code --param} its workflow does not declare is refused in the command line's words,
     * as check says it: the engine names the value by its REST field ({@code 'params.zz'}), which the command line sent.
     */
    @Test
    void aStoredWorkflowsUnknownParamIsSaidAsTheOptionThatGaveIt() throws Exception {
        Path doc = Files.writeString(dir.resolve("p.mpfl.xml"), TWICE_N);
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> { })))) {
            String data = dir.resolve("engine").toString();
            assertEquals(0, mpflc("deploy", doc.toString(), "--engine", engine.url(), "--data", data).exit());
            Result unknown = mpflc("run", "p", "--engine", engine.url(), "--data", data, "-p", "zz=1");
            assertEquals(1, unknown.exit(), unknown.err());
            assertTrue(unknown.err().contains("error: --param zz: the workflow has no param 'zz' (it declares n)"), unknown.err());
            Result wrong = mpflc("run", "p", "--engine", engine.url(), "--data", data, "-p", "n=abc");
            assertTrue(wrong.err().contains("error: --param n=abc: not a valid int"), wrong.err());
            assertFalse(unknown.err().contains("params") || wrong.err().contains("params"), unknown.err() + wrong.err());
        }
    }

    /**
     * {@code run FILE --engine} and {@code run NAME --engine} without a value for a param that has no default are refused
     * before the run starts, at the {@code <param>} and in the command line's words, as {@code run --local} refuses it:
     * the run was started and failed at every rank's start, without the param's place in the document.
     */
    @Test
    void aRunOnAnEngineWithoutARequiredParamIsRefusedAtItsDeclaration() throws Exception {
        Path doc = Files.writeString(dir.resolve("q.mpfl.xml"), """
                <workflow xmlns="urn:mpfl:1.0" name="q">
                  <param name="n" type="int"/>
                  <process name="w" ranks="1">
                    <output name="twice" value="2 * n"/>
                  </process>
                </workflow>
                """);
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> { })))) {
            String data = dir.resolve("engine").toString();
            Result file = mpflc("run", doc.toString(), "--engine", engine.url(), "--data", data, "--timeout", "30");
            assertEquals(1, file.exit(), file.err());
            assertTrue(file.err().contains(doc + ":2:3: error: param 'n' has no value: it has no default, so give it with --param n=VALUE"),
                    file.err());
            assertEquals(0, mpflc("deploy", doc.toString(), "--engine", engine.url(), "--data", data).exit());
            Result stored = mpflc("run", "q", "--engine", engine.url(), "--data", data, "--timeout", "30");
            assertEquals(1, stored.exit(), stored.err());
            assertTrue(stored.err().contains(":2:3: error: param 'n' has no value: it has no default, so give it with --param n=VALUE"),
                    stored.err());
            assertEquals("0", Http.send("GET", engine.url() + "/api/runs", "Bearer " + engine.token(), null).headers()
                    .firstValue("X-Total-Count").orElse(null), "no run was started");
        }
    }

    /** A document whose param {@code n} (line 2, column 3) has no default, and {@code m} has one. */
    private Path requiredParamDocument() throws IOException {
        return Files.writeString(dir.resolve("q.mpfl.xml"), """
                <workflow xmlns="urn:mpfl:1.0" name="q">
                  <param name="n" type="int"/>
                  <param name="m" type="int" default="1"/>
                  <process name="w" ranks="1">
                    <output name="twice" value="2 * n * m"/>
                  </process>
                </workflow>
                """);
    }

    /**
     * A sweep whose every combination lacks a required param's value is refused before it submits any, at the
     * {@code <param>}, as a single run is: it sent each combination, and each came back ERROR with the engine's 422.
     */
    @Test
    @Timeout(60)
    void aSweepWithoutARequiredParamIsRefusedAtItsDeclarationBeforeAnyRun() throws Exception {
        Path doc = requiredParamDocument();
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> { })))) {
            String data = dir.resolve("engine").toString();
            Result r = mpflc("run", doc.toString(), "--sweep", "m=1,2,3", "--engine", engine.url(), "--data", data, "--timeout", "30");
            assertEquals(1, r.exit(), r.err());
            assertEquals(doc + ":2:3: error: param 'n' has no value: it has no default, so give it with --param n=VALUE", r.err().strip(),
                    "said once, before the sweep begins");
            assertEquals("0", Http.send("GET", engine.url() + "/api/runs", "Bearer " + engine.token(), null).headers()
                    .firstValue("X-Total-Count").orElse(null), "no run was started");
        }
    }

    /**
     * What {@code mpflc slurm --run} checks before its srun ({@link RunCommand#wouldStart}) refuses a run without a value
     * for a param that has no default, at its {@code <param>}, as {@code mpflc run} refuses it: it said the run would
     * start, so the allocation's hosts started only for every rank to fail at its start. So for one run and for a sweep
     * that leaves it unvalued; with the value it would start.
     */
    @Test
    void whatSlurmRunChecksBeforeItsHostsStartRefusesARequiredParamWithoutValue() throws Exception {
        Path doc = requiredParamDocument();
        String refusal = doc + ":2:3: error: param 'n' has no value: it has no default, so give it with --param n=VALUE";
        for (List<String> args : List.of(List.of(doc.toString()), List.of(doc.toString(), "--sweep", "m=1,2"))) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertFalse(RunCommand.wouldStart(args, new PrintStream(err, true, StandardCharsets.UTF_8)), args + " is refused");
            assertEquals(refusal, err.toString(StandardCharsets.UTF_8).strip(), args + ": at the <param>");
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertTrue(RunCommand.wouldStart(List.of(doc.toString(), "--param", "n=3"), new PrintStream(err, true, StandardCharsets.UTF_8)),
                err.toString(StandardCharsets.UTF_8));
    }

    /** A rank count beyond what one JVM runs is refused at once, saying the limit and what to do, not left to fill the heap. */
    @Test
    @Timeout(30)
    void runLocalRefusesMoreRanksThanItsJvmRunsBeforeStartingAny() throws Exception {
        Path doc = Files.writeString(dir.resolve("wide.mpfl.xml"), """
                <workflow xmlns="urn:mpfl:1.0" name="wide">
                  <param name="np" type="int" default="2"/>
                  <process name="w" ranks="np">
                    <output name="r" value="rank"/>
                  </process>
                </workflow>
                """);
        for (String np : List.of("2147483647", "1025")) {
            Result r = mpflc("run", doc.toString(), "--local", "-p", "np=" + np);
            assertEquals(1, r.exit(), r.err());
            assertFalse(r.err().contains("running the ranks"), r.err());
            assertTrue(r.err().contains("plan 'wide' has " + np + " ranks; run --local runs at most 1024 as threads of this JVM"
                    + " (-Dmpfl.local.maxRanks)") && r.err().contains("mpflc run --engine URL"), r.err());
        }
    }

    /** As mpirun: every line a rank logs is printed, also beyond the tail a run's view keeps (no run record to read them from). */
    @Test
    void runLocalPrintsEveryLogLineOfARankThatLogsMoreThanTheViewKeeps() throws Exception {
        Path doc = Files.writeString(dir.resolve("chatty.mpfl.xml"), """
                <workflow xmlns="urn:mpfl:1.0" name="chatty">
                  <process name="w" ranks="2">
                    <for var="i" from="0" to="3000">
                      <log message="'line ' + i"/>
                    </for>
                  </process>
                </workflow>
                """);
        Result r = mpflc("run", doc.toString(), "--local");
        assertEquals(0, r.exit(), r.err());
        assertFalse(r.err().contains("not shown"), r.err().lines().filter(l -> l.contains("not shown")).toList().toString());
        for (int rank = 0; rank < 2; rank++) {
            String prefix = "rank " + rank + ": line ";
            assertEquals(3000, r.err().lines().filter(l -> l.startsWith(prefix)).count(), "every line of rank " + rank);
            assertTrue(r.err().contains(prefix + "0\n") && r.err().contains(prefix + "2999\n"), r.err());
        }
    }

    /** A document in the encoding its XML declaration names: what check accepts, run and deploy take as check read it. */
    @Test
    void runAndDeployReadADocumentInTheEncodingItDeclaresAsCheckDoes() throws Exception {
        String doc = """
                <?xml version="1.0" encoding="ISO-8859-1"?>
                <workflow xmlns="urn:mpfl:1.0" name="latin">
                  <process name="w" ranks="1">
                    <output name="word" value="'été'"/>
                  </process>
                </workflow>
                """;
        Path latin = Files.write(dir.resolve("latin.mpfl.xml"), doc.getBytes(StandardCharsets.ISO_8859_1));
        assertEquals(0, mpflc("check", latin.toString()).exit());
        Result run = mpflc("run", latin.toString(), "--local", "--json");
        assertEquals(0, run.exit(), run.err());
        assertEquals("été", run.json().get("outputs").get("word").get("0").asText(), run.out());

        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> { })))) {
            Result deploy = mpflc("deploy", latin.toString(), "--engine", engine.url(), "--data", dir.resolve("engine").toString());
            assertEquals(0, deploy.exit(), deploy.err());
            String stored = Http.send("GET", engine.url() + "/api/workflows/latin", "Bearer " + engine.token(), null).json().get("document").asText();
            assertTrue(stored.contains("'été'"), "the engine holds the text check read: " + stored);
        }

        // bytes that are not UTF-8 (no declaration): the parser's diagnostic at its position, from run as from check
        byte[] bad = doc.replace("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n", "").getBytes(StandardCharsets.ISO_8859_1);
        Path broken = Files.write(dir.resolve("broken.mpfl.xml"), bad);
        Result check = mpflc("check", broken.toString());
        Result brokenRun = mpflc("run", broken.toString(), "--local");
        assertEquals(1, check.exit());
        assertEquals(1, brokenRun.exit());
        String diagnostic = check.err().lines().findFirst().orElseThrow();
        assertTrue(diagnostic.contains("broken.mpfl.xml:3:") && diagnostic.contains("error: malformed XML: Invalid byte"), check.err());
        assertTrue(brokenRun.err().contains(diagnostic), "run reports what check reports: " + brokenRun.err());
    }

    @Test
    void aRunThatTimesOutSaysSoNotThatAUserCancelledIt() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> r.awaitAbort(30_000))))) {
            HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("w")));
            Result timedOut = mpflc("run", plan("w", 2).toString(), "--engine", engine.url(), "--data",
                    dir.resolve("engine").toString(), "--timeout", "1", "--json");
            assertEquals(1, timedOut.exit(), timedOut.err());
            assertEquals("CANCELLED", timedOut.json().path("state").asText(), timedOut.out() + timedOut.err());
            assertEquals("cancelled: --timeout 1 s passed", timedOut.json().at("/error/message").asText(), timedOut.out());
            // followed on stderr (no --json): its first line says where the console shows the run
            Result followed = mpflc("run", plan("w", 2).toString(), "--engine", engine.url(), "--data",
                    dir.resolve("engine").toString(), "--timeout", "1");
            String runId = followed.err().replaceAll("(?s).*run ([A-Za-z0-9_-]+) CANCELLED.*", "$1");
            assertTrue(followed.err().startsWith("mpflc run: run " + runId + " started; the console shows it at " + engine.url()
                    + "/#/runs/" + runId + "\n"), followed.err());

            String id = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "w",
                    "processes", List.of(Map.of("name", "w", "ranks", 2))))).json().get("id").asText();
            // the reason is the canceller's text in the run's error: one line, bounded
            Http.Answer twoLines = Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(),
                    Map.of("reason", "a\nb"));
            assertEquals(400, twoLines.status(), twoLines.body());
            assertEquals("RUNNING", Http.get(engine.url() + "/api/runs/" + id).json().get("state").asText().replace("PENDING",
                    "RUNNING"), "the refused cancel did nothing");
            Result plain = mpflc("cancel", id, "--engine", engine.url(), "--data", dir.resolve("engine").toString());
            assertEquals(0, plain.exit(), plain.err());
            assertEquals("cancelled by user", Http.get(engine.url() + "/api/runs/" + id).json().at("/error/message").asText());
            // resumed: it says from where (no checkpoint taken: from the start), and how to follow it with this engine (a user
            // walkthrough copied the command without its --engine: "give --engine URL", as run --detach's hint has it)
            Result resumed = mpflc("resume", id, "--engine", engine.url(), "--data", dir.resolve("engine").toString());
            assertEquals(0, resumed.exit(), resumed.err());
            assertTrue(resumed.out().startsWith("run " + id + " resumed (") && resumed.out().contains(": attempt 2: resumed by user (from"
                    + " the start); follow it with mpflc status " + id + " --follow --engine " + engine.url() + "\n"), resumed.out());
            assertEquals(0, mpflc("cancel", id, "--engine", engine.url(), "--data", dir.resolve("engine").toString()).exit());
        }
    }

    /** {@code --detach} starts the run and ends, leaving it running: nothing cancels it when the command ends. */
    @Test
    void aDetachedRunGoesOnAfterTheCommandEnded() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> r.awaitAbort(30_000))))) {
            HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("w")));
            Result detached = mpflc("run", plan("w", 2).toString(), "--engine", engine.url(), "--data",
                    dir.resolve("engine").toString(), "--detach");
            assertEquals(0, detached.exit(), detached.err());
            String id = detached.out().strip();
            assertTrue(id.matches("[A-Za-z0-9_-]+"), "the run's id alone on stdout: " + detached.out());
            assertTrue(detached.err().contains("mpflc status " + id + " --follow"), detached.err());
            String state = Http.get(engine.url() + "/api/runs/" + id).json().get("state").asText();
            assertTrue(state.equals("PENDING") || state.equals("RUNNING"), "still going after the command ended: " + state);
            assertEquals(0, mpflc("cancel", id, "--engine", engine.url(), "--data", dir.resolve("engine").toString()).exit());

            assertEquals(2, mpflc("run", plan("w", 2).toString(), "--local", "--detach").exit(), "a --local run cannot go on");
            assertEquals(2, mpflc("run", plan("w", 2).toString(), "--engine", engine.url(), "--detach", "--timeout", "5").exit());
        }
    }

    @Test
    void hostTokenWritesAnOwnerOnlyJoinFileTheEngineAccepts() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> { })))) {
            // no token at all: on the engine's machine the fix is its data directory (mpflc up --data DIR keeps it there)
            Result noToken = mpflc("host-token", "--engine", engine.url(), "-o", dir.resolve("none.credential").toString());
            assertEquals(2, noToken.exit(), noToken.err());
            assertTrue(noToken.err().contains("needs the engine's admin token: on the engine's machine, give its data directory"
                    + " with --data DIR (the --data of mpflc up; "), noToken.err());
            Result wrongData = mpflc("host-token", "--engine", engine.url(), "--data", dir.resolve("elsewhere").toString(),
                    "-o", dir.resolve("none.credential").toString());
            assertEquals(2, wrongData.exit(), wrongData.err());
            assertTrue(wrongData.err().contains(dir.resolve("elsewhere").resolve("engine.token") + " does not exist (is "
                    + dir.resolve("elsewhere") + " the engine's --data directory?)"), wrongData.err());
            Path wrongToken = Files.writeString(dir.resolve("wrong.token"), "wrong\n");
            Result refused = mpflc("host-token", "--engine", engine.url(), "--token-file", wrongToken.toString(),
                    "-o", dir.resolve("refused.credential").toString());
            assertEquals(1, refused.exit(), refused.err());
            assertTrue(refused.err().contains("wrong engine token"), refused.err());
            assertTrue(Files.notExists(dir.resolve("refused.credential")));
            assertTrue(engine.credentials().list().isEmpty());

            Path file = dir.resolve("node7.credential");
            Result ok = mpflc("host-token", "--engine", engine.url(), "--data", dir.resolve("engine").toString(),
                    "--host-id", "node7", "-o", file.toString());
            assertEquals(0, ok.exit(), ok.err());
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            org.mpfl.protocol.HostCredential c = org.mpfl.protocol.HostCredential.read(file);
            assertEquals("node7", c.hostId());
            assertEquals(engine.url(), c.engineUrl());
            assertTrue(!ok.err().contains(c.secret()) && !ok.out().contains(c.secret()), "the secret is printed: " + ok.err());
            assertTrue(ok.err().contains("on the host: mpflc host --credential-file " + file + " --bind ADDR (in a site behind NAT:"
                    + " --site NAME --relay HOST:PORT)"), ok.err());
            Http.Answer announced = Http.send("POST", engine.url() + "/api/registry/hosts", c.authorization(),
                    Map.of("soapUrl", "http://127.0.0.1:1/s"));
            assertEquals(201, announced.status(), announced.body());
            assertEquals("node7", engine.registry().hosts().get(0).hostId());

            Result again = mpflc("host-token", "--engine", engine.url(), "--data", dir.resolve("engine").toString(),
                    "--host-id", "node7", "-o", dir.resolve("second.credential").toString());
            assertEquals(1, again.exit(), "node7 already has a credential");
            // the command line is the way to revoke it, REST the alternative
            assertTrue(again.err().contains("revoke it first (mpflc host-token --engine " + engine.url() + " --revoke " + c.id()
                    + "; over REST: DELETE /api/registry/credentials/" + c.id() + "), or give this host another id with --host-id"),
                    again.err());
            Result overwrite = mpflc("host-token", "--engine", engine.url(), "--data", dir.resolve("engine").toString(),
                    "-o", file.toString());
            assertEquals(1, overwrite.exit(), "an existing join file is not overwritten");
            assertEquals(c, org.mpfl.protocol.HostCredential.read(file));
            int issued = engine.credentials().list().size();
            Result nowhere = mpflc("host-token", "--engine", engine.url(), "--data", dir.resolve("engine").toString(),
                    "--host-id", "node8", "-o", dir.resolve("no-such-dir/node8.credential").toString());
            assertEquals(1, nowhere.exit(), nowhere.err());
            assertTrue(nowhere.err().contains("no such directory " + dir.resolve("no-such-dir") + " (nothing was issued)"),
                    nowhere.err());
            assertEquals(issued, engine.credentials().list().size(), "no credential that nobody gets");
        }
    }

    @Test
    void hostTokenListsAndRevokesCredentialsWithoutShowingASecret() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .invoker(new FakeRanks(r -> { })))) {
            String data = dir.resolve("engine").toString();
            Result none = mpflc("host-token", "--engine", engine.url(), "--data", data, "--list");
            assertEquals(0, none.exit(), none.err());
            assertTrue(none.out().startsWith("no credentials issued"), none.out());
            org.mpfl.protocol.HostCredential a = engine.issueHostCredential("node-a");
            org.mpfl.protocol.HostCredential b = engine.issueRelayCredential("node-b");
            assertEquals(201, Http.send("POST", engine.url() + "/api/registry/hosts", a.authorization(),
                    Map.of("soapUrl", "http://127.0.0.1:1/s")).status());

            Result listed = mpflc("host-token", "--engine", engine.url(), "--data", data, "--list");
            assertEquals(0, listed.exit(), listed.err());
            List<String> lines = listed.out().lines().toList();
            assertEquals(3, lines.size(), listed.out());
            assertTrue(lines.get(0).matches("CREDENTIAL +KIND +FOR +ISSUED +IN REGISTRY"), lines.get(0));
            assertTrue(lines.get(1).matches(java.util.regex.Pattern.quote(a.id()) + " +host +node-a +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +host"),
                    lines.get(1));
            assertTrue(lines.get(2).matches(java.util.regex.Pattern.quote(b.id()) + " +relay +node-b +.* +no"), lines.get(2));
            for (org.mpfl.protocol.HostCredential c : List.of(a, b)) {
                assertFalse(listed.out().contains(c.secret()) || listed.out().contains(c.engineKey()), "a secret is listed");
            }

            // by host id: a leaves the registry, and its credential no longer works
            Result byHost = mpflc("host-token", "--engine", engine.url(), "--data", data, "--revoke", "node-a");
            assertEquals(0, byHost.exit(), byHost.err());
            assertTrue(byHost.err().contains("revoked credential " + a.id() + " of node-a"), byHost.err());
            assertTrue(engine.registry().hosts().isEmpty(), engine.registry().hosts().toString());
            assertEquals(401, Http.send("POST", engine.url() + "/api/registry/hosts", a.authorization(),
                    Map.of("soapUrl", "http://127.0.0.1:1/s")).status());
            // by credential id
            Result byId = mpflc("host-token", "--engine", engine.url(), "--data", data, "--revoke", b.id());
            assertEquals(0, byId.exit(), byId.err());
            assertTrue(engine.credentials().list().isEmpty(), engine.credentials().list().toString());

            Result unknown = mpflc("host-token", "--engine", engine.url(), "--data", data, "--revoke", "node-a");
            assertEquals(1, unknown.exit(), unknown.err());
            assertTrue(unknown.err().contains("no credential 'node-a', nor one for a host of that id (mpflc host-token --list"),
                    unknown.err());
            Result mixed = mpflc("host-token", "--engine", engine.url(), "--data", data, "--list", "--host-id", "x");
            assertEquals(2, mixed.exit(), mixed.err());
            assertTrue(mixed.err().contains("--list issues nothing: give no --host-id with it"), mixed.err());
        }
    }

    /** A sample's directory holds its document, not a compiled plan: the error names the document to run. */
    @Test
    void aDirectoryWithADocumentButNoPlanNamesTheDocument() throws Exception {
        Path sample = Files.createDirectories(dir.resolve("sample"));
        Files.writeString(sample.resolve("ring.mpfl.xml"), "<workflow/>");
        Result r = mpflc("run", sample.toString(), "--local");
        assertEquals(1, r.exit(), r.err());
        assertTrue(r.err().contains("found 0; to run a document, name it: " + sample.resolve("ring.mpfl.xml")), r.err());
    }

    @Test
    void usageErrorsExitTwo() {
        assertEquals(2, mpflc("run", "x.json").exit());
        assertEquals(2, mpflc("run", "x.json", "--local", "--engine", "http://x").exit());
        assertEquals(2, mpflc("run", "x.json", "--local", "--bogus").exit());
        assertEquals(2, mpflc("status").exit());
    }

    static List<String> iterable(JsonNode j) {
        List<String> names = new java.util.ArrayList<>();
        j.fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    void upTakesTheQuarantinePolicyFromItsOptions() throws Exception {
        RunSettings d = RunSettings.defaults();
        RunSettings s = UpCommand.quarantine(UpCommand.SPEC.parse(List.of("--quarantine", "5", "--max-replacements=1")), d);
        assertEquals(Duration.ofSeconds(5), s.quarantine());
        assertEquals(Duration.ofMinutes(15), s.quarantineMax());
        assertEquals(1, s.maxReplacements());
        assertEquals(d.fanOutTimeout(), s.fanOutTimeout());
        s = UpCommand.quarantine(UpCommand.SPEC.parse(List.of("--quarantine", "3600")), d);
        assertEquals(Duration.ofHours(1), s.quarantineMax(), "a first quarantine longer than the cap raises the cap");
        assertEquals(2, s.maxReplacements());
        Result bad = mpflc("up", "--quarantine", "-1", "--hosts", "0", "--port", "0", "--data", dir.toString());
        assertEquals(2, bad.exit(), bad.err());
        assertTrue(bad.err().contains("--quarantine and --max-replacements must be >= 0"), bad.err());
    }

    @Test
    void everyEngineCommandAndHostAnswersHelpWithoutDoingAnything() {
        for (String command : List.of("run", "up", "host-token", "slurm", "deploy", "status", "runs", "cancel", "resume", "trace", "host")) {
            Result r = mpflc(command, "--help");
            assertEquals(0, r.exit(), command + ": " + r.err());
            assertTrue(r.out().startsWith("usage: mpflc " + command), r.out());
            assertTrue(r.out().contains("-h, --help"), r.out());
            assertEquals("", r.err(), command);
        }
        assertTrue(mpflc("run", "-h").out().contains("--sweep NAME=V1,V2,..."));
        assertTrue(mpflc("up", "--help").out().contains("--tls-keystore FILE.p12"));
    }

    @Test
    void usageErrorsNameTheOption() {
        Result unknown = mpflc("status", "r1", "--engin", "http://x");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().startsWith("mpflc status: unknown option --engin (did you mean '--engine'?) (see mpflc status --help)"), unknown.err());
        Result missing = mpflc("cancel", "r1", "--engine");
        assertEquals(2, missing.exit());
        assertTrue(missing.err().startsWith("mpflc cancel: --engine needs a value"), missing.err());
        Result number = mpflc("run", "x.xml", "--local", "--hosts", "many");
        assertEquals(2, number.exit());
        assertTrue(number.err().startsWith("mpflc run: --hosts must be a whole number, got 'many'"), number.err());
        Result both = mpflc("run", "x.xml", "--local", "--engine=http://127.0.0.1:1");
        assertEquals(2, both.exit());
        assertTrue(both.err().contains("give exactly one of --engine URL or --local"), both.err());
    }
}
