package org.mpfl.engine.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.store.EngineDatabase;
import org.mpfl.testing.Http;
import org.mpfl.engine.run.FakeRanks;

/**
 * A scripted session against a real engine and issuer: the audit trail lists each mutation exactly
 * once — who, from where, what, with which result, refusals of authenticated callers included — and
 * nothing else (no read, no heartbeat, no stranger's refused request); it contains no secret: not
 * the admin token, not a token of a user, not the secret of the host credential issued in the session.
 */
@Timeout(120)
class AuditTrailTest {
    @TempDir
    Path dir;

    @Test
    void aScriptedSessionListsEachMutationOnceAndNoSecret() throws Exception {
        try (TestIssuer issuer = TestIssuer.start();
             Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).token("the-admin-token")
                     .oidc(OidcSettings.of(issuer.issuer(), "mpfl-engine")).invoker(new FakeRanks(r -> {
                         Thread.sleep(60_000); // runs stay RUNNING until cancelled
                     })))) {
            String url = engine.url();
            String alice = issuer.token("alice", "operator", "a");
            String bob = issuer.token("bob", "operator", "b");
            String root = issuer.token("root", "admin");
            Map<String, Object> plan = Map.of("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "ranks", 1))));

            Http.Answer issued = Http.post(url + "/api/registry/credentials", "the-admin-token", Map.of("hostId", "h"));
            assertEquals(201, issued.status());
            String hostSecret = issued.json().get("secret").asText();
            String hostAuth = "Bearer " + issued.json().get("id").asText() + "." + hostSecret;
            assertEquals(201, Http.send("POST", url + "/api/registry/hosts", hostAuth,
                    Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring"))).status());
            assertEquals(204, Http.send("POST", url + "/api/registry/hosts/h/heartbeat", hostAuth, "").status());
            String run = Http.post(url + "/api/runs", alice, plan).json().get("id").asText();
            assertEquals(404, Http.post(url + "/api/runs/" + run + "/cancel", bob, Map.of()).status());
            assertEquals(200, Http.post(url + "/api/runs/" + run + "/cancel", alice, Map.of()).status());
            assertEquals(201, Http.post(url + "/api/workflows", alice, Map.of("name", "w", "plan", plan.get("plan"))).status());
            assertEquals(401, Http.post(url + "/api/runs", null, plan).status(), "a stranger");
            assertEquals(401, Http.post(url + "/api/runs", "forged.jwt.value", plan).status(), "a forged token");
            assertEquals(200, Http.send("GET", url + "/api/runs/" + run, "Bearer " + alice, null).status(), "a read");

            engine.audit().flush(Duration.ofSeconds(10));
            Http.Answer trail = Http.send("GET", url + "/api/audit", "Bearer " + root, null);
            assertEquals(200, trail.status(), trail.body());
            List<String> lines = new ArrayList<>();
            for (JsonNode e : trail.json()) {
                assertEquals("127.0.0.1", e.get("source").asText(), e.toString());
                assertTrue(e.get("timeMs").asLong() > 0);
                lines.add(e.get("who").asText() + " " + e.get("action").asText() + " " + e.get("status").asInt());
            }
            List<String> expected = List.of(
                    "admin-token POST /api/registry/credentials 201",
                    "host:h POST /api/registry/hosts 201",
                    "alice POST /api/runs → /api/runs/" + run + " 201",
                    "bob POST /api/runs/" + run + "/cancel 404",
                    "alice POST /api/runs/" + run + "/cancel 200",
                    "alice POST /api/workflows → /api/workflows/w@1 201");
            // each exactly once, nothing else (the order of two answers written in the same instant may vary)
            assertEquals(expected.stream().sorted().toList(), lines.stream().sorted().toList(), String.join("\n", lines));
            for (String secret : List.of("the-admin-token", hostSecret, alice, bob, root)) {
                assertFalse(trail.body().contains(secret), "a secret in the audit trail");
            }
            assertEquals(403, Http.send("GET", url + "/api/audit", "Bearer " + alice, null).status(), "admins only");
            Http.Answer bad = Http.send("GET", url + "/api/audit?after=abc", "Bearer " + root, null);
            assertEquals(400, bad.status(), bad.body());
            assertTrue(bad.body().contains("'after' and 'limit' are entry numbers"), bad.body());
        }
    }

    /**
     * The user's name comes from a claim the user may choose at many issuers (self-registration, an editable profile):
     * a user named {@code admin-token} or {@code host:h} must not be taken for the admin token or a host on the trail,
     * nor as a run's owner; and a name with control characters (a line break, a terminal escape) must not write them
     * into the trail, a run's record or an admin's terminal ({@code mpflc status} prints who started and cancelled a run).
     */
    @Test
    void aUserCannotBeRecordedAsTheAdminTokenAHostOrWithControlCharacters() throws Exception {
        try (TestIssuer issuer = TestIssuer.start();
             Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(org.mpfl.engine.HostCalls.SILENT_HOSTS_TIMEOUT)
                     .dataDir(dir).token("the-admin-token")
                     .oidc(OidcSettings.of(issuer.issuer(), "mpfl-engine")).invoker(new FakeRanks(r -> {
                         r.state("RUNNING");
                         r.awaitAbort(60_000); // runs stay RUNNING until cancelled
                     })))) {
            org.mpfl.engine.HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
            String url = engine.url();
            Map<String, Object> plan = Map.of("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "ranks", 1))));
            Map<String, String> shownAs = new java.util.LinkedHashMap<>();
            shownAs.put("admin-token", "user:admin-token");
            shownAs.put("host:h", "user:host:h");
            shownAs.put("anonymous", "user:anonymous");
            shownAs.put("user:admin-token", "user:user:admin-token");
            shownAs.put("eve\n2026-12-01 root POST /api/registry/credentials 201\u001b[2J\u202e", "eve\\u000a2026-12-01 root POST"
                    + " /api/registry/credentials 201\\u001b[2J\\u202e");
            shownAs.put("alice", "alice");
            // the real host h, which the user named host:h must not be taken for
            List<String> expected = new ArrayList<>(List.of("host:h POST /api/registry/hosts 201"));
            for (Map.Entry<String, String> user : shownAs.entrySet()) {
                String token = issuer.token(b -> b.claim("preferred_username", user.getKey()));
                Http.Answer started = Http.post(url + "/api/runs", token, plan);
                assertEquals(201, started.status(), started.body());
                String run = started.json().get("id").asText();
                assertEquals(200, Http.post(url + "/api/runs/" + run + "/cancel", token, Map.of()).status());
                JsonNode detail = Http.send("GET", url + "/api/runs/" + run, "Bearer " + token, null).json();
                assertEquals(user.getValue(), detail.get("owner").asText(), "the run's owner");
                assertEquals("cancelled by " + user.getValue(), detail.at("/error/message").asText(), "the run's error");
                assertEquals(user.getValue(), Http.send("GET", url + "/api/auth", "Bearer " + token, null).json().get("user").asText());
                expected.add(user.getValue() + " POST /api/runs → /api/runs/" + run + " 201");
                expected.add(user.getValue() + " POST /api/runs/" + run + "/cancel 200");
            }
            engine.audit().flush(Duration.ofSeconds(10));
            List<String> lines = new ArrayList<>();
            Http.send("GET", url + "/api/audit", "Bearer the-admin-token", null).json()
                    .forEach(e -> lines.add(e.get("who").asText() + " " + e.get("action").asText() + " " + e.get("status").asInt()));
            assertEquals(expected.stream().sorted().toList(), lines.stream().sorted().toList(), String.join("\n", lines));
        }
    }

    /**
     * A relay's announcements are on the trail as a host's are, taken or refused (here: a host's credential announcing a
     * relay, 409), and so are refusals of its checks (a relay that never announced itself asks about hosts' credentials,
     * 403); its accepted checks, every few seconds, are not.
     */
    @Test
    void aRelaysAnnouncementsAndRefusalsAreOnTheTrailItsAcceptedChecksAreNot() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).token("the-admin-token")
                .invoker(new FakeRanks(r -> { })))) {
            String url = engine.url();
            org.mpfl.protocol.HostCredential host = engine.issueHostCredential("h1");
            org.mpfl.protocol.HostCredential relay = engine.issueRelayCredential("r1");
            org.mpfl.protocol.HostCredential silent = engine.issueRelayCredential("r2");
            assertEquals(409, Http.send("POST", url + "/api/registry/relays", host.authorization(),
                    Map.of("address", "127.0.0.1:9")).status(), "a host's credential announces no relay");
            // a relay the engine can watch (it proves itself with r1's engine key), so r1 stays announced
            try (org.mpfl.protocol.relay.RelayServer server = new org.mpfl.protocol.relay.RelayServer("r1", relay.engineKey(),
                    org.mpfl.protocol.tls.TlsSettings.NONE, (o, h, n, p) -> org.mpfl.protocol.relay.RelayServer.Verdict.REFUSED,
                    org.mpfl.protocol.relay.RelayServer.Limits.DEFAULT, "127.0.0.1", 0)) {
                assertEquals(201, Http.send("POST", url + "/api/registry/relays", relay.authorization(),
                        Map.of("address", "127.0.0.1:" + server.port())).status());
                Http.Answer check = Http.send("POST", url + "/api/registry/relays/check", relay.authorization(), Map.of("hosts", Map.of()));
                assertEquals(200, check.status(), check.body());
                assertEquals(403, Http.send("POST", url + "/api/registry/relays/check", silent.authorization(),
                        Map.of("hosts", Map.of())).status(), "a relay that never announced itself asks nothing");
            }
            engine.audit().flush(Duration.ofSeconds(10));
            List<String> lines = new ArrayList<>();
            Http.send("GET", url + "/api/audit", "Bearer the-admin-token", null).json()
                    .forEach(e -> lines.add(e.get("who").asText() + " " + e.get("action").asText() + " " + e.get("status").asInt()));
            List<String> relayLines = lines.stream().filter(l -> l.contains("/api/registry/relays")).sorted().toList();
            assertEquals(List.of("host:h1 POST /api/registry/relays 409", "host:r1 POST /api/registry/relays 201",
                    "host:r2 POST /api/registry/relays/check 403"), relayLines, String.join("\n", lines));
        }
    }

    /**
     * A refused heartbeat is on the trail — a host that beats for a host it is not registered as (404), one that beats for
     * another host (403), one whose credential was revoked (401: the engine no longer knows it, so it is written as
     * {@code unknown-credential}) — accepted ones (every second) are not; and however often a host beats refused, one
     * row per caller, route and status a minute, the rule a relay's refused checks follow too: they were never on the
     * trail.
     */
    @Test
    void refusedHeartbeatsAreOnTheTrailOncePerCallerAndReasonAMinuteAcceptedOnesAreNot() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).token("the-admin-token")
                .heartbeatTimeout(org.mpfl.engine.HostCalls.SILENT_HOSTS_TIMEOUT).invoker(new FakeRanks(r -> { })))) {
            String url = engine.url();
            org.mpfl.protocol.HostCredential h1 = engine.issueHostCredential("h1");
            org.mpfl.protocol.HostCredential h2 = engine.issueHostCredential("h2");
            org.mpfl.protocol.HostCredential h3 = engine.issueHostCredential("h3");
            org.mpfl.protocol.HostCredential silent = engine.issueRelayCredential("r2");
            assertEquals(201, Http.send("POST", url + "/api/registry/hosts", h1.authorization(),
                    Map.of("hostId", "h1", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring"))).status());
            int revoked = Http.send("DELETE", url + "/api/registry/credentials/" + h3.id(), "Bearer the-admin-token", null).status();
            for (int i = 0; i < 5; i++) {
                assertEquals(204, Http.send("POST", url + "/api/registry/hosts/h1/heartbeat", h1.authorization(), "").status());
                assertEquals(404, Http.send("POST", url + "/api/registry/hosts/h2/heartbeat", h2.authorization(), "").status());
                assertEquals(403, Http.send("POST", url + "/api/registry/hosts/h2/heartbeat", h1.authorization(), "").status());
                assertEquals(401, Http.send("POST", url + "/api/registry/hosts/h3/heartbeat", h3.authorization(), "").status());
                assertEquals(403, Http.send("POST", url + "/api/registry/relays/check", silent.authorization(),
                        Map.of("hosts", Map.of())).status());
            }
            engine.audit().flush(Duration.ofSeconds(10));
            List<String> lines = new ArrayList<>();
            Http.send("GET", url + "/api/audit", "Bearer the-admin-token", null).json()
                    .forEach(e -> lines.add(e.get("who").asText() + " " + e.get("action").asText() + " " + e.get("status").asInt()));
            assertEquals(List.of("admin-token DELETE /api/registry/credentials/" + h3.id() + " " + revoked,
                    "host:h1 POST /api/registry/hosts 201",
                    "host:h1 POST /api/registry/hosts/h2/heartbeat 403",
                    "host:h2 POST /api/registry/hosts/h2/heartbeat 404",
                    "host:r2 POST /api/registry/relays/check 403",
                    "unknown-credential POST /api/registry/hosts/h3/heartbeat 401"), lines.stream().sorted().toList(),
                    String.join("\n", lines));
        }
    }

    /** Entries older than the retention are deleted when the engine starts (and hourly); younger ones stay. */
    @Test
    void entriesOlderThanTheRetentionAreDeleted() throws Exception {
        long now = System.currentTimeMillis();
        try (EngineDatabase db = EngineDatabase.openEmbedded(dir)) {
            db.access().audit(now - Duration.ofDays(3).toMillis(), "old", "10.0.0.1", "POST /api/runs", 201);
            db.access().audit(now - Duration.ofHours(1).toMillis(), "recent", "10.0.0.1", "POST /api/runs", 201);
        }
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).token("the-admin-token")
                .auditRetention(Duration.ofDays(2)))) {
            List<String> who = new ArrayList<>();
            // the trim runs on the audit's own thread at start: wait for it, within 30 s (a loaded machine's margin)
            long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            do {
                who.clear();
                Http.send("GET", engine.url() + "/api/audit", "Bearer the-admin-token", null).json().forEach(e -> who.add(e.get("who").asText()));
                if (!who.contains("old")) {
                    break;
                }
                Thread.sleep(100);
            } while (System.nanoTime() < until);
            assertEquals(List.of("recent"), who, "kept for 2 days: the 3-day-old entry went, the hour-old one stayed");
        }
    }
}
