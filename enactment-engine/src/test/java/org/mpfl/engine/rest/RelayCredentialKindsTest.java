package org.mpfl.engine.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.relay.RelayServer;
import org.mpfl.protocol.relay.RelayWire;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * Credentials have a kind (over HTTP against a real engine, a real relay in this JVM for the engine to watch): a
 * host's credential neither announces a relay nor asks the engine about proofs (it would make the engine an oracle
 * for anyone holding one), a relay's announces no host, and the engine answers a relay's check only about hosts'
 * credentials, with the addresses the registry knows for that host (what the relay lets it register).
 */
@Timeout(60)
class RelayCredentialKindsTest {
    @TempDir
    Path dir;

    @Test
    void aHostsCredentialIsNoRelaysAndARelaysIsNoHosts() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(new FakeRanks(r -> { })))) {
            HostCredential host = engine.issueHostCredential("h1");
            HostCredential relay = engine.issueRelayCredential("r1");
            String relays = engine.url() + "/api/registry/relays";
            Http.Answer asRelay = Http.send("POST", relays, host.authorization(), Map.of("address", "127.0.0.1:9"));
            assertEquals(409, asRelay.status(), asRelay.body());
            assertTrue(asRelay.body().contains("'h1' holds a host's credential: a relay needs a relay credential"), asRelay.body());
            assertEquals(java.util.Optional.of(EngineRefusal.CREDENTIAL_KIND.value()), asRelay.header(EngineRefusal.HEADER));
            Http.Answer oracle = Http.send("POST", relays + "/verify", host.authorization(),
                    Map.of("hostId", "h1", "nonce", "n", "proof", RelayWire.hostProof(host.engineKey(), "register", "h1", "n", "h1")));
            assertEquals(409, oracle.status(), "a host's credential asks the engine about no proof: " + oracle.body());
            assertFalse(engine.registry().relays().isRelay("h1"));

            Http.Answer asHost = Http.send("POST", engine.url() + "/api/registry/hosts", relay.authorization(),
                    Map.of("soapUrl", "http://127.0.0.1:1/s", "services", List.of("x")));
            assertEquals(409, asHost.status(), asHost.body());
            assertTrue(asHost.body().contains("'r1' holds a relay's credential: a host needs a host credential"), asHost.body());
            // the engine's own word, on which alone a host stops (a proxy's 409 carries no mark)
            assertEquals(java.util.Optional.of(EngineRefusal.CREDENTIAL_KIND.value()), asHost.header(EngineRefusal.HEADER));
            assertTrue(engine.registry().hosts().isEmpty(), engine.registry().hosts().toString());

            JsonNode listed = Http.send("GET", engine.url() + "/api/registry/credentials", "Bearer " + engine.token(), null).json();
            assertEquals("host", listed.path(0).path("kind").asText(), listed.toString());
            assertEquals("relay", listed.path(1).path("kind").asText(), listed.toString());
            Http.Answer bogus = Http.send("POST", engine.url() + "/api/registry/credentials", "Bearer " + engine.token(),
                    Map.of("hostId", "x", "kind", "admin"));
            assertEquals(400, bogus.status(), bogus.body());
        }
    }

    /** {@code mpflc relay} started with a host's credential says so on one line, in the engine's words, not its JSON. */
    @Test
    void aRelayGivenAHostsCredentialSaysSoOnOneLine() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(new FakeRanks(r -> { })))) {
            HostCredential host = engine.issueHostCredential("h1");
            Path file = dir.resolve("h1.credential");
            java.nio.file.Files.writeString(file, host.text());
            java.nio.file.Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            int exit = org.mpfl.ir.cli.Commands.run(List.of("relay", "--credential-file", file.toString(), "--bind", "127.0.0.1",
                    "--port", "0"), new java.io.PrintStream(java.io.OutputStream.nullOutputStream()),
                    new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
            String said = err.toString(java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(1, exit, said);
            assertEquals("mpflc relay: the engine at " + engine.url() + " refuses this relay's credential: 'h1' holds a host's"
                    + " credential: a relay needs a relay credential (mpflc host-token --relay --host-id NAME); stopping\n", said);
        }
    }

    @Test
    void aRelayLearnsOnlyOfHostsProofsAndTheAddressesTheHostAnnounced() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(new FakeRanks(r -> { })))) {
            HostCredential a = engine.issueHostCredential("a");
            HostCredential relay = engine.issueRelayCredential("r1");
            HostCredential other = engine.issueRelayCredential("r2");
            // a relay the engine can watch (it proves itself with r1's engine key), so r1 stays announced
            try (RelayServer server = new RelayServer("r1", relay.engineKey(), TlsSettings.NONE, (o, h, n, p) -> RelayServer.Verdict.REFUSED,
                    RelayServer.Limits.DEFAULT, "127.0.0.1", 0)) {
                // a is reached through r1: the only relay where the engine lets it register
                assertEquals(201, Http.send("POST", engine.url() + "/api/registry/hosts", a.authorization(), Map.of("soapUrl",
                        "http://127.0.0.1:4101/axis2/services", "binaryAddress", "127.0.0.1:4102", "services", List.of("x"),
                        "relay", "127.0.0.1:" + server.port())).status());
                String relays = engine.url() + "/api/registry/relays";
                assertEquals(201, Http.send("POST", relays, relay.authorization(), Map.of("address", "127.0.0.1:" + server.port()))
                        .status());
                Await.until(Duration.ofSeconds(20), "r1 announced", () -> engine.registry().relays().isRelay("r1"));

                JsonNode valid = verify(engine, relay, "a", RelayWire.hostProof(a.engineKey(), "register", "r1", "nonce-1", "a"));
                assertTrue(valid.path("valid").asBoolean(), valid.toString());
                List<String> addresses = new java.util.ArrayList<>();
                valid.path("addresses").forEach(n -> addresses.add(n.asText()));
                assertTrue(addresses.contains("127.0.0.1:4101") && addresses.contains("127.0.0.1:4102"), addresses.toString());
                // what the relay asks about again while a is registered there (POST /api/registry/relays/check)
                assertEquals(a.id(), valid.path("credential").asText(), valid.toString());

                JsonNode forged = verify(engine, relay, "a", RelayWire.hostProof(a.engineKey(), "register", "r1", "another-nonce", "a"));
                assertEquals("{\"valid\":false,\"addresses\":[]}", forged.toString(), "nothing about a for a proof not its own");
                // the proof a host gives when it dials (at any relay, to whatever listens where a peer's relay is said to
                // be) does not register it
                JsonNode dialProof = verify(engine, relay, "a", RelayWire.hostProof(a.engineKey(), "dial", "r1", "nonce-1", "a"));
                assertEquals("{\"valid\":false,\"addresses\":[]}", dialProof.toString(), "a dial's proof registers nobody");
                // another relay's credential proves no host, with its own key however right the proof
                JsonNode relayAsHost = verify(engine, relay, "r2", RelayWire.hostProof(other.engineKey(), "register", "r1", "nonce-1", "r2"));
                assertFalse(relayAsHost.path("valid").asBoolean(), relayAsHost.toString());
            }
        }
    }

    private static JsonNode verify(Engine engine, HostCredential relay, String hostId, String proof) throws Exception {
        Http.Answer a = Http.send("POST", engine.url() + "/api/registry/relays/verify", relay.authorization(),
                Map.of("hostId", hostId, "nonce", "nonce-1", "proof", proof));
        assertEquals(200, a.status(), a.body());
        return a.json();
    }
}
