package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.store.LiveDomainStore;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.FaultKind;
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.RankEventPost;
import org.mpfl.protocol.RunRequest;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * Rank failures the engine holds back — while a run starts (before every rank accepted {@code run}) and while a
 * restarted engine re-attaches to a run — are decided by their kind as one after the start-up: an infrastructure
 * fault (a kernel worker SIGKILLed, a peer lost) restarts the run under {@code restarts}, a workflow fault never
 * does and wins over an infrastructure one. The kind is kept in the stored detail (an engine restart does not turn
 * an infrastructure fault into the workflow's), shown in the REST rank view and in the event log's FAILED event.
 * With in-process fake ranks reporting over HTTP; the failures are posted before their attempt's run calls return
 * (those wait for them), not by timing.
 */
@Timeout(90)
class HeldBackFaultTest {
    @TempDir
    Path dir;
    Engine engine;
    final List<Engine> others = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
        others.forEach(Engine::close);
    }

    /** What a kernel worker killed by SIGKILL fails its rank with (as the host says it: the infrastructure's). */
    static final String KILLED = "kernel worker lost: killed by SIGKILL";
    /** What a kernel that cannot import a module fails its rank with (the workflow's). */
    static final String IMPORT_ERROR = "ModuleNotFoundError: No module named 'numpy'";

    /**
     * Fake hosts whose first attempt's ranks in {@code failing} fail with that kind ({@link #KILLED} or
     * {@link #IMPORT_ERROR}) and whose other ranks wait for the abort; a later attempt's ranks end DONE. The first
     * attempt's run calls return only once every failure was posted (and taken by the engine), so that they all
     * arrive while the run is still starting.
     */
    private static final class HeldStart implements RankInvoker {
        final AtomicReference<String> firstDomain = new AtomicReference<>();
        final CountDownLatch failed;
        final FakeRanks fakes;

        HeldStart(Map<Integer, FaultKind> failing) {
            failed = new CountDownLatch(failing.size());
            fakes = new FakeRanks(r -> {
                FaultKind kind = failing.get(r.rank());
                if (!r.request().domainId().equals(firstDomain.get())) {
                    r.state("DONE");
                } else if (kind == null) {
                    r.awaitAbort(30_000);
                } else {
                    if (kind == FaultKind.INFRASTRUCTURE) {
                        r.failInInfrastructure("compute k:f", "k.mpfl.xml:7:9", KILLED);
                    } else {
                        r.fail("compute k:f", "k.mpfl.xml:7:9", IMPORT_ERROR);
                    }
                    failed.countDown();
                }
            });
        }

        @Override
        public void run(RankPlacement target, RunRequest request) throws Exception {
            firstDomain.compareAndSet(null, request.domainId());
            fakes.run(target, request);
            if (request.domainId().equals(firstDomain.get()) && !failed.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the first attempt's failures were not posted within 20 s");
            }
        }

        @Override
        public RankStatus status(RankPlacement target, String domainId, String token) {
            return fakes.status(target, domainId, token);
        }

        @Override
        public void abort(RankPlacement target, String domainId, String token) throws Exception {
            fakes.abort(target, domainId, token);
        }

        /** How many domains (attempts) were started. */
        long attempts() {
            return fakes.started.stream().map(FakeRanks.Started::domainId).distinct().count();
        }
    }

    private String startRun(RankInvoker invoker, int restarts) throws Exception {
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(invoker).runSettings(EngineRunTest.fast())
                .heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT));
        announce(engine);
        return post(engine, restarts);
    }

    private static void announce(Engine e) throws Exception {
        announce(e, "h");
    }

    private static void announce(Engine e, String hostId) throws Exception {
        Http.Answer a = HostCalls.announce(e, Map.of("hostId", hostId, "soapUrl", "http://127.0.0.1:1/axis2/services/" + hostId,
                "services", List.of("ring"), "capacity", 4));
        assertEquals(201, a.status(), a.body());
    }

    private static String post(Engine e, int restarts) throws Exception {
        Http.Answer a = Http.post(e.url() + "/api/runs", e.token(), Map.of("plan", EngineRunTest.ringPlan(2), "restarts", restarts));
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    private static JsonNode awaitFinal(Engine e, String id) throws Exception {
        return Await.runEnds(Duration.ofSeconds(60), () -> Http.get(e.url() + "/api/runs/" + id).json());
    }

    /** The detail of run {@code id} once it ended, in state {@code state}. */
    private JsonNode ended(String id, String state) throws Exception {
        JsonNode d = awaitFinal(engine, id);
        assertEquals(state, d.get("state").asText(), d.toString());
        return d;
    }

    /** The bodies of the run's event log entries that are a rank's FAILED state. */
    private static List<JsonNode> failedEvents(Engine e, String id) throws Exception {
        List<JsonNode> out = new java.util.ArrayList<>();
        for (JsonNode entry : Http.get(e.url() + "/api/runs/" + id + "/log").json()) {
            if ("rank".equals(entry.path("type").asText()) && "FAILED".equals(entry.at("/body/state").asText())) {
                out.add(entry.get("body"));
            }
        }
        return out;
    }

    @Test
    void anInfrastructureFaultBeforeEveryRankStartedRestartsTheRun() throws Exception {
        HeldStart hosts = new HeldStart(Map.of(0, FaultKind.INFRASTRUCTURE));
        String id = startRun(hosts, 1);
        JsonNode d = ended(id, "SUCCEEDED");
        assertEquals(1, d.at("/restarts/used").asInt(), d.toString());
        assertEquals(2, hosts.attempts());
        assertTrue(d.at("/attemptLog/1/cause").asText().contains("restart after: " + KILLED), d.toString());
        List<JsonNode> failed = failedEvents(engine, id);
        assertEquals(1, failed.size(), failed.toString());
        assertEquals("INFRASTRUCTURE", failed.get(0).path("fault").asText(), "the event log says whose fault: " + failed);
    }

    @Test
    void anInfrastructureFaultAtStartUpWithoutRestartsLeftFailsTheRunAndTheRankSaysWhoseFault() throws Exception {
        HeldStart hosts = new HeldStart(Map.of(0, FaultKind.INFRASTRUCTURE));
        String id = startRun(hosts, 0);
        JsonNode d = ended(id, "FAILED");
        assertEquals(KILLED, d.at("/error/message").asText(), d.toString());
        assertEquals("INFRASTRUCTURE", d.at("/ranks/0/fault").asText(), d.toString());
        assertTrue(d.at("/ranks/1/fault").isNull(), "a rank that did not fail has no kind: " + d);
    }

    @Test
    void aWorkflowFaultAtStartUpIsNeverRetried() throws Exception {
        HeldStart hosts = new HeldStart(Map.of(1, FaultKind.WORKFLOW));
        String id = startRun(hosts, 2);
        JsonNode d = ended(id, "FAILED");
        assertEquals(IMPORT_ERROR, d.at("/error/message").asText(), d.toString());
        assertEquals(0, d.at("/restarts/used").asInt(), d.toString());
        assertEquals(1, hosts.attempts());
        assertEquals("WORKFLOW", d.at("/ranks/1/fault").asText(), d.toString());
        assertEquals("WORKFLOW", failedEvents(engine, id).get(0).path("fault").asText());
    }

    /** A workflow fault may be what made a peer unreachable: held back with an infrastructure fault, it wins. */
    @Test
    void aWorkflowFaultAtStartUpWinsOverAnInfrastructureFault() throws Exception {
        HeldStart hosts = new HeldStart(Map.of(0, FaultKind.INFRASTRUCTURE, 1, FaultKind.WORKFLOW));
        String id = startRun(hosts, 2);
        JsonNode d = ended(id, "FAILED");
        assertEquals(1, d.at("/error/rank").asInt(), d.toString());
        assertEquals(IMPORT_ERROR, d.at("/error/message").asText(), d.toString());
        assertEquals(0, d.at("/restarts/used").asInt(), d.toString());
        assertEquals(1, hosts.attempts());
    }

    /**
     * A rank's fault kind is kept with its state: a run whose rank failed with an infrastructure fault while a
     * restarted engine re-attached to it (held back) is restarted by the engine started after that one too, as by
     * the engine that saw the failure — not failed as if the fault were the workflow's.
     */
    @Test
    void aRanksFaultKindSurvivesAnEngineRestartAndDecidesTheSame() throws Exception {
        List<FakeRanks.Rank> firstRanks = new CopyOnWriteArrayList<>();
        String id = runStoppedMidway(firstRanks);
        RunRequest rank1 = firstRanks.stream().filter(r -> r.rank() == 1).findFirst().orElseThrow().request();
        // the second engine hears from no host (it re-attaches until its grace ends) but from rank 1's FAILED event
        try (Engine second = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(SILENT))) {
            RankEvent failed = new RankEvent(rank1.domainId(), 1, 1_000, System.currentTimeMillis(), RankEvent.Type.STATE, "FAILED",
                    "send", "ring.mpfl.xml:9:5", "peer unreachable: send to rank 0 failed", null, null, null, FaultKind.INFRASTRUCTURE);
            int status = postEvent(second, id, rank1, failed);
            assertTrue(status / 100 == 2, "taken: " + status);
            JsonNode d = Http.get(second.url() + "/api/runs/" + id).json();
            assertEquals("RUNNING", d.get("state").asText(), "held back while re-attaching: " + d);
            assertEquals("INFRASTRUCTURE", d.at("/ranks/1/fault").asText(), d.toString());
        }
        // the third engine hears from every rank of the stored attempt: rank 0 runs, rank 1 failed (as it did); its
        // stored kind decides
        HeldStart hosts = new HeldStart(Map.of());
        hosts.firstDomain.set(rank1.domainId());
        RankInvoker answering = new RankInvoker() {
            @Override
            public void run(RankPlacement target, RunRequest request) throws Exception {
                hosts.run(target, request);
            }

            @Override
            public RankStatus status(RankPlacement target, String domainId, String token) {
                if (!domainId.equals(rank1.domainId())) {
                    return hosts.status(target, domainId, token); // the restarted attempt's ranks: by events only
                }
                return target.rank() == 0 ? new RankStatus("RUNNING", null, null, null, null, null, null)
                        : new RankStatus("FAILED", null, null, "peer unreachable: send to rank 0 failed", null, null,
                        FaultKind.INFRASTRUCTURE);
            }

            @Override
            public void abort(RankPlacement target, String domainId, String token) throws Exception {
                hosts.abort(target, domainId, token);
            }
        };
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(answering).runSettings(EngineRunTest.fast())
                .heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT));
        // (another host: h's credential is the earlier engines' by this test's bookkeeping; any host will do)
        announce(engine, "h2");
        JsonNode d = awaitFinal(engine, id);
        assertEquals("SUCCEEDED", d.get("state").asText(), "restarted after the infrastructure fault: " + d);
        assertEquals(1, d.at("/restarts/used").asInt(), d.toString());
        assertTrue(d.at("/attemptLog/1/cause").asText().contains("peer unreachable"), d.toString());
    }

    /**
     * A run whose ranks' kept events end it while a restarted engine still asks them for their state: its log closes
     * the re-attachment saying how the run ended. Before, the log said "re-attaching …" and nothing after it (the
     * flake hunt saw it in EngineRestartDurabilityTest on a loaded machine).
     */
    @Test
    void aRunEndedByItsRanksEventsWhileReattachingClosesTheReattachmentInItsLog() throws Exception {
        List<FakeRanks.Rank> firstRanks = new CopyOnWriteArrayList<>();
        String id = runStoppedMidway(firstRanks);
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(SILENT));
        Await.until(Duration.ofSeconds(30), "the engine asks the ranks", () -> placementMessages(engine, id).stream()
                .anyMatch(m -> m.startsWith("re-attaching")));
        for (FakeRanks.Rank r : firstRanks) {
            RankEvent done = new RankEvent(r.request().domainId(), r.rank(), 1_000, System.currentTimeMillis(),
                    RankEvent.Type.STATE, "DONE", null, null, null, null, null, null);
            int status = postEvent(engine, id, r.request(), done);
            assertTrue(status / 100 == 2, "taken: " + status);
        }
        assertEquals("SUCCEEDED", awaitFinal(engine, id).get("state").asText());
        List<String> log = Await.until(Duration.ofSeconds(30), "the re-attachment closed in the run's log",
                () -> placementMessages(engine, id), m -> m.stream().anyMatch(x -> x.startsWith("re-attach over")));
        assertTrue(log.contains("re-attach over: the run ended SUCCEEDED while the engine still asked its ranks for their"
                + " state"), log.toString());
    }

    private static List<String> placementMessages(Engine e, String runId) throws Exception {
        List<String> out = new java.util.ArrayList<>();
        Http.get(e.url() + "/api/runs/" + runId + "/log?limit=10000").json().forEach(x -> {
            if (x.path("type").asText().equals("placement")) {
                out.add(x.path("body").path("message").asText());
            }
        });
        return out;
    }

    /**
     * A run of 2 ranks (1 restart) started by an engine that stops while both run: the run stays RUNNING in the store
     * of {@code dir} for the next engine; {@code ranks} gets the two ranks as they were called.
     */
    private String runStoppedMidway(List<FakeRanks.Rank> ranks) throws Exception {
        try (Engine first = Engine.start(new EngineConfig().port(0).dataDir(dir).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT)
                .invoker(new FakeRanks(r -> {
                    ranks.add(r);
                    r.awaitAbort(20_000);
                })))) {
            announce(first);
            String id = post(first, 1);
            Await.runIn(Duration.ofSeconds(30), "RUNNING", () -> Http.get(first.url() + "/api/runs/" + id).json());
            // a rank's thread records it just after its run call was accepted
            Await.until(Duration.ofSeconds(30), "both ranks recorded", () -> ranks.size() == 2);
            return id;
        }
    }

    /** Ranks of an engine started after another: never placed again by it, and none answers its status call. */
    private static final RankInvoker SILENT = new RankInvoker() {
        @Override
        public void run(RankPlacement target, RunRequest request) {
            throw new IllegalStateException("not placed again by this engine");
        }

        @Override
        public RankStatus status(RankPlacement target, String domainId, String token) throws IOException {
            throw new IOException("no answer yet");
        }

        @Override
        public void abort(RankPlacement target, String domainId, String token) {
        }
    };

    /** Posts a rank event to engine {@code e} as the rank of {@code as} would (a host whose callback is that engine). */
    private static int postEvent(Engine e, String runId, RunRequest as, RankEvent event) throws Exception {
        byte[] body = Json.write(event).getBytes(StandardCharsets.UTF_8);
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(e.url() + "/api/runs/" + runId + "/ranks/" + RankEventPost.PATH))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        RankEventPost.headers(as.token(), as.domainId(), body).forEach(req::header);
        return HttpClient.newHttpClient().send(req.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /**
     * The stored detail keeps the kind, and a detail an older engine stored (no {@code fault}) or one with a kind
     * this engine does not know reads as no kind: the workflow's, as before.
     */
    @Test
    void aStoredRanksKindIsRestoredAndAMissingOrUnknownOneIsTheWorkflows() {
        Run run = new Run("r", "w", "d1", "t1", Map.of(), 1);
        run.placed(List.of(new RankPlacement(0, "p", "s", "h0", new Endpoint("http://h0/s", null, "h0")),
                new RankPlacement(1, "p", "s", "h1", new Endpoint("http://h1/s", null, "h1"))));
        run.endStartup();
        run.markRunning(2, true);
        run.apply(new RankEvent("d1", 1, 0, 5, RankEvent.Type.STATE, "FAILED", "send", null, "peer unreachable", null, null, null,
                FaultKind.INFRASTRUCTURE));
        JsonNode stored = run.record().detail();
        assertEquals("INFRASTRUCTURE", stored.at("/ranks/1/fault").asText());
        LiveDomainStore.LiveDomain domain = new LiveDomainStore.LiveDomain("r", "d1", "t1", List.of());

        Run restored = Reattachment.restore(stored, domain).orElseThrow();
        assertEquals(FaultKind.INFRASTRUCTURE, restored.rankFault(1));
        assertTrue(restored.endReattach().orElseThrow().infrastructure());

        for (String kind : new String[] {null, "OOM_KILLER"}) {
            ObjectNode old = stored.deepCopy();
            ObjectNode rank = (ObjectNode) old.at("/ranks/1");
            if (kind == null) {
                rank.remove("fault");
            } else {
                rank.put("fault", kind);
            }
            Run read = Reattachment.restore(old, domain).orElseThrow();
            assertNull(read.rankFault(1), String.valueOf(kind));
            assertFalse(read.endReattach().orElseThrow().infrastructure(), String.valueOf(kind));
        }
    }
}
