package org.mpfl.engine.e2e;

import org.mpfl.ir.cli.Commands;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.cli.EngineClient;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.testing.LabPki;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.Await;
import org.mpfl.engine.HostCalls;

/**
 * An engine and two service-host processes with TLS from a lab CA (as {@code mpflc up} with the
 * {@code --tls-*} flags starts them): a ring runs with every call over TLS — REST, deploy, run and
 * rank events over https, and the ranks' messages between the hosts over the binary channel (forced
 * for this cluster's runs, so no message could have taken SOAP), which runs inside TLS. The attacks: plaintext HTTP to the engine's port, a
 * client that does not trust the lab CA, and a host whose certificate another CA signed, which
 * can neither join (it does not trust the engine) nor be served by the engine (the engine does not
 * trust it).
 */
@Timeout(300)
@StartsProcesses
class TlsClusterTest {
    static Path dir;
    static LabPki lab;
    static LabPki.Machine machine;
    static LocalCluster cluster;
    static EngineClient client;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("mpfl-tls-");
        lab = LabPki.create(dir.resolve("lab"), "lab");
        machine = lab.issue("engine-machine", "127.0.0.1");
        EngineConfig config = new EngineConfig().port(0).dataDir(dir.resolve("data")).tls(machine.settings())
                .heartbeatTimeout(Duration.ofSeconds(5))
                .runSettings(new RunSettings(Duration.ofSeconds(20), Duration.ofSeconds(3), Duration.ofMillis(500), 2, "binary"));
        cluster = LocalCluster.start(config, 2, List.of("ring=" + RingProgram.class.getName()), Duration.ofSeconds(90));
        client = new EngineClient(cluster.engine().url(), cluster.engine().token(),
                TlsSettings.fromOptions(Map.of(TlsSettings.CA, machine.caPem().toString()), n -> null));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void ringRunsOverHttpsEverywhere() throws Exception {
        assertTrue(cluster.engine().url().startsWith("https://127.0.0.1:"), cluster.engine().url());
        JsonNode hosts = client.get("/api/registry/hosts");
        assertEquals(2, hosts.size(), hosts.toString());
        hosts.forEach(h -> assertTrue(h.toString().contains("https://127.0.0.1:"), "host advertises https: " + h));
        // TLS no longer turns the binary channel off: `mpflc up` starts TLS hosts with it
        hosts.forEach(h -> assertTrue(h.path("binaryAddress").asText("").startsWith("127.0.0.1:"), "binary address: " + h));
        JsonNode started = client.post("/api/runs", Map.of("params", Map.of("rounds", 3),
                "plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", 4)))));
        String id = started.get("id").asText();
        JsonNode d = awaitEnd(id, 90_000);
        assertEquals("SUCCEEDED", d.get("state").asText(), d.toString());
        assertEquals(12, d.at("/outputs/token/0").asLong());
        Set<String> used = new java.util.HashSet<>();
        d.get("ranks").forEach(r -> used.add(r.get("host").asText()));
        assertEquals(2, used.size(), "ranks on both hosts, so messages crossed between them: " + d);
    }

    @Test
    void plaintextHttpToTheEnginePortGetsNoHttpAnswer() throws IOException {
        URI u = URI.create(cluster.engine().url());
        LabPki.assertNoHttpAnswer(u.getHost(), u.getPort());
    }

    @Test
    void aClientThatDoesNotTrustTheLabCaIsRefused() throws Exception {
        LabPki.Machine other = LabPki.create(dir.resolve("other-client"), "other").issue("client", "127.0.0.1");
        for (TlsSettings untrusting : List.of(TlsSettings.NONE, other.settings())) {
            EngineClient c = new EngineClient(cluster.engine().url(), cluster.engine().token(), untrusting);
            IOException e = assertThrows(IOException.class, () -> c.get("/api/registry/hosts"));
            assertTrue(e.getMessage().contains("the engine's certificate is not trusted here: give the CA that signed it with --tls-ca"), e.getMessage());
        }
    }

    /** The enrolment step of a TLS deployment: {@code mpflc host-token} trusts the engine through {@code --tls-ca}. */
    @Test
    void aHostCredentialIsIssuedOverHttpsOnlyWithTheLabCa() throws Exception {
        String engine = cluster.engine().url();
        String data = dir.resolve("data").toString();
        Path untrusted = dir.resolve("untrusted.credential");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(1, mpflc(err, "host-token", "--engine", engine, "--data", data, "--host-id", "node9", "-o", untrusted.toString()),
                err.toString(StandardCharsets.UTF_8));
        String refusal = err.toString(StandardCharsets.UTF_8);
        assertTrue(refusal.contains("the engine's certificate is not trusted here: give the CA that signed it with --tls-ca"), refusal);
        assertFalse(Files.exists(untrusted));

        Path file = dir.resolve("node9.credential");
        err.reset();
        assertEquals(0, mpflc(err, "host-token", "--engine", engine, "--data", data, "--host-id", "node9", "-o", file.toString(),
                "--tls-ca", machine.caPem().toString()), err.toString(StandardCharsets.UTF_8));
        HostCredential c = HostCredential.read(file);
        assertEquals("node9", c.hostId());
        assertEquals(engine, c.engineUrl());
    }

    static int mpflc(ByteArrayOutputStream err, String... args) {
        return Commands.run(List.of(args), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void aHostWithACertificateFromAnotherCaCannotJoinNorServe() throws Exception {
        LabPki.Machine rogue = LabPki.create(dir.resolve("rogue"), "rogue").issue("rogue-host", "127.0.0.1");
        int before = cluster.engine().registry().hosts().size();
        Path logs = Files.createDirectories(dir.resolve("rogue-logs"));
        HostProcesses.Builder b = HostProcesses.builder().count(1).logDirectory(logs).service("ring", RingProgram.class)
                .hostArg("--no-binary").hostArg("--host-id").hostArg("rogue").hostArg("--engine").hostArg(cluster.engine().url())
                // a valid credential: only the certificate from another CA keeps it out
                .environment(HostCredential.ENV, HostCalls.credential(cluster.engine(), "rogue").text());
        rogue.pemArguments().forEach(b::hostArg);
        try (HostProcesses hosts = b.start()) {
            // it does not trust the engine's certificate: its announcement fails (its log says so) and never arrives
            Path rogueLog = hosts.get(0).log();
            Await.until(Duration.ofSeconds(60), "the rogue host's announcement to the engine failed",
                    () -> Files.readString(rogueLog).contains("cannot reach the engine at ")
                            || Files.readString(rogueLog).contains("engine refused the announcement"));
            assertFalse(cluster.engine().registry().hosts().stream().anyMatch(h -> h.hostId().equals("rogue")),
                    "a host from another CA joined the registry");
            assertEquals(before, cluster.engine().registry().hosts().size());
            assertTrue(Files.readString(hosts.get(0).log()).contains("PKIX")
                    || Files.readString(hosts.get(0).log()).toLowerCase().contains("certificate"),
                    "the rogue host's log says why it cannot announce: " + Files.readString(hosts.get(0).log()));
            // and the engine's clients (same TLS settings as the engine's deployer and invoker) refuse it
            org.mpfl.protocol.MpiwsClient engineSide = new org.mpfl.protocol.MpiwsClient(Duration.ofSeconds(10), machine.settings());
            String url = hosts.get(0).serviceUrl("ring");
            assertThrows(org.mpfl.protocol.MpiwsClient.MpiwsCallException.class, () -> engineSide.wsdl(url));
        }
    }

    static JsonNode awaitEnd(String id, long ms) throws Exception {
        return Await.runEnds(Duration.ofMillis(ms), () -> client.get("/api/runs/" + id));
    }
}
