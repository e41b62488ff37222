package org.mpfl.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.testing.Await;
import java.time.Duration;
import org.mpfl.engine.HostCalls;

/**
 * What the run store must do on every database it supports, run once per backend by its subclasses
 * ({@link H2RunStoreTest}, {@link PostgresRunStoreTest}): every record type saved, replaced, read and
 * deleted, event ids increasing across reopening, texts beyond H2's VARCHAR limit, and an engine restart
 * (runs survive; runs that were going when it stopped become FAILED "engine restarted").
 */
@Timeout(120)
abstract class RunStoreContract {
    @TempDir
    Path dir;

    /** The engine's configuration pointing at this backend's database (the same one on every call in a test). */
    abstract EngineConfig storeConfig(EngineConfig config) throws Exception;

    /** Opens the engine's database on this test's database. */
    final EngineDatabase openStore() throws Exception {
        EngineConfig c = storeConfig(new EngineConfig().dataDir(dir));
        return c.jdbcUrl() == null ? EngineDatabase.openEmbedded(dir) : EngineDatabase.open(c.jdbcUrl(), c.jdbcUser(), c.jdbcPassword());
    }

    /** A run's record as the run service saves it: the columns, and a detail document repeating them. */
    static RunRecord run(String id, String workflow, String state, long createdMs, Map<String, Object> more) {
        Map<String, Object> detail = new java.util.LinkedHashMap<>(Map.of("id", id, "state", state));
        detail.putAll(more);
        return new RunRecord(id, workflow, state, createdMs, Json.MAPPER.valueToTree(detail));
    }

    @Test
    void runsAreSavedReplacedListedAndFiltered() throws Exception {
        try (EngineDatabase db = openStore()) {
            RunStore store = db.runs();
            store.save(run("r1", "ring", "RUNNING", 1000, Map.of("ranks", List.of(1, 2))));
            store.save(run("r2", "ring", "SUCCEEDED", 2000, Map.of()));
            store.save(run("r1", "ring", "FAILED", 1000, Map.of("ranks", List.of(1, 2))));
            RunRecord r1 = store.run("r1").orElseThrow();
            assertEquals("FAILED", r1.state(), "the second save replaced the first");
            assertEquals("FAILED", r1.detail().get("state").asText());
            assertEquals(List.of(1, 2), Json.MAPPER.convertValue(r1.detail().get("ranks"), List.class), "the record keeps the detail");
            assertEquals(1000, r1.createdMs());
            assertEquals("ring", r1.workflow());
            assertEquals(Optional.empty(), store.run("nope"));
            List<RunRecord> all = store.runs(null, 10);
            assertEquals(List.of("r2", "r1"), all.stream().map(RunRecord::id).toList(), "newest first");
            assertEquals(1, store.runs("FAILED", 10).size());
            assertEquals(1, store.runs(null, 1).size());
        }
        try (EngineDatabase db = openStore()) {
            assertEquals("FAILED", db.runs().run("r1").orElseThrow().detail().get("state").asText(), "kept when reopened");
        }
    }

    /** The run queue's rows: replaced by run id, read in queue order (priority, then oldest), kept when reopened. */
    @Test
    void queuedRunsAreKeptInQueueOrderAndDropped() throws Exception {
        var launch = Json.MAPPER.createObjectNode().put("restartsAllowed", 1);
        try (EngineDatabase db = openStore()) {
            RunStore store = db.runs();
            store.saveQueued(new RunStore.QueuedRun("late", 0, 2000, 2100, false, null, launch));
            store.saveQueued(new RunStore.QueuedRun("early", 0, 1000, 1100, true, 30_000L, launch));
            store.saveQueued(new RunStore.QueuedRun("urgent", 5, 3000, 3100, false, 0L, launch));
            store.saveQueued(new RunStore.QueuedRun("late", 0, 2000, 2200, false, null, launch));
            assertEquals(List.of("urgent", "early", "late"), store.queued().stream().map(RunStore.QueuedRun::runId).toList());
        }
        try (EngineDatabase db = openStore()) {
            RunStore store = db.runs();
            List<RunStore.QueuedRun> q = store.queued();
            assertEquals(2200, q.get(2).sinceMs(), "the second save replaced the first");
            assertEquals(null, q.get(2).queueTimeoutMs(), "no timeout of its own: the engine's");
            assertEquals(30_000L, q.get(1).queueTimeoutMs());
            assertEquals(0L, q.get(0).queueTimeoutMs(), "0: no bound, not the engine's default");
            assertTrue(q.get(1).oversubscribe());
            assertEquals(1, q.get(0).launch().get("restartsAllowed").asInt());
            store.deleteQueued("early");
            assertEquals(List.of("urgent", "late"), store.queued().stream().map(RunStore.QueuedRun::runId).toList());
        }
    }

