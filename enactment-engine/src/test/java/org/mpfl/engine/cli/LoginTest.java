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
                .serviceAccount("robot", "s3cret-of-robot", "robot", "operator", "a")
                .serviceAccount("nora", "s3cret-of-nora", "nora", "offline_access", "a");
        engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine")).token("admin")
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

    /** The command line of a client command with a token in a file, as {@code --token-file} reads it. */
    private List<String> withToken(String token, String... more) throws Exception {
        Path file = Files.createTempFile(dir, "token", ".jwt");
        Files.writeString(file, token + "\n");
        List<String> l = new java.util.ArrayList<>(List.of(more));
        l.addAll(List.of("--engine", engine.url(), "--token-file", file.toString()));
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

    /** {@code mpflc login} as service account {@code id}, whose secret ({@code s3cret-of-ID}) is in {@code dir/ID.secret}. */
    private Result serviceAccountLogin(String id) throws Exception {
        Path secret = dir.resolve(id + ".secret");
        Files.writeString(secret, "s3cret-of-" + id + "\n");
        return mpflc(new LoginCommand(), client("--client-id", id, "--client-secret-file", secret.toString()));
    }

    @Test
    void aServiceAccountLogsInWithClientCredentialsAndTheCacheHoldsNoSecret() throws Exception {
        Result r = serviceAccountLogin("robot");
        Path secret = dir.resolve("robot.secret");
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

    @Test
    void aLoginTheEngineRefusesFailsWithTheEnginesReasonAndIsNotKept() throws Exception {
        Result r = serviceAccountLogin("nora");
        assertEquals(1, r.code(), r.out());
        assertTrue(r.err().contains("the engine at " + engine.url() + " refuses the token: the token names no MPFL role in claim"
                + " 'roles'"), r.err());
        assertFalse(r.out().contains("logged in"), r.out());
        assertFalse(Files.exists(cache), "a login the engine refuses is not kept for later commands");
    }

    @Test
    void anIssuerOutOfReachIsSaidSoInARefreshAndInALogin() throws Exception {
        Path secret = dir.resolve("robot.secret");
        Files.writeString(secret, "s3cret-of-robot\n");
        assertEquals(0, mpflc(new LoginCommand(), client("--client-id", "robot", "--client-secret-file", secret.toString())).code());
        issuer.close();
        // the 20 s token needs renewing for every command: the issuer is gone, which logging in again cannot mend
        java.io.IOException refresh = assertThrows(java.io.IOException.class, () -> mpflc(new StatusCommand(), client("x")));
        assertTrue(refresh.getMessage().contains("cannot be refreshed: cannot reach the issuer at " + issuer.issuer() + "/token: "),
                refresh.getMessage());
        assertTrue(refresh.getMessage().contains("(nothing listens there: is the issuer running"), refresh.getMessage());
        assertFalse(refresh.getMessage().contains("login again") || refresh.getMessage().contains("null"), refresh.getMessage());
        java.io.IOException login = assertThrows(java.io.IOException.class, () -> mpflc(new LoginCommand(), client()));
        assertTrue(login.getMessage().startsWith("cannot reach the issuer at " + issuer.issuer() + ": "), login.getMessage());
    }

    @Test
    void aNamedLoginCacheWithoutALoginForTheEngineIsAnErrorNeverAnotherIdentity() throws Exception {
        Path mistyped = dir.resolve("alcie.json");
        List<String> args = List.of("--engine", engine.url(), "--data", dir.resolve("engine").toString(), "--login-cache",
                mistyped.toString());
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> mpflc(new RunsCommand(), args));
        assertEquals("no login for " + engine.url() + " in " + mistyped + " (no such file): run mpflc login --engine " + engine.url()
                + " --login-cache " + mistyped, e.getMessage());
        // a cache that exists but holds only another engine's login: the same
        Files.writeString(mistyped, "{\"http://elsewhere:1\": {}}");
        java.io.IOException other = assertThrows(java.io.IOException.class, () -> mpflc(new RunsCommand(), args));
        assertTrue(other.getMessage().startsWith("no login for " + engine.url() + " in " + mistyped + ": run mpflc login"),
                other.getMessage());
    }

    @Test
    void aUsersTokenInATokenFileActsAsThatUserAndARefusalOtherThanExpiryDoesNotSendToLogin() throws Exception {
        Result run = mpflc(new RunCommand(), withToken(issuer.token("alice", "operator", "a"), plan().toString(), "--json"));
        assertEquals(0, run.code(), run.err());
        assertEquals(new AccessStore.Ownership("a", "alice"), engine.database().access()
                .runOwner(Json.MAPPER.readTree(run.out()).get("run").asText()).orElseThrow());
        EngineClient.EngineException noRole = assertThrows(EngineClient.EngineException.class, () -> mpflc(new RunsCommand(),
                withToken(issuer.token(b -> b.claim("roles", List.of("offline_access"))))));
        assertEquals("GET /api/runs: the token names no MPFL role in claim 'roles'", noRole.getMessage());
        EngineClient.EngineException expired = assertThrows(EngineClient.EngineException.class, () -> mpflc(new RunsCommand(),
                withToken(issuer.token(b -> b.expirationTime(new java.util.Date(System.currentTimeMillis() - 120_000))))));
        assertTrue(expired.getMessage().contains("the token has expired") && expired.getMessage().contains("(log in again with mpflc login"),
                expired.getMessage());
    }

    @Test
    void projectNamesTheProjectOfARunASweepAndADeployedWorkflow() throws Exception {
        String frank = issuer.token("frank", "operator", "chem", "physics");
        EngineClient.EngineException ask = assertThrows(EngineClient.EngineException.class,
                () -> mpflc(new RunCommand(), withToken(frank, plan().toString())));
        assertTrue(ask.getMessage().contains("one of [chem, physics] (give it with --project P)"), ask.getMessage());
        Result run = mpflc(new RunCommand(), withToken(frank, plan().toString(), "--project", "physics", "--json"));
        assertEquals(0, run.code(), run.err());
        assertEquals("physics", engine.database().access().runOwner(Json.MAPPER.readTree(run.out()).get("run").asText())
                .orElseThrow().project());
        Result sweep = mpflc(new RunCommand(), withToken(frank, plan().toString(), "--project", "chem", "--sweep", "n=1,2", "--json"));
        assertEquals(0, sweep.code(), sweep.err());
        for (JsonNode o : Json.MAPPER.readTree(sweep.out())) {
            assertEquals("chem", engine.database().access().runOwner(o.get("run").asText()).orElseThrow().project(), o.toString());
        }
        Result deploy = mpflc(new DeployCommand(), withToken(issuer.token("root", "admin"), plan().toString(), "--project", "physics"));
        assertEquals(0, deploy.code(), deploy.err());
        assertEquals("physics", engine.database().access().workflowOwner("ring").orElseThrow().project());
        assertThrows(org.mpfl.ir.cli.UsageException.class, () -> mpflc(new RunCommand(),
                List.of(plan().toString(), "--local", "--project", "physics")));
    }

    @Test
    void anOperatorSendingServiceArchivesIsToldWhatNeedsAnAdminAndWhatToDo() throws Exception {
        Path compiled = Files.createDirectories(dir.resolve("compiled"));
        Files.copy(plan(), compiled.resolve("ring.json"));
        Files.write(compiled.resolve("ring.aar"), new byte[] {'P', 'K', 5, 6});
        String alice = issuer.token("alice", "operator", "a");
        for (org.mpfl.ir.cli.CliCommand c : List.of(new RunCommand(), new DeployCommand())) {
            EngineClient.EngineException e = assertThrows(EngineClient.EngineException.class, () -> mpflc(c, withToken(alice,
                    compiled.toString())));
            assertEquals(403, e.status());
            assertTrue(e.getMessage().contains("sending service archives (code for the hosts) needs the admin role; alice is operator"
                    + " (an admin deploys the workflow into the project: mpflc deploy FILE --project P; then mpflc run NAME"),
                    e.getMessage());
        }
    }
}
