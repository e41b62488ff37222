package org.mpfl.engine.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.run.HandMadeUploads;
import org.mpfl.protocol.CheckpointUpload;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.RankEventPost;
import org.mpfl.protocol.RunMessages;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.digest.Sha256;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.lab.LabNode;
import org.mpfl.testing.lab.NetworkLab;

/**
 * A request proved by a run's domain token proves its connection at the engine (docs/security.md, "Slow
 * and flooding clients"), from real non-loopback sources: lab nodes that never proved anything else to
 * the engine are strangers to its {@code ConnectionGuard}, held to a proof deadline of
 * {@value #DEADLINE_MS} ms here ({@code mpfl.engine.proofDeadlineMs}). The run's one rank is placed on a
 * host <em>without a credential</em> (a static host of the engine's host file, a {@link CapturingHost} in
 * the attacker's node, which learns the domain's token from its {@code run} as a real host does).
 * <ul>
 * <li>a checkpoint part, and a post of rank events, whose body is dribbled in over three deadlines
 *     ({@value #PIECES} pieces, {@value #PAUSE_MS} ms apart) with a valid proof are accepted: the guard,
 *     which closes an unproven connection at most 1.25 deadlines after its request began, no longer
 *     applies once the headers' proof verified; and the source is then known, as after a credential
 *     (a further connection of it that stalls is not closed at the deadline);</li>
 * <li>the same uploads with a wrong proof are refused from their headers (403) and their connections
 *     closed, nothing stored; and the same source, still a stranger, is closed at the deadline when it
 *     stalls its request head.</li>
 * </ul>
 * Each test sends from a node of its own: a valid proof makes its source known for the guard's
 * {@code trustFor} (30 min), which must not help another test's stranger.
 */
@Timeout(240)
@StartsProcesses
class DomainProvedUploadTest {
    /** The engine's proof deadline in this lab. */
    static final long DEADLINE_MS = 2_000;
    /** A body is sent in this many pieces… */
    static final int PIECES = 8;
    /** …with this pause before each: 6 s in all, three deadlines, over twice the 2.5 s the guard lets a stranger's request live. */
    static final long PAUSE_MS = 750;
    /** The credential-less host's SOAP port in the attacker's node (every node has its own ports). */
    static final int ROGUE_PORT = 8081;
    /** The service only that host offers: the run's rank goes there. */
    static final String SERVICE = "dribble";
    /** How long an answer that needs nothing more from the client may take on a loaded machine. */
    static final long PROMPT_MS = 15_000;

    @TempDir
    static Path files;
    static NetworkLab lab;
    static Process rogue;
    static String runId;
    /** What the engine sent the credential-less host to start the rank: the domain's id and token. */
    static RunRequest rank;