    @Test
    void runsArePagedSortedAndSearched() throws Exception {
        try (EngineDatabase db = openStore()) {
            RunStore store = db.runs();
            for (int i = 0; i < 30; i++) {
                store.save(run("run_" + i, i % 3 == 0 ? "Heat2D" : "ring", i % 2 == 0 ? "SUCCEEDED" : "FAILED", 1000 + i,
                        Map.of("params", Map.of("n", i, "mode", i % 5 == 0 ? "50%" : "plain"))));
            }
            RunStore.RunPage page = store.page(new RunQuery(null, null, null, null, null, null, "created", false, 10, 5));
            assertEquals(30, page.total());
            assertEquals(List.of("run_19", "run_18", "run_17", "run_16", "run_15"), page.runs().stream().map(RunRecord::id).toList());
            RunStore.RunPage heat = store.page(new RunQuery("FAILED", null, "heat", null, null, null, "created", true, 0, 100));
            assertEquals(List.of("run_3", "run_9", "run_15", "run_21", "run_27"), heat.runs().stream().map(RunRecord::id).toList(),
                    "text in any case, state, oldest first");
            assertEquals(5, heat.total());
            // LIKE wildcards in the search are taken literally: '_' matches only '_', '%' only '%'
            assertEquals(30, store.page(new RunQuery(null, null, "n_", null, null, null, "created", false, 0, 1)).total());
            assertEquals(0, store.page(new RunQuery(null, null, "r%n", null, null, null, "created", false, 0, 1)).total());
            RunStore.RunPage byParam = store.page(new RunQuery(null, null, null, "n=12", null, null, "created", false, 0, 10));
            assertEquals(List.of("run_12"), byParam.runs().stream().map(RunRecord::id).toList(), "n=12, not n=1 or a value 12 elsewhere");
            RunStore.RunPage percent = store.page(new RunQuery(null, null, null, "50%", null, null, "created", false, 2, 2));
            assertEquals(6, percent.total(), "any parameter with the value 50%");
            assertEquals(List.of("run_15", "run_10"), percent.runs().stream().map(RunRecord::id).toList(), "paged after the match");
            RunStore.RunPage window = store.page(new RunQuery(null, "ring", null, null, 1005L, 1010L, "id", true, 0, 10));
            assertEquals(List.of("run_10", "run_5", "run_7", "run_8"), window.runs().stream().map(RunRecord::id).toList(),
                    "workflow exactly, created within the bounds (inclusive), by id");
            assertThrows(IllegalArgumentException.class, () -> new RunQuery(null, null, null, null, null, null, "colour", true, 0, 1));
        }
    }

    @Test
    void eventIdsIncreaseAcrossReopening() throws Exception {
        long last;
        try (EngineDatabase db = openStore()) {
            RunStore store = db.runs();
            long a = store.appendEvent("r", 0, 1, "state", Map.of("s", 1));
            long b = store.appendEvent("r", null, 2, "log", Map.of("s", 2));
            store.appendEvent("other", 1, 2, "log", Map.of("s", 0));
            assertTrue(b > a, a + " then " + b);
            last = b;
            List<RunStore.StoredEvent> events = store.events("r", 0, 10);
            assertEquals(2, events.size());
            assertEquals(0, events.get(0).rank());
            assertEquals(null, events.get(1).rank());
            assertEquals(2, events.get(1).body().get("s").asInt());
            assertEquals(List.of(b), store.events("r", a, 10).stream().map(RunStore.StoredEvent::id).toList());
            assertEquals(1, store.events("r", 0, 1).size());
        }
        try (EngineDatabase db = openStore()) {
            RunStore store = db.runs();
            long next = store.appendEvent("r", 0, 3, "state", Map.of());
            assertTrue(next > last, "after reopening " + next + " follows " + last);
            assertEquals(3, store.events("r", 0, 10).size());
        }
    }

    /** What restarting or resuming a run needs is kept across a reopening, replaced, and deleted. */
    @Test
    void launchesAreKeptReplacedAndDeleted() throws Exception {
        try (EngineDatabase db = openStore()) {
            RunStore store = db.runs();
            store.saveLaunch("a", Json.MAPPER.createObjectNode().put("restartsAllowed", 1));
            store.saveLaunch("a", Json.MAPPER.createObjectNode().put("restartsAllowed", 2).put("big", "x".repeat(1_200_000)));
            store.saveLaunch("b", Json.MAPPER.createObjectNode().put("restartsAllowed", 0));
        }
        try (EngineDatabase db = openStore()) {
            RunStore store = db.runs();
            assertEquals(2, store.launch("a").orElseThrow().get("restartsAllowed").asInt(), "the second save replaced the first");
            store.deleteLaunch("a");
            assertTrue(store.launch("a").isEmpty());
            assertEquals(0, store.launch("b").orElseThrow().get("restartsAllowed").asInt());
            assertTrue(store.launch("none").isEmpty());
        }
    }

