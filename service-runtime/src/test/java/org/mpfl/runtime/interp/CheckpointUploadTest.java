package org.mpfl.runtime.interp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.compiler.gen.BuildWriter;
import org.mpfl.protocol.CheckpointUpload;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.protocol.digest.Sha256;
import org.mpfl.testing.Await;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.Http;

/**
 * Checkpoints between real processes: the checkpoint document's archive deployed in two service-host
 * processes (ranks 0, 2 in one, 1, 3 in the other), driven as the engine drives them ({@code run} over
 * SOAP with a callback address), each rank uploading its parts over HTTP to a stand-in for the engine
 * that checks what the engine checks (domain, rank, number, SHA-256 of the body, the proof made
 * with the domain's token) and marks its refusals as the engine does ({@link EngineRefusal}); then a second run in a NEW domain and token resumes every rank from the
 * uploaded parts of one checkpoint and ends with the outputs of the uninterrupted run.
 */
@Timeout(240)
@StartsProcesses
class CheckpointUploadTest {
    private static final int RANKS = 4;
    @TempDir
    static Path work;
    static HostProcesses hosts;
    static HttpServer engine;
    static String service;
    /** Parts the stand-in engine accepted: domain → rank → checkpoint → body. */
    static final Map<String, Map<Integer, Map<Long, String>>> parts = new ConcurrentHashMap<>();
    /** Domain tokens the stand-in engine knows (it made them). */
    static final Map<String, DomainToken> tokens = new ConcurrentHashMap<>();
    static final List<String> refused = new CopyOnWriteArrayList<>();
    static final List<String> events = new CopyOnWriteArrayList<>();
    /** Domains whose uploads the stand-in engine answers only after {@link #STALL_MS}. */
    static final java.util.Set<String> stalled = ConcurrentHashMap.newKeySet();
    /** The hosts' upload bound in these tests ({@code mpfl.checkpoint.uploadTimeoutMs}). */
    static final long UPLOAD_TIMEOUT_MS = 1500;
    static final long STALL_MS = 6000;

