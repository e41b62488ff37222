package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.testing.Http;
import org.mpfl.engine.access.OidcSettings;
import org.mpfl.engine.access.TestIssuer;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.engine.store.AccessStore;

/**
 * {@code mpflc login} against a real issuer ({@link TestIssuer}) and a real engine: the device flow
 * (the user approves the printed code, as in a browser), the owner-only token cache, refresh, and then
 * {@code run}, {@code status} and {@code trace} as that user; a service account with client credentials.
 */
@Timeout(180)
class LoginTest {
    @TempDir
    Path dir;
    TestIssuer issuer;
    Engine engine;
    Path cache;

    @BeforeEach
    void start() throws Exception {
        // access tokens shorter than the cache's 30 s margin: every command must refresh, so refresh is tested
        issuer = TestIssuer.start().publicClient("mpfl-cli").accessTokenSeconds(20)
                .serviceAccount("robot", "s3cret-of-robot", "robot", "operator", "a");
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir.resolve("engine")).token("admin")
                .oidc(OidcSettings.of(issuer.issuer(), "mpfl-engine").withConsoleClientId("mpfl-cli"))
                .invoker(new FakeRanks(r -> {
                    r.output("x", r.rank());
                    r.state("DONE");
                })));
        HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
        cache = dir.resolve("home/.mpfl/login.json");
    }

    @AfterEach
    void stop() {
        engine.close();
        issuer.close();
    }

    private record Result(int code, String out, String err) {
    }

    private static Result mpflc(org.mpfl.ir.cli.CliCommand c, List<String> args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = c.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private List<String> client(String... more) {
        List<String> l = new java.util.ArrayList<>(List.of(more));
        l.addAll(List.of("--engine", engine.url(), "--login-cache", cache.toString()));
        return l;
    }

    private Path plan() throws Exception {
        Path p = dir.resolve("ring.json");
        Files.writeString(p, Json.write(Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "ranks", 2)))));
        return p;
    }

    @Test
    void deviceLoginThenRunStatusAndTraceAsThatUser() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Result> login = pool.submit(() -> mpflc(new LoginCommand(), client()));
            // the user reads the code and approves it in a browser; bounded wait for the code to exist
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (issuer.pendingUserCodes().isEmpty() && System.nanoTime() < end) {
                Thread.sleep(50);
            }
            String code = issuer.pendingUserCodes().get(0);
            HttpResponse<String> approved = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(issuer.issuer() + "/approve"))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString("user_code=" + code + "&user=alice&role=operator&projects=a")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, approved.statusCode());
            Result r = login.get(60, TimeUnit.SECONDS);
            assertEquals(0, r.code(), r.err());
            assertTrue(r.err().contains(code), "the code was shown to the user: " + r.err());
            assertTrue(r.out().contains("as alice (operator"), r.out());
        } finally {
            pool.shutdownNow();
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cache)));

        Result run = mpflc(new RunCommand(), client(plan().toString(), "--json"));
        assertEquals(0, run.code(), run.err());
        String id = Json.MAPPER.readTree(run.out()).get("run").asText();
        assertEquals(new AccessStore.Ownership("a", "alice"), engine.database().access().runOwner(id).orElseThrow(),
                "the run is alice's, in her only project");
        assertTrue(issuer.refreshes() >= 1, "the short-lived access token was refreshed");

        Result status = mpflc(new StatusCommand(), client(id));
        assertEquals(0, status.code(), status.err());
        assertTrue(status.out().contains("SUCCEEDED"), status.out());
        Path trace = dir.resolve("trace.json");
        Result tr = mpflc(new TraceCommand(), client(id, "-o", trace.toString()));
        assertEquals(0, tr.code(), tr.err());
        JsonNode t = Json.MAPPER.readTree(Files.readString(trace));
        assertTrue(t.path("traceEvents").size() > 0, "a trace of the run");
        String cached = Files.readString(cache);
        assertFalse(cached.contains("admin"), "the admin token is not what the commands used");

        // another user's cache cannot see alice's run: bob of project b
        assertThrows(EngineClient.EngineException.class, () -> new EngineClient(engine.url(),
                issuer.token("bob", "operator", "b")).get("/api/runs/" + id));
    }

    @Test
    void aServiceAccountLogsInWithClientCredentialsAndTheCacheHoldsNoSecret() throws Exception {
        Path secret = dir.resolve("robot.secret");
        Files.writeString(secret, "s3cret-of-robot\n");
        Result r = mpflc(new LoginCommand(), client("--client-id", "robot", "--client-secret-file", secret.toString()));
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("as robot (operator"), r.out());
        assertFalse(Files.readString(cache).contains("s3cret-of-robot"), "the cache names the secret's file, not the secret");
        // the 20 s token is renewed by the client credentials grant again for each command
        Result run = mpflc(new RunCommand(), client(plan().toString(), "--json"));
        assertEquals(0, run.code(), run.err());
        assertEquals("robot", engine.database().access().runOwner(Json.MAPPER.readTree(run.out()).get("run").asText())
                .orElseThrow().owner());
        Files.writeString(secret, "wrong\n");
        // a secret revoked (here: changed) at the issuer: the command says to log in again instead of acting
        java.io.IOException refused = assertThrows(java.io.IOException.class, () -> mpflc(new StatusCommand(), client("x")));
        assertTrue(refused.getMessage().contains("run mpflc login again"), refused.getMessage());
    }
}