    @Test
    void unfinishedRunsAreFailedOnce() throws Exception {
        try (EngineDatabase db = openStore()) {
            RunStore store = db.runs();
            store.save(run("p", "w", "PENDING", 1, Map.of()));
            store.save(run("r", "w", "RUNNING", 2, Map.of("ranks", List.of(Map.of("rank", 0, "state", "RUNNING"),
                    Map.of("rank", 1, "state", "DONE")))));
            store.save(run("q", "w", "QUEUED", 2, Map.of("queue", Map.of("position", 1, "reason", "needs 2 ranks"))));
            store.save(run("s", "w", "SUCCEEDED", 3, Map.of()));
            assertEquals(3, store.failUnfinishedRuns(99));
            assertEquals(0, store.failUnfinishedRuns(100));
            RunRecord stored = store.run("r").orElseThrow();
            assertEquals("FAILED", stored.state());
            JsonNode r = stored.detail();
            assertEquals("FAILED", r.get("state").asText());
            assertEquals("engine restarted", r.at("/error/message").asText());
            assertEquals(99, r.get("endedMs").asLong());
            // no rank of a run that ended reads as running, nor does the run keep a place in the queue
            assertEquals("ABORTED", r.at("/ranks/0/state").asText(), r.toString());
            assertEquals("DONE", r.at("/ranks/1/state").asText(), r.toString());
            assertFalse(store.run("q").orElseThrow().detail().has("queue"), store.run("q").orElseThrow().detail().toString());
            assertEquals("SUCCEEDED", store.run("s").orElseThrow().state());
        }
    }

    @Test
    void liveDomainsCredentialsAndWorkflowsAreReplacedAndDeleted() throws Exception {
        // beyond H2's 1,000,000-character VARCHAR: documents and JSON have no length limit
        String big = "x".repeat(1_200_000);
        try (EngineDatabase db = openStore()) {
            db.liveDomains().save(new LiveDomainStore.LiveDomain("r", "d1", "t1", List.of("http://a")));
            db.liveDomains().save(new LiveDomainStore.LiveDomain("r", "d2", "t2", List.of("http://a", "http://b")));
            assertEquals(List.of(new LiveDomainStore.LiveDomain("r", "d2", "t2", List.of("http://a", "http://b"))),
                    db.liveDomains().all());
            db.credentials().save(new HostCredentialStore.StoredCredential("c1", "h1", "v1", "k1", 5));
            db.credentials().save(new HostCredentialStore.StoredCredential("c1", "h1", "v2", "k2", 6));
            db.credentials().save(new HostCredentialStore.StoredCredential("c2", "h2", "v3", "k3", 7, "relay"));
            db.workflows().save(new WorkflowVersionStore.StoredWorkflow("w", 1, 10, "s1", "c1", big, null, null));
            db.workflows().save(new WorkflowVersionStore.StoredWorkflow("a", 1, 11, "s2", "c2", null, "{\"p\":1}",
                    "{\"t\":\"a.v1.t\"}"));
        }
        try (EngineDatabase db = openStore()) {
            assertEquals(1, db.liveDomains().all().size());
            db.liveDomains().delete("r");
            assertEquals(List.of(), db.liveDomains().all());
            List<HostCredentialStore.StoredCredential> creds = db.credentials().all();
            assertEquals(2, creds.size());
            HostCredentialStore.StoredCredential c1 = creds.stream().filter(c -> c.id().equals("c1")).findFirst().orElseThrow();
            assertEquals("v2", c1.verifier());
            assertEquals(6, c1.createdMs());
            assertEquals("host", c1.kind());
            assertEquals("relay", creds.stream().filter(c -> c.id().equals("c2")).findFirst().orElseThrow().kind());
            db.credentials().delete("c1");
            assertEquals(List.of("c2"), db.credentials().all().stream().map(HostCredentialStore.StoredCredential::id).toList());
            WorkflowVersionStore store = db.workflows();
            WorkflowVersionStore.StoredWorkflow w = store.latest("w").orElseThrow();
            assertEquals(big, w.document());
            assertEquals(null, w.plan());
            assertEquals(List.of("a", "w"), store.all().stream().map(WorkflowVersionStore.StoredWorkflow::name).toList());
            store.save(new WorkflowVersionStore.StoredWorkflow("w", 2, 12, "s3", "c3", "<small/>", "{}", null));
            assertEquals("<small/>", store.latest("w").orElseThrow().document());
            assertEquals(12, store.latest("w").orElseThrow().updatedMs());
            assertEquals(Optional.empty(), store.latest("none"));
            assertEquals(big, store.version("w", 1).orElseThrow().document());
            assertEquals(List.of(1, 2), store.versions("w").stream().map(WorkflowVersionStore.StoredWorkflow::version).toList());
            assertEquals("{\"t\":\"a.v1.t\"}", store.latest("a").orElseThrow().services());
        }
    }

