package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.testing.Http;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.Await;

/**
 * The engine → host credentials under attack, with a real engine and real host processes over HTTP: a
 * rogue host enrolled with a valid credential of its own (a tiny HTTP server in this test, placed in
 * a run and sent a deployment) learns nothing that a real host accepts for deploy or {@code run} —
 * every request it captured is replayed against the real host and refused — and never sees the admin
 * token; and no host process that MPFL starts has a secret on its command line.
 */
@Timeout(180)
@StartsProcesses
class HostCredentialsAttackTest {
    static Path data;
    static LocalCluster cluster;
    static HttpServer rogue;
    static final List<Captured> CAPTURED = new CopyOnWriteArrayList<>();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One request the rogue host received. */
    record Captured(String method, String path, String authorization, String contentType, byte[] body) {
        String text() {
            return method + " " + path + "\n" + authorization + "\n" + contentType + "\n" + new String(body, StandardCharsets.UTF_8);
        }
    }

    @BeforeAll
    static void start() throws Exception {
        data = Files.createTempDirectory("mpfl-cred-attack-");
        cluster = LocalCluster.start(new EngineConfig().port(0).dataDir(data)
                        .runSettings(new RunSettings(Duration.ofSeconds(10), Duration.ofSeconds(3), Duration.ofMillis(300), 2, "auto")),
                1, List.of("ring=" + RingProgram.class.getName()), Duration.ofSeconds(120));
        rogue = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        rogue.createContext("/", ex -> {
            byte[] body = ex.getRequestBody().readAllBytes();
            CAPTURED.add(new Captured(ex.getRequestMethod(), ex.getRequestURI().toString(),
                    ex.getRequestHeaders().getFirst("Authorization"), ex.getRequestHeaders().getFirst("Content-Type"), body));
            byte[] answer = "no".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(500, answer.length);
            ex.getResponseBody().write(answer);
            ex.close();
        });
        rogue.start();
    }

