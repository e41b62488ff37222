package org.mpfl.engine.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.testing.Http;

/**
 * An engine failure (500) tells the client an incident id and nothing of the failure; the engine's log has the id with
 * the exception. Before, the answer carried the exception's text ("internal error: java.lang.IllegalStateException: …"):
 * class names, paths, SQL to whoever could provoke it.
 */
@Timeout(60)
class InternalErrorsTest {
    /** What the failing compiler's exception says: a path and a statement no client may read. */
    private static final String SECRET = "cannot write /var/lib/mpfl-secret/cache.bin after SELECT * FROM runs";

    @TempDir
    Path dir;
    Engine engine;
    private final PrintStream err = System.err;
    private final ByteArrayOutputStream logged = new ByteArrayOutputStream();

    @BeforeEach
    void start() throws Exception {
        engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir)
                .invoker(new FakeRanks(r -> r.state("DONE"))).compiler((file, document, params) -> {
                    throw new IllegalStateException(SECRET);
                }));
        HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
        // slf4j-simple writes to whatever System.err is at the moment
        System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() {
        System.setErr(err);
        engine.close();
    }

    @Test
    void aFailingEndpointAnswersAnIncidentIdAndLogsTheException() throws Exception {
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("document", "<workflow/>"));
        assertEquals(500, a.status(), a.body());
        assertFalse(a.body().contains("IllegalStateException") || a.body().contains("mpfl-secret") || a.body().contains("SELECT")
                || a.body().contains("java."), "the answer shows nothing of the failure: " + a.body());
        String incident = a.json().get("incident").asText();
        assertTrue(incident.matches("[0-9a-f]{12}"), a.body());
        assertEquals("internal error (incident " + incident + "; the engine's log has the details)", a.json().get("error").asText());
        String log = logged.toString(StandardCharsets.UTF_8);
        assertTrue(log.contains("incident " + incident) && log.contains(SECRET), "the log has the id and the exception: " + log);
        Http.Answer again = Http.post(engine.url() + "/api/workflows", engine.token(), Map.of("name", "w", "document", "<workflow/>"));
        assertEquals(500, again.status(), again.body());
        assertFalse(incident.equals(again.json().get("incident").asText()), "each failure is an incident of its own");
    }

    /**
     * A store that fails: the run list, the audit trail (a 400 carrying the store's message before) and a run's event
     * stream each answer an incident, never the database's words.
     */
    @Test
    void aFailingStoreShowsNoSql() throws Exception {
        engine.database().close();
        for (String path : List.of("/api/runs", "/api/audit", "/api/runs/r1/events")) {
            Http.Answer a = Http.send("GET", engine.url() + path, "Bearer " + engine.token(), null);
            assertEquals(500, a.status(), path + ": " + a.body());
            assertTrue(a.json().get("error").asText().startsWith("internal error (incident "), path + ": " + a.body());
            assertFalse(a.body().contains("Exception") || a.body().contains("SQL") || a.body().contains("database"),
                    path + ": " + a.body());
        }
    }

    /**
     * The engine cannot keep an archive (its archive directory is a file here; a full disk or a failed move alike): that
     * is the engine's failure, an incident. It was a 400 that carried the file system's message, the engine's archive
     * path included, as if the client had sent a bad archive.
     */
    @Test
    void anArchiveTheEngineCannotStoreIsAnIncidentNotTheClientsMistake() throws Exception {
        Path archives = dir.resolve("archives");
        try (var files = Files.list(archives)) {
            assertTrue(files.findAny().isEmpty(), "nothing deployed yet");
        }
        Files.delete(archives);
        Files.writeString(archives, "a file where the engine keeps its archives");
        Http.Answer a = Http.post(engine.url() + "/api/deployments", engine.token(),
                Map.of("service", "ring", "archive", Base64.getEncoder().encodeToString("PK archive".getBytes(StandardCharsets.UTF_8))));
        assertEquals(500, a.status(), a.body());
        assertTrue(a.json().get("incident").asText().matches("[0-9a-f]{12}"), a.body());
        assertFalse(a.body().contains(dir.toString()) || a.body().contains("archives") || a.body().contains("Exception"),
                "the answer shows nothing of the engine's files: " + a.body());
        Http.Answer list = Http.send("GET", engine.url() + "/api/deployments", "Bearer " + engine.token(), null);
        assertEquals(500, list.status(), list.body());
        assertFalse(list.body().contains(dir.toString()), list.body());
    }

    /**
     * What the engine stored with a workflow version cannot be read (its database altered or damaged: service names that
     * are no JSON here): running the version and reading it are the engine's failure, an incident. They were a
     * 400 whose body was the JSON parser's message, as if the client had sent something wrong; a plan the client sends
     * that is no plan stays a 400 with what is wrong.
     */
    @Test
    void storedWorkflowJsonTheEngineCannotReadIsAnIncidentNotTheClientsMistake() throws Exception {
        engine.database().workflows().save(new org.mpfl.engine.store.WorkflowVersionStore.StoredWorkflow("damaged", 1,
                System.currentTimeMillis(), "s", "c", null,
                "{\"workflow\": \"damaged\", \"processes\": [{\"name\": \"p\", \"service\": \"ring\", \"ranks\": 1}]}",
                "services stored at /var/lib/mpfl-secret are gone"));
        for (Http.Answer a : List.of(
                Http.post(engine.url() + "/api/runs", engine.token(), Map.of("workflow", "damaged")),
                Http.send("GET", engine.url() + "/api/workflows/damaged", "Bearer " + engine.token(), null))) {
            assertEquals(500, a.status(), a.body());
            assertTrue(a.json().get("incident").asText().matches("[0-9a-f]{12}"), a.body());
            assertFalse(a.body().contains("mpfl-secret") || a.body().contains("Unrecognized token") || a.body().contains("damaged"),
                    "the answer shows nothing of what the engine stored: " + a.body());
        }
        assertTrue(logged.toString(StandardCharsets.UTF_8).contains("the stored service names of version 1 of workflow 'damaged' cannot be read"),
                "the log says what could not be read");

        Http.Answer bad = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "w")));
        assertEquals(400, bad.status(), bad.body());
        assertTrue(bad.json().get("error").asText().contains("plan"), bad.body());
    }

    /**
     * Service names stored as JSON that is no map of names (an empty text, {@code null}, an array): the same incident,
     * its log naming what could not be read. {@code null} was taken as no names at all (a run then deployed under plain
     * names; reading the version failed on a NullPointerException whose log said nothing of the store).
     */
    @Test
    void storedServiceNamesThatAreNoNamesAreAnIncidentToo() throws Exception {
        List<String> damaged = List.of("", "null", "[\"ring\"]");
        for (int v = 0; v < damaged.size(); v++) {
            String name = "names" + v;
            engine.database().workflows().save(new org.mpfl.engine.store.WorkflowVersionStore.StoredWorkflow(name, 1,
                    System.currentTimeMillis(), "s", "c", null,
                    "{\"workflow\": \"" + name + "\", \"processes\": [{\"name\": \"p\", \"service\": \"ring\", \"ranks\": 1}]}",
                    damaged.get(v)));
            for (Http.Answer a : List.of(
                    Http.post(engine.url() + "/api/runs", engine.token(), Map.of("workflow", name)),
                    Http.send("GET", engine.url() + "/api/workflows/" + name, "Bearer " + engine.token(), null))) {
                assertEquals(500, a.status(), "service names '" + damaged.get(v) + "': " + a.body());
                assertTrue(a.json().get("incident").asText().matches("[0-9a-f]{12}"), a.body());
            }
            assertTrue(logged.toString(StandardCharsets.UTF_8).contains("the stored service names of version 1 of workflow '" + name
                    + "' cannot be read"), "the log says what could not be read: '" + damaged.get(v) + "'");
        }
    }

    /** An archive that is no service archive stays the client's mistake: 400 with what is wrong with it. */
    @Test
    void anArchiveThatIsNoServiceArchiveIsRefusedAs400() throws Exception {
        Http.Answer a = Http.post(engine.url() + "/api/workflows", engine.token(), Map.of(
                "plan", Map.of("workflow", "probe", "processes", List.of(Map.of("name", "p", "service", "node", "ranks", 1))),
                "archives", List.of(Map.of("service", "node",
                        "archive", Base64.getEncoder().encodeToString("no zip".getBytes(StandardCharsets.UTF_8))))));
        assertEquals(400, a.status(), a.body());
        assertTrue(a.json().get("error").asText().contains("not a service archive"), a.body());
    }

    /** A charset Java does not know was a 500 naming Camel's TypeConversionException; it is the caller's mistake. */
    @Test
    void aBodyInAnUnknownCharsetIsRefusedAs400() throws Exception {
        for (String path : List.of("/api/runs", "/api/registry/credentials")) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(engine.url() + path))
                    .header("Authorization", "Bearer " + engine.token()).header("Content-Type", "application/json; charset=no-such")
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(400, r.statusCode(), path + ": " + r.body());
            assertTrue(r.body().contains("charset") && !r.body().contains("Exception") && !r.body().contains("org.apache"),
                    path + ": " + r.body());
        }
    }
}
