package org.mpfl.engine.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.testing.Http;

/**
 * A client's mistakes, as a client sends them over real HTTP, are answered 400 with the API's JSON error saying
 * what was wrong: never a 500, never a plain-text status line, never a library's words. Found by using the REST
 * API with curl against {@code mpflc up}.
 */
@Timeout(60)
class ClientMistakesTest {
    @TempDir
    Path dir;
    Engine engine;

    @BeforeEach
    void start() throws Exception {
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).token("admin-token").invoker(new FakeRanks(r -> { })));
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    /**
     * A {@code %} not followed by two hex digits: in a path it was a 500 {@code Internal Server Error} in plain text
     * (and Vert.x's stack trace in the log), in a query a plain-text {@code Bad Request}.
     */
    @Test
    void aMalformedPercentEscapeIsABadRequestSaidInJson() throws Exception {
        for (String target : List.of("/api/runs/%ZZ", "/api/workflows/%", "/%ZZ", "/api/runs?q=%ZZ", "/api/runs/r1/logs?rank=%")) {
            for (String auth : new String[] {"Authorization: Bearer admin-token\r\n", ""}) {
                String answer = raw(engine.url(), "GET " + target + " HTTP/1.1\r\n" + auth);
                String head = answer.substring(0, answer.indexOf("\r\n\r\n")).toLowerCase(java.util.Locale.ROOT);
                assertTrue(answer.startsWith("HTTP/1.1 400 "), target + ": " + answer);
                assertTrue(head.contains("content-type: application/json"), target + ": " + answer);
                assertTrue(head.contains("content-security-policy: " + SecurityHeaders.API_POLICY.toLowerCase(java.util.Locale.ROOT)),
                        target + ": " + answer);
                assertTrue(answer.contains("{\"error\":\"the request's " + (target.contains("?") ? "query" : "path")
                        + " has a malformed percent escape"), target + ": " + answer);
            }
        }
    }

    /**
     * A body that is not JSON is said with the parser's complaint and where it is, not with Jackson's internals: the
     * answer read "… at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column:
     * 2]", and a body nested too deep "… (1000, from `StreamReadConstraints.getMaxNestingDepth()`)".
     */
    @Test
    void aBodyThatIsNotJsonIsSaidWithoutTheParsersInternals() throws Exception {
        String deep = "[".repeat(1200) + "]".repeat(1200);
        for (String[] c : List.of(new String[] {"/api/runs", "{bad", "line 1, column 2"},
                new String[] {"/api/workflows", "{\"name\": \"w\",\n x}", "line 2, column 2"},
                new String[] {"/api/registry/credentials", "x", "line 1, column 2"},
                new String[] {"/api/runs", deep, "exceeds the maximum allowed (1000)"})) {
            Http.Answer a = Http.send("POST", engine.url() + c[0], "Bearer admin-token", c[1]);
            assertEquals(400, a.status(), c[0] + ": " + a.body());
            String error = a.json().get("error").asText();
            assertTrue(error.startsWith("the body is not valid JSON: ") && error.contains(c[2]), c[0] + ": " + error);
            for (String internal : List.of("Source", "REDACTED", "StreamRead", "`", "jackson")) {
                assertFalse(error.contains(internal), c[0] + ": " + error);
            }
        }
    }

    /**
     * A host announcement with a field of the wrong type names the field and what it must be; it named the engine's
     * classes ("Cannot deserialize value of type `java.lang.Integer` … org.mpfl.engine.registry.HostAnnouncement[\"capacity\"]").
     * A capacity below 1 was registered as 1 (the API gives 1 as its minimum), and a {@code soapUrl} that is no URL was
     * answered with the URI parser's words ("Illegal character in scheme name at index 2: ht tp://x y").
     */
    @Test
    void aHostAnnouncementOfTheWrongShapeNamesTheFieldNotTheEnginesClasses() throws Exception {
        Http.Answer issued = Http.post(engine.url() + "/api/registry/credentials", "admin-token", java.util.Map.of("hostId", "h1"));
        assertEquals(201, issued.status(), issued.body());
        String credential = "Bearer " + issued.json().get("id").asText() + "." + issued.json().get("secret").asText();
        for (String[] c : List.of(new String[] {"{\"soapUrl\": \"http://127.0.0.1:1/s\", \"capacity\": \"four\"}",
                        "'capacity' must be a whole number from 1 to 2147483647, not \"four\""},
                new String[] {"{\"soapUrl\": \"http://127.0.0.1:1/s\", \"capacity\": 99999999999}",
                        "'capacity' must be a whole number from 1 to 2147483647, not 99999999999"},
                new String[] {"{\"soapUrl\": \"http://127.0.0.1:1/s\", \"capacity\": -4}",
                        "'capacity' must be a whole number from 1 to 2147483647, not -4"},
                new String[] {"{\"soapUrl\": \"http://127.0.0.1:1/s\", \"slots\": 0}",
                        "'slots' must be a whole number from 1 to 2147483647, not 0"},
                new String[] {"{\"soapUrl\": \"ht tp://x y\"}", "'soapUrl' must be an http or https URL such as"
                        + " http://HOST:PORT/services; it does not parse (illegal character in scheme name at character 3)"},
                new String[] {"{\"soapUrl\": \"http://[::1\"}", "'soapUrl' must be an http or https URL such as"
                        + " http://HOST:PORT/services; it does not parse (expected closing bracket for ipv6 address at character 12)"},
                new String[] {"{\"soapUrl\": \"ftp://h/s\"}", "'soapUrl' must be an http or https URL such as"
                        + " http://HOST:PORT/services; its scheme is 'ftp'"},
                new String[] {"{\"soapUrl\": \"http://127.0.0.1:1/s\", \"deployUrl\": \"/deploy\"}", "'deployUrl' must be an http or"
                        + " https URL such as http://HOST:PORT/services; its scheme is missing"},
                new String[] {"{\"soapUrl\": \"http://127.0.0.1:1/s\", \"services\": \"ring\"}", "'services' must be an array"},
                new String[] {"{\"soapUrl\": \"http://127.0.0.1:1/s\", \"oversubscribe\": [1]}", "'oversubscribe' must be true or false"})) {
            Http.Answer a = Http.send("POST", engine.url() + "/api/registry/hosts", credential, c[0]);
            assertEquals(400, a.status(), c[0] + ": " + a.body());
            assertEquals("not a host announcement: " + c[1], a.json().get("error").asText(), c[0]);
        }
        assertEquals(0, engine.registry().hosts().size(), "nothing was registered");
    }

    /**
     * A start or deploy request is taken as the API documents it or refused: two of plan, document and workflow ran
     * one and ignored the other, and a field of another type was dropped ({@code "params": [1]}: the defaults) or read
     * as text ({@code "workflow": 123}), the run started all the same.
     */
    @Test
    void aRequestOfTheWrongShapeIsRefusedNotHalfRead() throws Exception {
        for (String[] c : List.of(
                new String[] {"/api/runs", "{\"workflow\": \"w\", \"document\": \"<workflow/>\"}",
                        "give exactly one of 'plan', 'document' or 'workflow', not 'document' and 'workflow'"},
                new String[] {"/api/runs", "{\"workflow\": \"w\", \"params\": [1]}", "'params' must be an object"},
                new String[] {"/api/runs", "{\"workflow\": \"w\", \"archives\": \"x\"}",
                        "'archives' must be an array of {\"service\": NAME, \"archive\": BASE64}"},
                new String[] {"/api/runs", "{\"workflow\": 123}", "'workflow' must be a string"},
                new String[] {"/api/runs", "[]", "the body must be a JSON object"},
                new String[] {"/api/workflows", "{\"name\": \"w\", \"document\": 5}", "'document' must be a string"},
                new String[] {"/api/workflows", "{\"name\": \"w\", \"document\": \"<workflow/>\", \"archives\": {}}",
                        "'archives' must be an array of {\"service\": NAME, \"archive\": BASE64}"})) {
            Http.Answer a = Http.send("POST", engine.url() + c[0], "Bearer admin-token", c[1]);
            assertEquals(400, a.status(), c[1] + ": " + a.body());
            assertEquals(c[2], a.json().get("error").asText(), c[1]);
        }
        Http.Answer runs = Http.send("GET", engine.url() + "/api/runs", "Bearer admin-token", null);
        assertEquals("0", runs.headers().firstValue("X-Total-Count").orElse(null), "no run was started: " + runs.body());
    }

    /**
     * A body its {@code Content-Type} says is not JSON is refused 415 naming the type the endpoint takes: a {@code
     * text/plain} or a form body ({@code curl -d}'s default) holding JSON was parsed as JSON all the same.
     */
    @Test
    void aBodyOfAnotherTypeThanJsonIsUnsupported() throws Exception {
        String start = "{\"plan\": {\"workflow\": \"w\", \"processes\": [{\"name\": \"p\", \"ranks\": 1}]}}";
        for (String[] c : List.of(new String[] {"/api/runs", "text/plain", start},
                new String[] {"/api/runs", "application/x-www-form-urlencoded", start},
                new String[] {"/api/workflows", "text/xml; charset=utf-8", "<workflow/>"},
                new String[] {"/api/registry/credentials", "text/plain", "{}"})) {
            java.net.http.HttpResponse<String> a = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest
                    .newBuilder(URI.create(engine.url() + c[0])).header("Authorization", "Bearer admin-token").header("Content-Type", c[1])
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(c[2])).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(415, a.statusCode(), c[0] + " " + c[1] + ": " + a.body());
            assertEquals("{\"error\":\"this endpoint takes a JSON body (Content-Type: application/json), not "
                    + c[1].replaceAll(";.*", "") + "\"}", a.body().strip(), c[1]);
        }
        Http.Answer runs = Http.send("GET", engine.url() + "/api/runs", "Bearer admin-token", null);
        assertEquals("0", runs.headers().firstValue("X-Total-Count").orElse(null), "no run was started: " + runs.body());
        java.net.http.HttpResponse<String> json = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest
                .newBuilder(URI.create(engine.url() + "/api/registry/credentials")).header("Authorization", "Bearer admin-token")
                .header("Content-Type", "application/json; charset=utf-8").POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}"))
                .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(201, json.statusCode(), "JSON with its charset is taken: " + json.body());
    }

    /**
     * A run's param values are named by the request's field, not by the command line's option: an unknown one was
     * "--param zz: the workflow has no param 'zz'", which a REST client never typed. A plan's rank count beyond an int
     * said "at least 1".
     */
    @Test
    void aRunsValuesAreNamedByTheirFields() throws Exception {
        String doc = "<workflow xmlns=\"urn:mpfl:1.0\" name=\"p\"><param name=\"n\" type=\"int\" default=\"1\"/>"
                + "<process name=\"w\" ranks=\"1\"><output name=\"t\" value=\"2 * n\"/></process></workflow>";
        for (Object[] c : List.of(new Object[] {java.util.Map.of("zz", 1), "'params.zz': the workflow has no param 'zz' (it declares n)"},
                new Object[] {java.util.Map.of("n", "abc"), "'params.n' (abc): not a valid int"})) {
            Http.Answer a = Http.post(engine.url() + "/api/runs", "admin-token", java.util.Map.of("document", doc, "params", c[0]));
            assertEquals(422, a.status(), a.body());
            String error = a.json().get("error").asText();
            assertTrue(error.contains("error: " + c[1]) && !error.contains("--param"), error);
        }
        for (String ranks : List.of("99999999999", "0", "1.5", "\"2\"")) {
            Http.Answer a = Http.send("POST", engine.url() + "/api/runs", "Bearer admin-token",
                    "{\"plan\": {\"workflow\": \"w\", \"processes\": [{\"name\": \"p\", \"ranks\": " + ranks + "}]}}");
            assertEquals(400, a.status(), a.body());
            assertEquals("plan 'w': process 'p' needs a whole number of ranks from 1 to 2147483647 (field 'ranks'), not " + ranks,
                    a.json().get("error").asText());
        }
    }

    /**
     * A run that gives a required param no value is refused before it starts, at the {@code <param>} and naming the
     * request's field: it was started, and every rank failed at its start with "param 'n' has no value", saying nothing
     * of where the document declares it. So for a document, and for a plan that says where (a plan that does not,
     * hand-written or written before plans did, is refused naming the plan).
     */
    private static final String UNVALUED = "the run cannot start without a value for each param that has no default:";

    @Test
    void aRunWithoutARequiredParamsValueIsRefusedAtItsDeclaration() throws Exception {
        String doc = "<workflow xmlns=\"urn:mpfl:1.0\" name=\"p\">\n  <param name=\"n\" type=\"int\"/>\n"
                + "  <process name=\"w\" ranks=\"1\"><output name=\"t\" value=\"2 * n\"/></process>\n</workflow>\n";
        Http.Answer a = Http.post(engine.url() + "/api/runs", "admin-token", java.util.Map.of("document", doc, "file", "p.mpfl.xml"));
        assertEquals(422, a.status(), a.body());
        assertEquals(UNVALUED + "\np.mpfl.xml:2:3: error: param 'n' has no value: it has no default, so give it with 'params.n' (VALUE)",
                a.json().get("error").asText(), "the document itself has no static error");
        for (String at : List.of(", \"at\": \"p.mpfl.xml:2:3\"", "")) {
            String plan = "{\"plan\": {\"workflow\": \"p\", \"params\": [{\"name\": \"n\", \"type\": \"int\", \"required\": true"
                    + at + "}], \"processes\": [{\"name\": \"w\", \"ranks\": 1}]}}";
            Http.Answer p = Http.send("POST", engine.url() + "/api/runs", "Bearer admin-token", plan);
            assertEquals(422, p.status(), p.body());
            // a plan has no static errors to speak of: the refusal says what is missing, not "the document has static errors"
            assertEquals(UNVALUED + "\n" + (at.isEmpty() ? "plan 'p'" : "p.mpfl.xml:2:3")
                    + ": error: param 'n' has no value: it has no default, so give it with 'params.n' (VALUE)", p.json().get("error").asText());
        }
        Http.Answer runs = Http.send("GET", engine.url() + "/api/runs", "Bearer admin-token", null);
        assertEquals("0", runs.headers().firstValue("X-Total-Count").orElse(null), "no run was started: " + runs.body());
        Http.Answer given = Http.post(engine.url() + "/api/runs", "admin-token", java.util.Map.of("document", doc,
                "params", java.util.Map.of("n", 2)));
        assertEquals(201, given.status(), "with its value it starts: " + given.body());
    }

    /**
     * An archive that is not base64 is refused naming its field and what is wrong with it: the decoder's words said
     * "archive of 'w' is not base64: Illegal base64 character 21" (the character by its hex code).
     */
    @Test
    void anArchiveThatIsNotBase64NamesItsFieldAndWhy() throws Exception {
        String doc = "<workflow xmlns=\"urn:mpfl:1.0\" name=\"p\"><process name=\"w\" ranks=\"1\"/></workflow>";
        String fine = java.util.Base64.getEncoder().encodeToString(new byte[] {1, 2, 3, 4});
        for (Object[] c : List.of(
                new Object[] {"/api/runs", java.util.Map.of("document", doc, "archives", List.of(java.util.Map.of("service", "w", "archive", fine),
                        java.util.Map.of("service", "v", "archive", "ab!d"))),
                        "'archives[1].archive' (service 'v') is not base64 (RFC 4648): '!' at character 3 is not a base64 character"},
                new Object[] {"/api/workflows", java.util.Map.of("name", "p", "document", doc, "archives",
                        List.of(java.util.Map.of("service", "w", "archive", fine.substring(0, 2) + "\n" + fine.substring(2)))),
                        "'archives[0].archive' (service 'w') is not base64 (RFC 4648): U+000A at character 3 is not a"
                                + " base64 character (send it without line breaks: base64 -w0 FILE)"},
                new Object[] {"/api/deployments", java.util.Map.of("service", "w", "archive", "abcde"),
                        "'archive' (service 'w') is not base64 (RFC 4648): its length or padding is wrong (5 characters)"})) {
            Http.Answer a = Http.post(engine.url() + c[0], "admin-token", c[1]);
            assertEquals(400, a.status(), c[0] + ": " + a.body());
            assertEquals(c[2], a.json().get("error").asText(), (String) c[0]);
        }
    }

    /**
     * A stored workflow's name is MPFL's workflow name ({@code [A-Za-z][A-Za-z0-9_-]*}, docs/language-reference.md):
     * "a b" and "a/b" were stored (Location: /api/workflows/a/b@1, its services left unqualified), a name no GET could
     * ask for again.
     */
    @Test
    void aWorkflowNameOutsideTheLanguagesIsRefused() throws Exception {
        String doc = "<workflow xmlns=\"urn:mpfl:1.0\" name=\"p\"><process name=\"w\" ranks=\"1\"/></workflow>";
        for (String name : List.of("a b", "a/b", "1st", "", "p.v1", "x".repeat(257))) {
            Http.Answer a = Http.post(engine.url() + "/api/workflows", "admin-token", java.util.Map.of("name", name, "document", doc));
            assertEquals(400, a.status(), name + ": " + a.body());
            assertEquals("'name': a workflow name is a letter, then letters, digits, '_' or '-' (as the document's workflow@name),"
                    + " at most 256 characters; not '" + name + "'", a.json().get("error").asText());
        }
        Http.Answer plan = Http.post(engine.url() + "/api/workflows", "admin-token",
                java.util.Map.of("plan", java.util.Map.of("workflow", "a b", "processes", List.of(java.util.Map.of("name", "w", "ranks", 1)))));
        assertEquals(400, plan.status(), "a plan's workflow names it when no name is given: " + plan.body());
        assertTrue(plan.json().get("error").asText().endsWith("not 'a b'"), plan.body());
        assertEquals("[]", Http.send("GET", engine.url() + "/api/workflows", "Bearer admin-token", null).body().strip(), "nothing stored");
        assertEquals(201, Http.post(engine.url() + "/api/workflows", "admin-token", java.util.Map.of("name", "p_2-b", "document", doc)).status());
    }

    /**
     * The audit trail's paging outside its range is refused as the run list's is: {@code limit=-5} was served as 1
     * (one entry, 200) and {@code limit=99999999} as 10000, though the API gives 10000 as the maximum.
     */
    @Test
    void anAuditPageOutOfRangeIsABadRequest() throws Exception {
        for (String q : List.of("limit=-5", "limit=0", "limit=10001", "after=-1", "after=x&limit=5")) {
            Http.Answer a = Http.send("GET", engine.url() + "/api/audit?" + q, "Bearer admin-token", null);
            assertEquals(400, a.status(), q + ": " + a.body());
            assertTrue(a.json().get("error").asText().startsWith("'after' and 'limit' are entry numbers (?after=ID&limit=N; ID at least 0,"
                    + " N from 1 to 10000), got " + q.replace("&", ", ")), q + ": " + a.body());
        }
        assertEquals(200, Http.send("GET", engine.url() + "/api/audit?after=0&limit=10000", "Bearer admin-token", null).status());
    }

    /** An unknown API path was Vert.x's HTML page ({@code <h1>Resource not found</h1>}); it is the API's JSON error now. */
    @Test
    void anUnknownEndpointIsSaidInJson() throws Exception {
        for (String auth : new String[] {"Bearer admin-token", null}) {
            Http.Answer unknown = Http.send("GET", engine.url() + "/api/nope", auth, null);
            assertEquals(404, unknown.status(), unknown.body());
            assertEquals("application/json", unknown.headers().firstValue("Content-Type").orElse(null));
            assertEquals("no such API endpoint: GET /api/nope (GET /api/openapi lists them)", unknown.json().get("error").asText());
        }
        Http.Answer method = Http.send("PATCH", engine.url() + "/api/runs", "Bearer admin-token", null);
        assertEquals(405, method.status(), method.body());
        assertTrue(method.headers().firstValue("Allow").orElse("").contains("POST"), "the 405 says Allow");
    }

    /**
     * Sends {@code requestHead} (request line and headers, without the closing blank line) over HTTP/1.1 to the engine
     * at {@code url} and reads the whole answer.
     */
    static String raw(String url, String requestHead) throws Exception {
        URI u = URI.create(url);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(u.getHost(), u.getPort()), 10_000);
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write((requestHead + "Host: " + u.getHost() + ":" + u.getPort() + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