    /** Console sessions: found by their id hash, replaced at a refresh, deleted, and trimmed (ended ones, then the oldest). */
    @Test
    void consoleSessionsAreReplacedDeletedAndTrimmed() throws Exception {
        try (EngineDatabase db = openStore()) {
            ConsoleSessionStore store = db.consoleSessions();
            store.save(new ConsoleSessionStore.StoredSession("h1", 100, 10_000, 500, "sealed-1"));
            store.save(new ConsoleSessionStore.StoredSession("h1", 100, 10_000, 900, "sealed-2"));
            store.save(new ConsoleSessionStore.StoredSession("h2", 200, 10_000, 500, "x"));
            store.save(new ConsoleSessionStore.StoredSession("h3", 300, 1_000, 500, "y"));
            assertEquals(Optional.of(new ConsoleSessionStore.StoredSession("h1", 100, 10_000, 900, "sealed-2")), store.find("h1"),
                    "the second save replaced the first");
            store.delete("h2");
            assertEquals(Optional.empty(), store.find("h2"));
        }
        try (EngineDatabase db = openStore()) {
            ConsoleSessionStore store = db.consoleSessions();
            assertTrue(store.find("h1").isPresent(), "kept when reopened");
            store.save(new ConsoleSessionStore.StoredSession("h4", 400, 10_000, 500, "z"));
            // at 2,000 ms h3 has ended; of h1 and h4, room for one more under a maximum of 2 leaves the newer
            store.makeRoom(2_000, 2);
            assertEquals(Optional.empty(), store.find("h3"), "the ended session is gone");
            assertEquals(Optional.empty(), store.find("h1"), "the oldest went to make room");
            assertTrue(store.find("h4").isPresent());
        }
    }

    @Test
    void runsSurviveARestart() throws Exception {
        String done;
        String going;
        String token;
        try (Engine first = Engine.start(storeConfig(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir))
                .invoker(new FakeRanks(r -> {
            if (r.size() == 1) {
                r.output("answer", 42);
                r.state("DONE");
            } else {
                r.awaitAbort(20_000);
            }
        })))) {
            token = first.token();
            HostCalls.announce(first, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s"
                    , "services", List.of("w")));
            done = Http.post(first.url() + "/api/runs", token, plan(1)).json().get("id").asText();
            awaitState(first, done, "SUCCEEDED");
            going = Http.post(first.url() + "/api/runs", token, plan(2)).json().get("id").asText();
            awaitState(first, going, "RUNNING");
        }
        FakeRanks secondRanks = new FakeRanks(r -> { });
        try (Engine second = Engine.start(storeConfig(new EngineConfig().port(0).dataDir(dir)).invoker(secondRanks))) {
            assertEquals(token, second.token(), "the token file is reused");
            JsonNode runs = Http.get(second.url() + "/api/runs").json();
            assertEquals(2, runs.size());
            JsonNode a = Http.get(second.url() + "/api/runs/" + done).json();
            assertEquals("SUCCEEDED", a.get("state").asText());
            assertEquals(42, a.at("/outputs/answer/0").asInt());
            // the run left RUNNING is re-attached to (these fake ranks answer no status: it stays RUNNING)
            JsonNode b = Http.get(second.url() + "/api/runs/" + going).json();
            assertEquals("RUNNING", b.get("state").asText(), b.toString());
            assertEquals(2, b.path("ranks").size(), b.toString());
            JsonNode log = Http.get(second.url() + "/api/runs/" + done + "/log").json();
            assertEquals(true, log.size() >= 3, "events are kept: " + log);
            // the second engine holds the domain's token: cancelling the re-attached run aborts it
            assertEquals(200, Http.post(second.url() + "/api/runs/" + going + "/cancel", token, Map.of()).status());
            awaitState(second, going, "CANCELLED");
            // the domain is forgotten right after the abort returns (the same background task)
            Await.until(Duration.ofSeconds(30), "the domain aborted and forgotten",
                    () -> secondRanks.abortCalls() > 0 && second.database().liveDomains().all().isEmpty());
            assertEquals(1, secondRanks.abortCalls(), "one service URL of the re-attached 2-rank run");
            assertEquals(0, second.database().liveDomains().all().size(), "the ended run's domain credentials are deleted");
        }
    }

    static Map<String, Object> plan(int ranks) {
        return Map.of("plan", Map.of("workflow", "w" + ranks, "processes", List.of(Map.of("name", "w", "ranks", ranks))));
    }

    static void awaitState(Engine e, String id, String state) throws Exception {
        Await.runIn(Duration.ofSeconds(30), state, () -> Http.get(e.url() + "/api/runs/" + id).json());
    }
}