    @BeforeAll
    static void start() throws Exception {
        Path doc = Path.of(CheckpointUploadTest.class.getResource("/interp/checkpoint.mpfl.xml").toURI());
        MpflCompiler.CheckResult r = new MpflCompiler().check(doc, "checkpoint.mpfl.xml", Map.of());
        assertTrue(r.ok(), r.diagnostics().sorted().toString());
        Path build = work.resolve("build");
        BuildWriter.write(r.workflow(), Files.readAllBytes(doc), doc.getParent(), build);
        Path services = Files.createDirectories(work.resolve("services"));
        try (var s = Files.list(build)) {
            Path aar = s.filter(p -> p.toString().endsWith(".aar")).findFirst().orElseThrow();
            service = aar.getFileName().toString().replace(".aar", "");
            Files.copy(aar, services.resolve(aar.getFileName()));
        }
        engine = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        engine.createContext("/cb/checkpoints", CheckpointUploadTest::checkpoint);
        engine.createContext("/cb/events", x -> {
            events.add(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            Http.answer(x, 204, "");
        });
        engine.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        engine.start();
        hosts = HostProcesses.builder().count(2).hostArg("--services").hostArg(services.toString())
                .jvmArg("-Xmx256m").jvmArg("-Dmpfl.checkpoint.uploadTimeoutMs=" + UPLOAD_TIMEOUT_MS).start();
    }

    @AfterAll
    static void stop() {
        if (hosts != null) {
            hosts.close();
        }
        if (engine != null) {
            engine.stop(0);
        }
    }

    /** What the engine does with an upload: authenticate from the headers first, then read and check the body. */
    private static void checkpoint(HttpExchange x) throws IOException {
        try {
            String domain = x.getRequestHeaders().getFirst(CheckpointUpload.DOMAIN_HEADER);
            if (stalled.contains(domain)) {
                Thread.sleep(STALL_MS);
            }
            int rank = Integer.parseInt(x.getRequestHeaders().getFirst(CheckpointUpload.RANK_HEADER));
            long number = Long.parseLong(x.getRequestHeaders().getFirst(CheckpointUpload.CHECKPOINT_HEADER));
            String sha = x.getRequestHeaders().getFirst(CheckpointUpload.SHA256_HEADER);
            byte[] proof = Base64.getUrlDecoder().decode(x.getRequestHeaders().getFirst(CheckpointUpload.PROOF_HEADER));
            DomainToken token = tokens.get(domain);
            if (token == null || !token.verifyCheckpoint(domain, rank, number, sha, proof)) {
                refused.add(domain + ": proof of rank " + rank);
                x.getResponseHeaders().add(EngineRefusal.HEADER, EngineRefusal.FORBIDDEN.value());
                Http.answer(x, 403, "bad proof");
                return;
            }
            byte[] body = x.getRequestBody().readAllBytes();
            if (!Sha256.hex(body).equals(sha)) {
                refused.add(domain + ": digest of rank " + rank);
                x.getResponseHeaders().add(EngineRefusal.HEADER, EngineRefusal.BATCH_REJECTED.value());
                Http.answer(x, 400, "digest");
                return;
            }
            parts.computeIfAbsent(domain, d -> new ConcurrentHashMap<>()).computeIfAbsent(rank, k -> new ConcurrentHashMap<>())
                    .put(number, new String(body, StandardCharsets.UTF_8));
            Http.answer(x, 204, "");
        } catch (Exception e) {
            refused.add(String.valueOf(e));
            Http.answer(x, 400, String.valueOf(e));
        }
    }

    @Test
    void ranksUploadTheirPartsAndARunInANewDomainResumesFromThem() throws Exception {
        Run full = reference();
        Map<Integer, Map<Long, String>> stored = parts.get(full.domain);
        assertNotNull(stored, "no part stored; refused: " + refused);
        for (int r = 0; r < RANKS; r++) {
            assertEquals(10, stored.get(r).size(), "rank " + r + " uploaded every checkpoint; refused: " + refused);
        }
        assertTrue(refused.stream().noneMatch(x -> x.startsWith(full.domain)), refused.toString());
        eventually("a CHECKPOINT event reports each part",
                () -> events.stream().anyMatch(e -> e.contains("\"CHECKPOINT\"") && e.contains("\"stored\":true")));

        Run resumed = run(7L, stored);
        assertFalse(resumed.domain.equals(full.domain));
        for (int r = 0; r < RANKS; r++) {
            assertEquals(full.status.get(r).outputsJson(), resumed.status.get(r).outputsJson(), "rank " + r);
        }
        Map<Integer, Map<Long, String>> after = parts.get(resumed.domain);
        assertEquals(List.of(8L, 9L, 10L), after.get(0).keySet().stream().sorted().toList(),
                "numbering goes on after the checkpoint resumed from");
    }

    @Test
    void aDamagedPartFailsItsRankWithTheReasonAndTheDomainIsAborted() throws Exception {
        Run full = reference();
        Map<Integer, Map<Long, String>> stored = new ConcurrentHashMap<>(parts.get(full.domain));
        Map<Long, String> rank3 = new ConcurrentHashMap<>(stored.get(3));
        rank3.put(5L, rank3.get(5L).replace("\"checkpoint\":5", "\"checkpoint\":6"));
        stored.put(3, rank3);
        Run resumed = run(5L, stored);
        RankStatus s = resumed.status.get(3);
        assertEquals("failed", s.state());
        assertTrue(s.failure().contains("cannot resume from checkpoint 5") && s.failure().contains("damaged"), s.failure());
        for (int r = 0; r < 3; r++) {
            assertEquals("failed", resumed.status.get(r).state(), "rank " + r + " is aborted with the domain");
        }
    }

    @Test
    void aPartTheEngineRefusesIsAWarningAndTheRunGoesOn() throws Exception {
        // the stand-in engine does not know this domain's token: every upload gets 403
        Run run = run(null, null, false);
        for (int r = 0; r < RANKS; r++) {
            assertEquals("done", run.status.get(r).state(), "rank " + r + ": " + run.status.get(r).failure());
        }
        assertTrue(parts.get(run.domain) == null, "nothing stored for a domain the engine does not know");
        eventually("the refusal is reported", () -> events.stream().anyMatch(e -> e.contains(run.domain) && e.contains("\"CHECKPOINT\"")
                && e.contains("\"stored\":false") && e.contains("HTTP 403")));
        Run full = reference();
        assertEquals(full.status.get(0).outputsJson(), run.status.get(0).outputsJson());
    }

    @Test
    void anEngineThatDoesNotAnswerCostsEachCheckpointItsBoundAndNoMore() throws Exception {
        long started = System.nanoTime();
        // every=0: only the while's checkpoint is taken, 4 times
        Run run = run(null, null, true, Map.of("every", 0), stalled::add);
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        for (int r = 0; r < RANKS; r++) {
            assertEquals("done", run.status.get(r).state(), "rank " + r + ": " + run.status.get(r).failure());
        }
        eventually("the time-out is reported", () -> events.stream().anyMatch(e -> e.contains(run.domain) && e.contains("\"stored\":false")
                && e.contains("did not answer within " + UPLOAD_TIMEOUT_MS + " ms")));
        assertTrue(seconds < 4 * STALL_MS / 1000, "4 checkpoints waited for their bound, not for the engine: " + seconds + " s");
    }

    /**
     * Events are posted in the background: waits until {@code condition} holds, failing with {@code what} and the events
     * seen. The bound is a hang guard for a loaded machine, not what the tests check.
     */
    private static void eventually(String what, Await.Read<Boolean> condition) throws Exception {
        Await.until(Duration.ofSeconds(60), () -> what + " (events: " + events + ")", condition, Boolean.TRUE::equals);
    }

    record Run(String domain, List<RankStatus> status) {
    }

    /** The uninterrupted run the tests check, resume from or compare with; made once, as the tests only read it. */
    private static Run reference;

    private static synchronized Run reference() throws Exception {
        if (reference == null) {
            reference = run(null, null);
        }
        return reference;
    }

    private static Run run(Long resumeFrom, Map<Integer, Map<Long, String>> from) throws Exception {
        return run(resumeFrom, from, true);
    }

    private static Run run(Long resumeFrom, Map<Integer, Map<Long, String>> from, boolean known) throws Exception {
        return run(resumeFrom, from, known, Map.of(), d -> { });
    }

    private static Run run(Long resumeFrom, Map<Integer, Map<Long, String>> from, boolean known, Map<String, Object> params,
                           java.util.function.Consumer<String> beforeStart) throws Exception {
        String domain = DomainToken.generate();
        String token = DomainToken.generate();
        beforeStart.accept(domain);
        if (known) {
            tokens.put(domain, new DomainToken(token));
        }
        List<Endpoint> endpoints = new ArrayList<>();
        for (int r = 0; r < RANKS; r++) {
            endpoints.add(hosts.get(r % 2).endpoint(service));
        }
        List<RunRequest.ProcessSlice> slices = List.of(new RunRequest.ProcessSlice("node", service, RANKS));
        String callback = "http://127.0.0.1:" + engine.getAddress().getPort() + "/cb";
        try (MpiwsClient client = new MpiwsClient(Duration.ofSeconds(30))) {
            for (int r = 0; r < RANKS; r++) {
                RunRequest.Resume resume = resumeFrom == null ? null : new RunRequest.Resume(resumeFrom, from.get(r).get(resumeFrom));
                client.run(hosts.get(r % 2).serviceUrl(service), new RunRequest(domain, r, endpoints, slices, params, token,
                        callback, "auto", resume));
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            List<RankStatus> out = new ArrayList<>();
            for (int r = 0; r < RANKS; r++) {
                byte[] proof = new DomainToken(token).proveStatus(domain, r);
                RankStatus s = client.status(hosts.get(r % 2).serviceUrl(service), domain, r, proof);
                while (!s.isFinal() && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                    s = client.status(hosts.get(r % 2).serviceUrl(service), domain, r, proof);
                }
                out.add(s);
            }
            return new Run(domain, out);
        }
    }
}
