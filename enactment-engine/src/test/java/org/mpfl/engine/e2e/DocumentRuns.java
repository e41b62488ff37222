package org.mpfl.engine.e2e;


import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.json.Json;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.testing.MpflcCall;

/**
 * What {@link DocumentRunCases} and the tests of one path alone share: the test documents in a directory, a SOAP
 * service for their invoke, and {@code mpflc run DOC … --json} run where the subclass's ranks run. No test of its
 * own, so that a class of a path's own tests ({@link InProcessRunEndsTest}) runs beside the cases, not after them.
 */
@Timeout(300)
abstract class DocumentRuns {
    static Path dir;
    static HttpServer soap;

    /** What follows the document on {@code mpflc run}'s command line to run it where this class's ranks run. */
    abstract List<String> where();

    @BeforeAll
    static void documents() throws Exception {
        dir = Files.createTempDirectory("mpfl-doc-e2e-");
        for (String doc : List.of("everything", "failing", "loud", "deadlock", "timeout", "invoke", "logging")) {
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
        MpflcCall call = MpflcCall.run(args.toArray(String[]::new));
        JsonNode json = call.out().isBlank() ? Json.MAPPER.createObjectNode() : Json.MAPPER.readTree(call.out());
        return new Result(call.exit(), json, call.err() + call.out());
    }

    /** Runs {@code doc} as a user at a terminal does: no {@code --json}, so progress and log lines go to stderr. */
    Result runShown(String doc) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", dir.resolve(doc + ".mpfl.xml").toString()));
        args.addAll(where());
        MpflcCall call = MpflcCall.run(args.toArray(String[]::new));
        return new Result(call.exit(), Json.MAPPER.createObjectNode(), call.err() + call.out());
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
}
