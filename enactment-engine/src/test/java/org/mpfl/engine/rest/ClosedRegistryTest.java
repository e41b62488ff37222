package org.mpfl.engine.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.testing.Http;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.engine.store.HostCredentialStore;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.HostCredential;
import org.mpfl.testing.Await;
import java.time.Duration;
import org.mpfl.engine.HostCalls;

/**
 * The registry is closed (over HTTP against a real engine): announce, heartbeat and leave need the
 * host's own credential, a host speaks only for itself, a revoked credential is refused, credentials
 * survive a restart with only their verifier stored; and a server database is configured by JDBC URL.
 */
@Timeout(60)
class ClosedRegistryTest {
    @TempDir
    Path dir;

    static final Map<String, Object> HOST_A = Map.of("hostId", "a", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("x"),
            "capacity", 1000);

    @Test
    void announceHeartbeatAndLeaveWithoutAValidCredentialChangeNothing() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(new FakeRanks(r -> { })))) {
            String hosts = engine.url() + "/api/registry/hosts";
            HostCredential a = engine.issueHostCredential("a");
            HostCredential forged = new HostCredential(null, a.id(), "a", HostCredential.generate(null, "a").secret());
            for (String auth : new String[] {null, "Bearer " + engine.token(), forged.authorization(), "Bearer " + a.secret(),
                    "Bearer " + a.id() + "." + a.secret() + ".x", "Basic " + a.secret(), "Bearer " + a.engineKey()}) {
                Http.Answer r = Http.send("POST", hosts, auth, HOST_A);
                assertEquals(401, r.status(), auth + ": " + r.body());
                assertFalse(r.body().contains(a.secret()), r.body());
                // the engine's own word, on which alone a host stops (a proxy's 401 carries no mark)
                assertEquals(java.util.Optional.of(EngineRefusal.CREDENTIAL_REFUSED.value()), r.header(EngineRefusal.HEADER),
                        String.valueOf(auth));
                Http.Answer beat = Http.send("POST", hosts + "/a/heartbeat", auth, "");
                assertEquals(401, beat.status(), String.valueOf(auth));
                assertEquals(java.util.Optional.of(EngineRefusal.CREDENTIAL_REFUSED.value()), beat.header(EngineRefusal.HEADER),
                        String.valueOf(auth));
            }
            assertTrue(engine.registry().hosts().isEmpty(), "registered: " + engine.registry().hosts());

            assertEquals(201, Http.send("POST", hosts, a.authorization(), HOST_A).status());
            for (String auth : new String[] {null, forged.authorization(), "Bearer nonsense"}) {
                assertEquals(401, Http.send("POST", hosts + "/a/heartbeat", auth, "").status());
                assertEquals(401, Http.send("DELETE", hosts + "/a", auth, null).status());
            }
            assertEquals(1, engine.registry().hosts().size());
            assertEquals(204, Http.send("POST", hosts + "/a/heartbeat", a.authorization(), "").status());
            // a host reads its own entry (mpflc slurm learns so that a node's host enrolled), and no other's
            Http.Answer own = Http.send("GET", hosts + "/a", a.authorization(), null);
            assertEquals(200, own.status(), own.body());
            assertTrue(own.body().contains("\"hostId\":\"a\"") && own.body().contains("\"instance\""), own.body());
            HostCredential b = engine.issueHostCredential("b");
            Http.Answer foreign = Http.send("GET", hosts + "/a", b.authorization(), null);
            assertEquals(403, foreign.status());
            // the engine's word that this credential is another host's: mpflc slurm ends its wait on it
            assertEquals(java.util.Optional.of(EngineRefusal.CREDENTIAL_FOREIGN.value()), foreign.header(EngineRefusal.HEADER));
            // outside the registry, a 401 is no host's business: no mark
            assertEquals(java.util.Optional.empty(), Http.post(engine.url() + "/api/runs", null, Map.of()).header(EngineRefusal.HEADER));
            assertEquals(404, Http.send("GET", hosts + "/b", b.authorization(), null).status(), "b is not registered");
            for (String auth : new String[] {null, forged.authorization(), "Bearer nonsense"}) {
                assertEquals(401, Http.send("GET", hosts + "/a", auth, null).status(), String.valueOf(auth));
            }
            assertEquals(200, Http.send("GET", hosts + "/a", "Bearer " + engine.token(), null).status());
        }
    }

    @Test
    void aHostSpeaksOnlyForItself() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(new FakeRanks(r -> { })))) {
            String hosts = engine.url() + "/api/registry/hosts";
            HostCredential a = engine.issueHostCredential("a");
            HostCredential b = engine.issueHostCredential("b");
            assertEquals(201, Http.send("POST", hosts, a.authorization(), HOST_A).status());
            // b announcing as a, heartbeating for a, removing a: 403, a unchanged
            Map<String, Object> asA = Map.of("hostId", "a", "soapUrl", "http://127.0.0.1:2/evil", "services", List.of("x"));
            Http.Answer r = Http.send("POST", hosts, b.authorization(), asA);
            assertEquals(403, r.status(), r.body());
            Http.Answer beat = Http.send("POST", hosts + "/a/heartbeat", b.authorization(), "");
            Http.Answer leave = Http.send("DELETE", hosts + "/a", b.authorization(), null);
            for (Http.Answer refused : List.of(r, beat, leave)) {
                assertEquals(403, refused.status(), refused.body());
                assertEquals(java.util.Optional.of(EngineRefusal.CREDENTIAL_FOREIGN.value()), refused.header(EngineRefusal.HEADER));
            }
            assertEquals(List.of("a"), engine.registry().hosts().stream().map(h -> h.hostId()).toList());
            assertEquals("http://127.0.0.1:1/s", engine.registry().host("a").orElseThrow().soapUrl());
            // without a hostId the announcement is the credential's host
            assertEquals(201, Http.send("POST", hosts, b.authorization(), Map.of("soapUrl", "http://127.0.0.1:3/s")).status());
            assertEquals(List.of("a", "b"), engine.registry().hosts().stream().map(h -> h.hostId()).toList());
            // a leaves by itself; the admin may remove any host
            assertEquals(204, Http.send("DELETE", hosts + "/a", a.authorization(), null).status());
            assertEquals(204, Http.send("DELETE", hosts + "/b", "Bearer " + engine.token(), null).status());
            assertTrue(engine.registry().hosts().isEmpty());
            // a host that is not registered (gone already, or a mistyped id) is a 404 as for GET: it was a 204, "removed"
            for (String[] gone : List.of(new String[] {"/a", a.authorization()}, new String[] {"/nope", "Bearer " + engine.token()})) {
                Http.Answer again = Http.send("DELETE", hosts + gone[0], gone[1], null);
                assertEquals(404, again.status(), gone[0] + ": " + again.body());
                assertEquals("host '" + gone[0].substring(1) + "' is not registered", again.json().get("error").asText());
            }
        }
    }

    @Test
    void credentialsAreIssuedAndRevokedByTheAdminOnlyAndSurviveARestart() throws Exception {
        String creds;
        HostCredential a;
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).token("admin-token")
                .invoker(new FakeRanks(r -> { })))) {
            creds = engine.url() + "/api/registry/credentials";
            assertEquals(401, Http.send("POST", creds, null, Map.of("hostId", "x")).status());
            HostCredential other = engine.issueHostCredential("other");
            assertEquals(401, Http.send("POST", creds, other.authorization(), Map.of("hostId", "x")).status(),
                    "a host credential is not the admin token");
            assertEquals(401, Http.send("GET", creds, null, null).status());
            assertEquals(401, Http.send("DELETE", creds + "/" + other.id(), other.authorization(), null).status());

            Http.Answer issued = Http.post(creds, "admin-token", Map.of("hostId", "a"));
            assertEquals(201, issued.status(), issued.body());
            a = HostCredential.parse(issued.json().get("credential").asText(), "answer");
            assertEquals("a", a.hostId());
            assertEquals(engine.url(), a.engineUrl());
            assertEquals(409, Http.post(creds, "admin-token", Map.of("hostId", "a")).status(), "one credential per host id");
            Http.Answer list = Http.send("GET", creds, "Bearer admin-token", null);
            assertEquals(200, list.status());
            assertFalse(list.body().contains(a.secret()), "the list shows a secret: " + list.body());
            // only the verifier and the derived key are stored, never the secret
            for (HostCredentialStore.StoredCredential c : engine.database().credentials().all()) {
                assertFalse(c.verifier().equals(a.secret()) || c.engineKey().equals(a.secret()) || c.toString().contains(a.secret()));
            }
        }
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).token("admin-token")
                .invoker(new FakeRanks(r -> { })))) {
            String hosts = engine.url() + "/api/registry/hosts";
            creds = engine.url() + "/api/registry/credentials";
            assertEquals(201, Http.send("POST", hosts, a.authorization(), HOST_A).status(), "the credential survived the restart");
            assertEquals(HostCredential.engineAuthorization(a.engineKey()), engine.credentials().engineAuthorization("a"));

            assertEquals(204, Http.send("DELETE", creds + "/" + a.id(), "Bearer admin-token", null).status());
            assertTrue(engine.registry().hosts().isEmpty(), "a revoked host leaves the registry");
            assertEquals(401, Http.send("POST", hosts + "/a/heartbeat", a.authorization(), "").status());
            assertEquals(401, Http.send("POST", hosts, a.authorization(), HOST_A).status());
            assertTrue(engine.registry().hosts().isEmpty());
            assertEquals(null, engine.credentials().engineAuthorization("a"), "no key for a revoked host");
            assertEquals(404, Http.send("DELETE", creds + "/" + a.id(), "Bearer admin-token", null).status());
        }
    }

    @Test
    void runStoreByJdbcUrl() throws Exception {
        String jdbc = "jdbc:h2:file:" + dir.resolve("server-db").toAbsolutePath();
        String id;
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir.resolve("a")).jdbc(jdbc, "sa", "")
                .invoker(new FakeRanks(r -> r.state("DONE"))))) {
            HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s",
                    "services", List.of("w")));
            id = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", Map.of("workflow", "w",
                    "processes", List.of(Map.of("name", "w", "ranks", 1))))).json().get("id").asText();
            String run = id;
            Await.runIn(Duration.ofSeconds(30), "SUCCEEDED", () -> Http.get(engine.url() + "/api/runs/" + run).json());
        }
        // another engine with another data directory but the same database sees the run
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir.resolve("b")).jdbc(jdbc, "sa", "")
                .invoker(new FakeRanks(r -> { })))) {
            assertEquals("SUCCEEDED", Http.get(engine.url() + "/api/runs/" + id).json().get("state").asText());
        }
    }
}
