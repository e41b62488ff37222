package org.mpfl.engine.e2e;

import org.mpfl.ir.cli.Commands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.json.Json;
import org.mpfl.ir.files.FileTrees;

/**
 * MPFL documents run end to end as a user runs them ({@code mpflc run DOC … --json}), the same cases
 * wherever the ranks run ({@link #where}): the constructs, a faulting rank, a deadlock only the run can
 * show, a receive timeout and an invoke of an external SOAP service. {@link MpflDocumentRunTest}: on two
 * service-host child processes of an engine; {@link InProcessDocumentRunTest}: {@code run --local}, the
 * ranks as threads of the command line's JVM. The same assertions pass on both: the two paths have the
 * same semantics.
 */
@Timeout(300)
abstract class DocumentRunCases {
    static Path dir;
    static HttpServer soap;

    /** What follows the document on {@code mpflc run}'s command line to run it where this class's ranks run. */
    abstract List<String> where();

    @BeforeAll
    static void documents() throws Exception {
        dir = Files.createTempDirectory("mpfl-doc-e2e-");
        for (String doc : List.of("everything", "failing", "deadlock", "timeout", "invoke")) {
            try (InputStream in = MpflDocumentRunTest.class.getResourceAsStream("/mpfl/" + doc + ".mpfl.xml")) {
                Files.write(dir.resolve(doc + ".mpfl.xml"), in.readAllBytes());
            }
        }
        TestActivities.jar(Files.createDirectories(dir.resolve("lib")).resolve("activities.jar"));
        soap = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        soap.createContext("/echo", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String rank = body.replaceAll("(?s).*<t:echo[^>]*>([^<]*)</t:echo>.*", "$1");
            byte[] answer = ("<e:Envelope xmlns:e=\"http://www.w3.org/2003/05/soap-envelope\"><e:Body><r xmlns=\"urn:r\">echo "
                    + rank + "</r></e:Body></e:Envelope>").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/soap+xml; charset=utf-8");
            ex.sendResponseHeaders(200, answer.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(answer);
            }
        });
        soap.start();
    }

    @AfterAll
    static void stop() throws IOException {
        if (soap != null) {
            soap.stop(0);
        }
        FileTrees.deleteQuietly(dir);
    }

    record Result(int exit, JsonNode json, String err) {
        String state() {
            return json.path("state").asText();
        }
    }

    Result run(String doc, String... params) throws Exception {
        return run(doc, List.of(), params);
    }

    /** Runs {@code doc} with more options of {@code mpflc run} ({@code options}). */
    Result run(String doc, List<String> options, String... params) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", dir.resolve(doc + ".mpfl.xml").toString(), "--json"));
        args.addAll(where());
        args.addAll(options);
        for (String p : params) {
            args.add("--param");
            args.add(p);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Commands.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        JsonNode json = text.isBlank() ? Json.MAPPER.createObjectNode() : Json.MAPPER.readTree(text);
        return new Result(exit, json, err.toString(StandardCharsets.UTF_8) + text);
    }

    /** Line:column of the first element whose text starts with {@code tag} in a test document. */
    static String location(String doc, String tag) throws IOException {
        List<String> lines = Files.readAllLines(dir.resolve(doc + ".mpfl.xml"));
        for (int i = 0; i < lines.size(); i++) {
            int col = lines.get(i).indexOf(tag);
            if (col >= 0) {
                return doc + ".mpfl.xml:" + (i + 1) + ":" + (col + 1);
            }
        }
        throw new AssertionError(tag + " not in " + doc);
    }

    @Test
    void everyKindOfActivity() throws Exception {
        Result r = run("everything", EverythingDocument.PARAMS);
        assertEquals("SUCCEEDED", r.state(), r.err());
        assertEquals(0, r.exit());
        EverythingDocument.assertOutputs(r.json().get("outputs"));
    }

    @Test
    void aFaultingRankFailsTheRunQuicklyWithRankLocationAndMessage() throws Exception {
        long start = System.nanoTime();
        Result r = run("failing");
        assertEquals("FAILED", r.state(), r.err());
        assertEquals(1, r.exit());
        JsonNode e = r.json().get("error");
        assertEquals(1, e.get("rank").asInt(), e.toString());
        // locations name the document as the user gave it (here an absolute path), like diagnostics
        assertTrue(e.get("location").asText().endsWith(location("failing", "/ divisor")), e.toString());
        assertEquals("integer division by zero", e.get("message").asText());
        assertTrue(r.json().get("elapsedMs").asLong() < 15_000, "failed within seconds: " + r.json());
        assertTrue(System.nanoTime() - start < 60_000_000_000L);
    }

    @Test
    void aRuntimeDeadlockIsReportedWithItsCycle() throws Exception {
        Result r = run("deadlock");
        assertEquals("FAILED", r.state(), r.err());
        String message = r.json().at("/error/message").asText();
        String at = location("deadlock", "<receive from=\"partner\"");
        assertTrue(message.startsWith("deadlock: "), message);
        assertTrue(message.contains("rank 0 waits for rank 1 at " + dir.resolve(at)), message);
        assertTrue(message.contains("rank 1 waits for rank 0 at " + dir.resolve(at)), message);
    }

    @Test
    void aReceiveTimeoutIsAClearError() throws Exception {
        Result r = run("timeout");
        assertEquals("FAILED", r.state(), r.err());
        JsonNode e = r.json().get("error");
        assertEquals(0, e.get("rank").asInt());
        assertTrue(e.get("location").asText().endsWith(location("timeout", "<receive")), e.toString());
        assertTrue(e.get("message").asText().startsWith("timed out: no message from rank 1 with tag 0 arrived on communicator world within PT0.5S"),
                e.toString());
    }

    @Test
    void invokeCallsAnExternalSoapService() throws Exception {
        Result r = run("invoke", "endpoint=http://127.0.0.1:" + soap.getAddress().getPort() + "/echo");
        assertEquals("SUCCEEDED", r.state(), r.err());
        assertEquals("<r xmlns=\"urn:r\">echo 0</r>", r.json().at("/outputs/reply/0").asText());
        assertEquals("<r xmlns=\"urn:r\">echo 1</r>", r.json().at("/outputs/reply/1").asText());
    }

    @Test
    void twoRunsOfOneDocumentAtOnce() throws Exception {
        var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            var a = pool.submit(() -> run("everything", "base=1"));
            var b = pool.submit(() -> run("everything", "base=2"));
            Result ra = a.get();
            Result rb = b.get();
            assertEquals("SUCCEEDED", ra.state(), ra.err());
            assertEquals("SUCCEEDED", rb.state(), rb.err());
            assertEquals(2, ra.json().at("/outputs/y/0").asInt());
            assertEquals(4, rb.json().at("/outputs/y/0").asInt());
        } finally {
            pool.shutdownNow();
        }
    }
}
