package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
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
import org.mpfl.engine.access.OidcSettings;
import org.mpfl.engine.access.TestIssuer;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * A command that outlives its login's access token: {@code mpflc run} follows a run longer than the token it started
 * with is valid (a real issuer's, {@link TestIssuer}, of a few seconds; the engine allows no clock skew here). The
 * command must renew the token from its login as it goes, not stop with "the token has expired … log in again" while
 * the login itself is fine.
 */
@Timeout(180)
class ExpiringLoginTest {
    @TempDir
    Path dir;
    TestIssuer issuer;
    Engine engine;
    final CountDownLatch release = new CountDownLatch(1);
    Path cache;

    @BeforeEach
    void start() throws Exception {
        issuer = TestIssuer.start().publicClient("mpfl-cli").accessTokenSeconds(3)
                .serviceAccount("robot", "s3cret-of-robot", "robot", "operator", "a");
        OidcSettings d = OidcSettings.of(issuer.issuer(), "mpfl-engine");
        engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir.resolve("engine"))
                .token("admin").oidc(new OidcSettings(d.issuer(), d.audience(), d.algorithm(), d.userClaim(), d.rolesClaim(),
                        d.rolePrefix(), d.projectsClaim(), Duration.ZERO, d.jwksRefetchMin(), "mpfl-cli"))
                .invoker(new FakeRanks(r -> {
                    r.state("RUNNING");
                    assertTrue(release.await(120, TimeUnit.SECONDS), "released");
                    r.output("x", r.rank());
                    r.state("DONE");
                })));
        HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
        cache = dir.resolve("login.json");
    }

    @AfterEach
    void stop() {
        release.countDown();
        engine.close();
        issuer.close();
    }

    private static String mpflc(org.mpfl.ir.cli.CliCommand c, List<String> args, ByteArrayOutputStream err) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = c.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    /** {@code mpflc login} as service account robot (its secret in {@code robot.secret}), then {@code mpflc run} following. */
    private Future<String> loginAndFollowARun(ExecutorService pool, ByteArrayOutputStream err) throws Exception {
        Path secret = dir.resolve("robot.secret");
        Files.writeString(secret, "s3cret-of-robot\n");
        List<String> engineArgs = List.of("--engine", engine.url(), "--login-cache", cache.toString());
        List<String> login = new java.util.ArrayList<>(List.of("--client-id", "robot", "--client-secret-file", secret.toString()));
        login.addAll(engineArgs);
        mpflc(new LoginCommand(), login, new ByteArrayOutputStream());

        Path plan = dir.resolve("ring.json");
        Files.writeString(plan, Json.write(Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "ranks", 1)))));
        List<String> run = new java.util.ArrayList<>(List.of(plan.toString(), "--json"));
        run.addAll(engineArgs);
        return pool.submit(() -> mpflc(new RunCommand(), run, err));
    }

    /** The id of the run once it runs. */
    private String running() throws Exception {
        return Await.until(Duration.ofSeconds(60), "the run started", () -> {
            var runs = Http.send("GET", engine.url() + "/api/runs", "Bearer admin", null).json();
            return runs.size() == 1 && runs.get(0).path("state").asText().equals("RUNNING") ? runs.get(0).get("id").asText() : null;
        }, id -> id != null);
    }

    @Test
    void aRunFollowedLongerThanItsAccessTokenLivesRenewsTheTokenFromTheLogin() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Future<String> following = loginAndFollowARun(pool, err);
            // the run is under way, submitted with the token the command started with (the newest in the cache)
            String started = running();
            String token = Json.MAPPER.readTree(Files.readString(cache)).get(engine.url()).get("accessToken").asText();
            // until the engine refuses that token: the command goes on following beyond it
            Await.until(Duration.ofSeconds(60), "the command's first token expired", () -> Http.send("GET", engine.url() + "/api/runs",
                    "Bearer " + token, null).status() == 401);
            release.countDown();
            String out = following.get(120, TimeUnit.SECONDS);
            assertEquals(started, Json.MAPPER.readTree(out).get("run").asText(), out);
            assertEquals("SUCCEEDED", Json.MAPPER.readTree(out).get("state").asText(), out);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The login ends while the command follows (the service account's secret changed, as a revocation at the issuer):
     * the command stops at once saying to log in again, not "the engine does not answer" for minutes.
     */
    @Test
    void aLoginThatEndsWhileARunIsFollowedStopsTheCommandSayingToLogInAgain() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Future<String> following = loginAndFollowARun(pool, err);
            running();
            Files.writeString(dir.resolve("robot.secret"), "revoked\n");
            java.util.concurrent.ExecutionException stopped = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> following.get(120, TimeUnit.SECONDS));
            String said = stopped.getCause().getMessage();
            assertTrue(said.contains("cannot be refreshed") && said.endsWith("run mpflc login again"), said);
            assertFalse(err.toString(StandardCharsets.UTF_8).contains("does not answer"), err.toString(StandardCharsets.UTF_8));
        } finally {
            pool.shutdownNow();
        }
    }
}