    @BeforeAll
    static void start() throws Exception {
        // the attacker's node has this address in every lab (NetworkLab#build): the static host is known before the lab starts
        String rogueAddress = NetworkLab.SUBNET + 66;
        Path hostFile = files.resolve("static.hosts");
        Files.writeString(hostFile, "http://" + rogueAddress + ":" + ROGUE_PORT + "/axis2/services services=" + SERVICE
                + " id=credential-less\n");
        lab = NetworkLab.builder().hosts(0).engineProperty("mpfl.engine.proofDeadlineMs", Long.toString(DEADLINE_MS))
                .engineArgs("--host-file", hostFile.toString()).start();
        assertEquals(rogueAddress, lab.attacker().address());
        Path captures = Files.createDirectories(lab.directory().resolve("captured"));
        rogue = lab.attacker().startJava(CapturingHost.class, "capturing-host", rogueAddress, captures.toString(),
                Integer.toString(ROGUE_PORT));
        Path rogueLog = lab.directory().resolve("capturing-host.log");
        Await.until(Duration.ofSeconds(30), () -> "the credential-less host listens: " + NetworkLab.tail(rogueLog),
                () -> Files.exists(rogueLog) && Files.readString(rogueLog).contains(CapturingHost.READY), Boolean.TRUE::equals);
        Http.Answer a = Http.post(lab.engineUrl(lab.engineNode()) + "/api/runs", lab.token(), Map.of("params", Map.of(),
                "plan", Map.of("workflow", SERVICE, "processes", List.of(Map.of("name", SERVICE, "service", SERVICE, "ranks", 1)))));
        assertEquals(201, a.status(), a.body());
        runId = a.json().get("id").asText();
        JsonNode run = Await.until(Duration.ofSeconds(60), () -> "the credential-less host got the run\n" + lab.logs(),
                () -> capturedRun(captures), c -> c != null);
        rank = RunMessages.parseRun(new String(Base64.getDecoder().decode(run.path("body").asText()), StandardCharsets.UTF_8));
        Await.runIn(Duration.ofSeconds(60), "RUNNING", () -> lab.run(runId));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        try {
            if (rogue != null) {
                rogue.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } finally {
            if (lab != null) {
                lab.close();
            }
        }
    }

    /** The {@code run} the credential-less host captured, or null while there is none. */
    static JsonNode capturedRun(Path captures) throws IOException {
        try (var list = Files.list(captures)) {
            for (Path f : list.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                JsonNode c = Json.MAPPER.readTree(Files.readString(f));
                if (AttackTest.isRun(c)) {
                    return c;
                }
            }
        }
        return null;
    }

    @Test
    void aCheckpointPartDribbledInOverThreeDeadlinesWithAValidProofIsAccepted() throws Exception {
        LabNode from = lab.addNode("part", 67);
        byte[] part = HandMadeUploads.part(0, 1).getBytes(StandardCharsets.UTF_8);
        Map<String, String> headers = checkpointHeaders(1, part, rank.token());
        try (Raw c = new Raw(from)) {
            c.write(head(CheckpointUpload.PATH, headers, part.length));
            long took = c.dribble(part);
            String answer = c.answer();
            assertTrue(answer.startsWith("HTTP/1.1 201"), "a part sent over " + took + " ms from a stranger's address, proved by the"
                    + " domain token: " + (answer.isEmpty() ? "the engine closed the connection" : answer) + "\n" + lab.logs());
            assertTrue(answer.contains("\"complete\":true"), answer);
        }
        JsonNode d = lab.run(runId);
        assertTrue(checkpointSeqs(d).contains(1L), d.toString());

        // the address proved the domain token: known for the guard's trustFor, as after a credential, so a further
        // connection from it has no proof deadline (the reserve's; docs/security.md). Three deadlines and it stays open
        try (Raw idle = new Raw(from)) {
            idle.write(("POST /api/runs/" + runId + "/ranks/" + CheckpointUpload.PATH + " HTTP/1.1\r\nHost: engine\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            assertFalse(idle.closedWithin(3 * DEADLINE_MS), "a connection from an address that proved the domain token was closed"
                    + " at the stranger's deadline");
        }
    }

    @Test
    void rankEventsDribbledInOverThreeDeadlinesWithAValidProofAreAccepted() throws Exception {
        LabNode from = lab.addNode("events", 68);
        String message = "dribbled in over three proof deadlines";
        byte[] body = events(message);
        try (Raw c = new Raw(from)) {
            c.write(head(RankEventPost.PATH, RankEventPost.headers(rank.token(), rank.domainId(), body), body.length));
            long took = c.dribble(body);
            String answer = c.answer();
            assertTrue(answer.startsWith("HTTP/1.1 204"), "events sent over " + took + " ms from a stranger's address, proved by"
                    + " the domain token: " + (answer.isEmpty() ? "the engine closed the connection" : answer) + "\n" + lab.logs());
        }
        assertTrue(lab.adminGet("/api/runs/" + runId + "/log").body().contains(message), "the event was applied");
    }

    /**
     * From the attacker's node, which never proved anything: the dribbled uploads with a proof made with
     * another token are answered 403 from their headers and their connections closed, nothing stored or
     * applied; then a connection that stalls its request head is still closed at the proof deadline (no
     * earlier, and within the bound).
     */
    @Test
    void withoutAValidProofAStrangerIsStillRefusedAndCutAtTheDeadline() throws Exception {
        LabNode atk = lab.attacker();
        String forged = "posted with a proof of another token";
        byte[] part = ("{\"forged\":\"" + forged + "\"}").getBytes(StandardCharsets.UTF_8);
        byte[] body = events(forged);
        String otherToken = DomainToken.generate();
        Map<String, byte[]> heads = new LinkedHashMap<>();
        heads.put("checkpoint part", head(CheckpointUpload.PATH, checkpointHeaders(7, part, otherToken), part.length));
        heads.put("rank events", head(RankEventPost.PATH, RankEventPost.headers(otherToken, rank.domainId(), body), body.length));
        Map<String, byte[]> bodies = Map.of("checkpoint part", part, "rank events", body);
        for (Map.Entry<String, byte[]> e : heads.entrySet()) {
            try (Raw c = new Raw(atk)) {
                // the head and the body's first piece, as the slow upload (one write: the refusal may close the connection
                // at once); the answer comes from the headers, the rest of the body is never waited for
                byte[] b = bodies.get(e.getKey());
                ByteArrayOutputStream first = new ByteArrayOutputStream();
                first.write(e.getValue());
                first.write(b, 0, b.length / PIECES);
                c.write(first.toByteArray());
                String answer = c.answer();
                assertTrue(answer.startsWith("HTTP/1.1 403"), e.getKey() + " with a wrong proof: " + answer);
                assertTrue(c.closedWithin(PROMPT_MS), e.getKey() + " with a wrong proof: the connection stayed open");
            }
        }
        JsonNode d = lab.run(runId);
        assertFalse(checkpointSeqs(d).contains(7L), "a part with a wrong proof was stored: " + d);
        assertFalse(lab.adminGet("/api/runs/" + runId + "/log").body().contains(forged), "an event with a wrong proof was applied");

        // still a stranger: a request head that never ends is closed at the deadline (the guard's reaper looks every quarter of it)
        long t0 = System.nanoTime();
        try (Raw stalled = new Raw(atk)) {
            stalled.write(("POST /api/runs/" + runId + "/ranks/" + CheckpointUpload.PATH + " HTTP/1.1\r\nHost: engine\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            assertTrue(stalled.closedWithin(PROMPT_MS + DEADLINE_MS), "a stranger's stalled request head was not closed");
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            // armed when the engine accepted it, after this connect began: never closed before the deadline
            assertTrue(ms >= DEADLINE_MS, "closed after " + ms + " ms, before the deadline of " + DEADLINE_MS + " ms");
        }
    }

    /** The headers of rank 0's part of checkpoint {@code seq}, proved with {@code token}. */
    static Map<String, String> checkpointHeaders(long seq, byte[] part, String token) {
        String sha = Sha256.hex(part);
        Map<String, String> h = new LinkedHashMap<>();
        h.put(CheckpointUpload.DOMAIN_HEADER, rank.domainId());
        h.put(CheckpointUpload.RANK_HEADER, "0");
        h.put(CheckpointUpload.CHECKPOINT_HEADER, Long.toString(seq));
        h.put(CheckpointUpload.SHA256_HEADER, sha);
        h.put(CheckpointUpload.PROOF_HEADER, HandMadeUploads.proof(token, rank.domainId(), 0, seq, sha));
        return h;
    }

    /** A post of one LOG event of rank 0 saying {@code message}. */
    static byte[] events(String message) {
        return Json.write(List.of(Map.of("domainId", rank.domainId(), "rank", 0, "seq", 1, "timeMs", 1, "type", "LOG",
                "message", message))).getBytes(StandardCharsets.UTF_8);
    }

    /** The head of {@code POST /api/runs/ID/ranks/PATH} with these headers and a body of {@code length} bytes. */
    static byte[] head(String path, Map<String, String> headers, int length) {
        StringBuilder b = new StringBuilder("POST /api/runs/" + runId + "/ranks/" + path + " HTTP/1.1\r\nHost: engine\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + length + "\r\n");
        headers.forEach((k, v) -> b.append(k).append(": ").append(v).append("\r\n"));
        return b.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    }

    static List<Long> checkpointSeqs(JsonNode run) {
        List<Long> seqs = new ArrayList<>();
        run.path("checkpoints").forEach(c -> seqs.add(c.path("seq").asLong()));
        return seqs;
    }

    /** A connection from a lab node to the engine, written by hand: the pace of its bytes is the test's. */
    static final class Raw implements AutoCloseable {
        private final Socket socket;

        Raw(LabNode from) throws IOException {
            socket = from.connect(lab.engineNode().address(), NetworkLab.ENGINE_PORT);
        }

        void write(byte[] bytes) throws IOException {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        }

        /**
         * Sends {@code body} in {@value #PIECES} pieces with {@value #PAUSE_MS} ms before each; returns how long
         * it took (ms). A connection cut meanwhile fails the test, naming when.
         */
        long dribble(byte[] body) throws InterruptedException {
            long t0 = System.nanoTime();
            int step = (body.length + PIECES - 1) / PIECES;
            for (int off = 0; off < body.length; off += step) {
                Thread.sleep(PAUSE_MS);
                try {
                    socket.getOutputStream().write(body, off, Math.min(step, body.length - off));
                    socket.getOutputStream().flush();
                } catch (IOException e) {
                    throw new AssertionError("the connection was cut " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
                            + " ms into the body (" + off + " of " + body.length + " bytes sent): " + e + "\n" + lab.logs());
                }
            }
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        }

        /**
         * The answer: its head, and its body as long as its {@code Content-Length}; empty when the engine closed the
         * connection first. Bounded by {@link #PROMPT_MS}: the request is complete, nothing is awaited from us.
         */
        String answer() throws IOException {
            socket.setSoTimeout((int) PROMPT_MS);
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            try {
                int b;
                while (!got.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n") && (b = in.read()) >= 0) {
                    got.write(b);
                }
                String head = got.toString(StandardCharsets.ISO_8859_1);
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?im)^content-length:\\s*(\\d+)").matcher(head);
                if (m.find()) {
                    got.write(in.readNBytes(Integer.parseInt(m.group(1))));
                }
            } catch (SocketTimeoutException e) {
                throw new AssertionError("no answer within " + PROMPT_MS + " ms: " + got.toString(StandardCharsets.ISO_8859_1));
            } catch (IOException reset) {
                // closed under us: what came is the answer
            }
            return got.toString(StandardCharsets.UTF_8);
        }

        /** Whether the engine closes this connection within {@code ms} (end of stream or reset); false while it stays open. */
        boolean closedWithin(long ms) {
            return new SlowClientsAttackTest.Stalled(socket).closedBy(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms));
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
