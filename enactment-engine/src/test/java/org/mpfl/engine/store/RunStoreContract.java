package org.mpfl.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.mpfl.engine.Http;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.testing.Await;
import java.time.Duration;

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

    /** Opens the store on this test's database. */
    final RunStore openStore() throws Exception {
        EngineConfig c = storeConfig(new EngineConfig().dataDir(dir));
        return c.jdbcUrl() == null ? RunStore.openEmbedded(dir) : RunStore.open(c.jdbcUrl(), c.jdbcUser(), c.jdbcPassword());
    }

    @Test
    void runsAreSavedReplacedListedAndFiltered() throws Exception {
        try (RunStore store = openStore()) {
            store.saveRun("r1", "ring", "RUNNING", 1000, Map.of("id", "r1", "state", "RUNNING", "ranks", List.of(1, 2)));
            store.saveRun("r2", "ring", "SUCCEEDED", 2000, Map.of("id", "r2", "state", "SUCCEEDED"));
            store.saveRun("r1", "ring", "FAILED", 1000, Map.of("id", "r1", "state", "FAILED", "ranks", List.of(1, 2)));
            assertEquals("FAILED", store.run("r1").orElseThrow().get("state").asText(), "the second save replaced the first");
            assertEquals(Optional.empty(), store.run("nope"));
            List<JsonNode> all = store.runs(null, 10);
            assertEquals(List.of("r2", "r1"), all.stream().map(r -> r.get("id").asText()).toList(), "newest first");
            assertFalse(all.get(1).has("ranks"), "lists carry the summary only");
            assertEquals(1, store.runs("FAILED", 10).size());
            assertEquals(1, store.runs(null, 1).size());
        }
        try (RunStore store = openStore()) {
            assertEquals("FAILED", store.run("r1").orElseThrow().get("state").asText(), "kept when reopened");
        }
    }

    @Test
    void eventIdsIncreaseAcrossReopening() throws Exception {
        long last;
        try (RunStore store = openStore()) {
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
        try (RunStore store = openStore()) {
            long next = store.appendEvent("r", 0, 3, "state", Map.of());
            assertTrue(next > last, "after reopening " + next + " follows " + last);
            assertEquals(3, store.events("r", 0, 10).size());
        }
    }

    @Test
    void unfinishedRunsAreFailedOnce() throws Exception {
        try (RunStore store = openStore()) {
            store.saveRun("p", "w", "PENDING", 1, Map.of("id", "p", "state", "PENDING"));
            store.saveRun("r", "w", "RUNNING", 2, Map.of("id", "r", "state", "RUNNING"));
            store.saveRun("s", "w", "SUCCEEDED", 3, Map.of("id", "s", "state", "SUCCEEDED"));
            assertEquals(2, store.failUnfinishedRuns(99));
            assertEquals(0, store.failUnfinishedRuns(100));
            JsonNode r = store.run("r").orElseThrow();
            assertEquals("FAILED", r.get("state").asText());
            assertEquals("engine restarted", r.at("/error/message").asText());
            assertEquals(99, r.get("endedMs").asLong());
            assertEquals("SUCCEEDED", store.run("s").orElseThrow().get("state").asText());
        }
    }

    @Test
    void liveDomainsCredentialsAndWorkflowsAreReplacedAndDeleted() throws Exception {
        // beyond H2's 1,000,000-character VARCHAR: documents and JSON have no length limit
        String big = "x".repeat(1_200_000);
        try (RunStore store = openStore()) {
            store.saveLiveDomain(new RunStore.LiveDomain("r", "d1", "t1", List.of("http://a")));
            store.saveLiveDomain(new RunStore.LiveDomain("r", "d2", "t2", List.of("http://a", "http://b")));
            assertEquals(List.of(new RunStore.LiveDomain("r", "d2", "t2", List.of("http://a", "http://b"))), store.liveDomains());
            store.saveCredential(new RunStore.StoredCredential("c1", "h1", "v1", "k1", 5));
            store.saveCredential(new RunStore.StoredCredential("c1", "h1", "v2", "k2", 6));
            store.saveCredential(new RunStore.StoredCredential("c2", "h2", "v3", "k3", 7));
            store.saveWorkflowVersion(new RunStore.StoredWorkflow("w", 1, 10, "s1", "c1", big, null, null));
            store.saveWorkflowVersion(new RunStore.StoredWorkflow("a", 1, 11, "s2", "c2", null, "{\"p\":1}", "{\"t\":\"a.v1.t\"}"));
        }
        try (RunStore store = openStore()) {
            assertEquals(1, store.liveDomains().size());
            store.deleteLiveDomain("r");
            assertEquals(List.of(), store.liveDomains());
            List<RunStore.StoredCredential> creds = store.credentials();
            assertEquals(2, creds.size());
            RunStore.StoredCredential c1 = creds.stream().filter(c -> c.id().equals("c1")).findFirst().orElseThrow();
            assertEquals("v2", c1.verifier());
            assertEquals(6, c1.createdMs());
            store.deleteCredential("c1");
            assertEquals(List.of("c2"), store.credentials().stream().map(RunStore.StoredCredential::id).toList());
            RunStore.StoredWorkflow w = store.workflow("w").orElseThrow();
            assertEquals(big, w.document());
            assertEquals(null, w.plan());
            assertEquals(List.of("a", "w"), store.workflows().stream().map(RunStore.StoredWorkflow::name).toList());
            store.saveWorkflowVersion(new RunStore.StoredWorkflow("w", 2, 12, "s3", "c3", "<small/>", "{}", null));
            assertEquals("<small/>", store.workflow("w").orElseThrow().document());
            assertEquals(12, store.workflow("w").orElseThrow().updatedMs());
            assertEquals(Optional.empty(), store.workflow("none"));
            assertEquals(big, store.workflowVersion("w", 1).orElseThrow().document());
            assertEquals(List.of(1, 2), store.workflowVersions("w").stream().map(RunStore.StoredWorkflow::version).toList());
            assertEquals("{\"t\":\"a.v1.t\"}", store.workflow("a").orElseThrow().services());
        }
    }

    @Test
    void runsSurviveARestart() throws Exception {
        String done;
        String going;
        String token;
        try (Engine first = Engine.start(storeConfig(new EngineConfig().port(0).dataDir(dir)).invoker(new FakeRanks(r -> {
            if (r.size() == 1) {
                r.output("answer", 42);
                r.state("DONE");
            } else {
                r.awaitAbort(20_000);
            }
        })))) {
            token = first.token();
            Http.announce(first, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s"
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
                    () -> secondRanks.abortCalls() > 0 && second.store().liveDomains().isEmpty());
            assertEquals(1, secondRanks.abortCalls(), "one service URL of the re-attached 2-rank run");
            assertEquals(0, second.store().liveDomains().size(), "the ended run's domain credentials are deleted");
        }
    }

    static Map<String, Object> plan(int ranks) {
        return Map.of("plan", Map.of("workflow", "w" + ranks, "processes", List.of(Map.of("name", "w", "ranks", ranks))));
    }

    static void awaitState(Engine e, String id, String state) throws Exception {
        Await.runIn(Duration.ofSeconds(30), state, () -> Http.get(e.url() + "/api/runs/" + id).json());
    }
}