    @AfterAll
    static void stop() {
        if (rogue != null) {
            rogue.stop(0);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    static HostInfo realHost() {
        return cluster.engine().registry().hosts().stream().filter(h -> !h.hostId().equals("a-rogue")).findFirst().orElseThrow();
    }

    @Test
    void aRogueHostWithAValidCredentialLearnsNothingThatWorksElsewhere() throws Exception {
        var engine = cluster.engine();
        HostInfo real = realHost();
        // the rogue enrols with a credential of its own (e.g. stolen from an enrolment file) and announces
        // a large capacity under a host id that placement takes first
        HostCredential rogueCredential = engine.issueHostCredential("a-rogue");
        String base = "http://127.0.0.1:" + rogue.getAddress().getPort() + "/axis2/services";
        Http.Answer announced = Http.send("POST", engine.url() + "/api/registry/hosts", rogueCredential.authorization(),
                Map.of("soapUrl", base, "services", List.of("ring"), "capacity", 1, "deployUrl", base + "/mpfl-deploy"));
        assertEquals(201, announced.status(), announced.body());

        // a deployment goes to every live host, the rogue included
        Http.post(engine.url() + "/api/deployments", engine.token(), Map.of("service", "probe",
                "archive", Base64.getEncoder().encodeToString("not an archive".getBytes(StandardCharsets.UTF_8))));
        // a run places rank 0 on the rogue (first by id) and rank 1 on the real host
        Http.Answer run = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "ring",
                "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", 2)))));
        assertEquals(201, run.status(), run.body());
        Await.until(Duration.ofSeconds(60), () -> "the rogue got a deploy and a run; captured " + CAPTURED.size(),
                () -> CAPTURED.stream().anyMatch(c -> isRun(c)) && CAPTURED.stream().anyMatch(c -> c.path().contains("mpfl-deploy")),
                Boolean.TRUE::equals);

        String realKey = engine.credentials().forHost(real.hostId()).orElseThrow().engineKey();
        for (Captured c : CAPTURED) {
            assertNotNull(c.authorization(), "the engine calls hosts with their key: " + c.text());
            assertFalse(c.text().contains(engine.token()), "the admin token reached the rogue host: " + c.text());
            assertFalse(c.text().contains(realKey), "the real host's key reached the rogue host");
            assertEquals(HostCredential.engineAuthorization(rogueCredential.engineKey()), c.authorization(),
                    "the rogue gets its own key only");
        }

        // replay everything captured at the real host: deploy and run are refused
        for (Captured c : CAPTURED) {
            HttpResponse<String> deploy = post(real.deployUrl() + "?service=Evil", c.authorization(), "application/octet-stream",
                    "x".getBytes(StandardCharsets.UTF_8));
            assertEquals(403, deploy.statusCode(), deploy.body());
            if (isRun(c)) {
                HttpResponse<String> replayed = post(real.serviceUrl("ring"), c.authorization(), c.contentType(), c.body());
                assertNotEquals(2, replayed.statusCode() / 100, replayed.body());
                assertTrue(replayed.body().contains("run refused"), replayed.body());
            }
            // nor does it make the engine take it for the real host
            assertEquals(401, Http.send("POST", engine.url() + "/api/registry/hosts/" + real.hostId() + "/heartbeat",
                    c.authorization(), "").status());
        }
        // control: the same deploy with the real host's own key passes authorisation (the bytes are no archive)
        assertEquals(400, post(real.deployUrl() + "?service=Evil", HostCredential.engineAuthorization(realKey),
                "application/octet-stream", "x".getBytes(StandardCharsets.UTF_8)).statusCode());
        // and a run without any key, from this machine, is refused too: the host has an engine
        HttpResponse<String> bare = post(real.serviceUrl("ring"), null, CAPTURED.stream().filter(HostCredentialsAttackTest::isRun)
                .findFirst().orElseThrow().contentType(), CAPTURED.stream().filter(HostCredentialsAttackTest::isRun)
                .findFirst().orElseThrow().body());
        assertTrue(bare.body().contains("run refused"), bare.body());

        // the rogue is revoked: it leaves the registry and is refused from then on
        String rogueCredentialId = rogueCredential.id();
        assertEquals(204, Http.send("DELETE", engine.url() + "/api/registry/credentials/" + rogueCredentialId,
                "Bearer " + engine.token(), null).status());
        assertTrue(engine.registry().host("a-rogue").isEmpty());
        assertEquals(401, Http.send("POST", engine.url() + "/api/registry/hosts", rogueCredential.authorization(),
                Map.of("soapUrl", base)).status());
        assertTrue(engine.registry().host("a-rogue").isEmpty());
    }

    @Test
    void noHostProcessHasASecretOnItsCommandLine() throws Exception {
        assertFalse(cluster.hostProcesses().isEmpty());
        // a local host gets its credential on standard input (never in argv or the environment): how its
        // text, and so its one-line form, begins
        String textStart = "# MPFL host credential";
        String lineStart = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                textStart.substring(0, 21).getBytes(StandardCharsets.US_ASCII));
        for (Process p : cluster.hostProcesses()) {
            String cmdline = Files.readString(Path.of("/proc/" + p.pid() + "/cmdline"), StandardCharsets.UTF_8).replace('\0', ' ');
            String environ = Files.readString(Path.of("/proc/" + p.pid() + "/environ"), StandardCharsets.UTF_8);
            java.util.regex.Matcher id = java.util.regex.Pattern.compile("--host-id (\\S+)").matcher(cmdline);
            assertTrue(id.find(), cmdline);
            String engineKey = cluster.engine().credentials().forHost(id.group(1)).orElseThrow().engineKey();
            for (String text : java.util.List.of(cmdline, environ)) {
                assertFalse(text.contains(HostCredential.ENV) || text.contains("secret=") || text.contains(textStart)
                        || text.contains(lineStart), "a credential in a host's argv or environment: " + text);
                assertFalse(text.contains(engineKey), "the host's key in its argv or environment");
                assertFalse(text.contains(cluster.engine().token()), "the admin token was handed to a host");
            }
        }
    }

    static boolean isRun(Captured c) {
        return c.contentType() != null && c.contentType().contains(MpiwsNames.action(MpiwsNames.OP_RUN));
    }

    static HttpResponse<String> post(String url, String authorization, String contentType, byte[] body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
