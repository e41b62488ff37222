package org.mpfl.engine.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.relay.RelayWire;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * Revoking a host's credential reaches the relays where that host registered ({@link RelayLab}: a real engine,
 * {@code mpflc relay} against it over HTTP, hosts on loopback sockets). The attack: a host whose credential the admin
 * revoked keeps its control connection to the relay open and waits for the dials meant for its addresses — the
 * relay's {@code incoming} notices tell it who dials, and a splice or reverse connection follows from each. The
 * relay drops it within a few seconds (docs/security.md says 5; the test waits {@link RelayLab#WAIT}): connection
 * closed, its address no longer served, a new registration refused, while a valid host at the same relay keeps
 * working; an engine the relay cannot reach for a while makes it drop nobody.
 */
@Timeout(180)
class RelayRevocationTest {
    @TempDir
    Path dir;

    private Engine engine() throws Exception {
        return Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir)
                .invoker(new FakeRanks(r -> { })));
    }

    @Test
    void aRevokedHostIsDroppedByTheRelayAndCannotRegisterAgainWhileAValidHostStays() throws Exception {
        try (Engine engine = engine(); RelayLab lab = new RelayLab(engine, dir)) {
            String aAddress = lab.announce("a", 4101);
            String bAddress = lab.announce("b", 4201);
            HostCredential a = HostCalls.credential(engine, "a");
            HostCredential b = HostCalls.credential(engine, "b");
            try (RelayLab.Host aControl = lab.register(a, aAddress); RelayLab.Host bControl = lab.register(b, bAddress)) {
                assertEquals("registered", aControl.answer.get("ok"), aControl.answer.toString());
                assertEquals("registered", bControl.answer.get("ok"), bControl.answer.toString());

                assertEquals(204, Http.send("DELETE", engine.url() + "/api/registry/credentials/" + a.id(), "Bearer " + engine.token(),
                        null).status());
                List<Map<String, String>> beforeClose = aControl.awaitClosed();
                assertTrue(beforeClose.stream().noneMatch(f -> "incoming".equals(f.get("op"))), beforeClose.toString());
                Await.until(RelayLab.WAIT, () -> "the relay says it dropped a: " + lab.err(), lab::err,
                        e -> e.contains("dropped host a: the engine no longer holds the credential it registered with"));

                // the other hosts learn a directory without a's address
                Map<String, String> directory = bControl.next("directory");
                while (directory.get("addresses").contains(aAddress)) {
                    directory = bControl.next("directory");
                }
                assertEquals(bAddress + "@s1", directory.get("addresses"));

                try (RelayLab.Host dial = lab.dial(b, aAddress)) {
                    Map<String, String> answer = RelayWire.read(dial.in);
                    assertEquals("no host holding a connection to relay r1 serves " + aAddress, answer.get("error"), answer.toString());
                }
                try (RelayLab.Host again = lab.register(a, aAddress)) {
                    assertTrue(again.answer.getOrDefault("error", "").startsWith("not authenticated"), again.answer.toString());
                    again.awaitClosed();
                }

                // b, at the same relay and time, is untouched: it answers pings and accepts the splice a dial asks for
                assertTrue(bControl.answersPing(), "b's control connection");
                try (RelayLab.Host dial = lab.dial(b, bAddress)) {
                    CompletableFuture<Map<String, String>> dialed = CompletableFuture.supplyAsync(() -> readQuietly(dial));
                    Map<String, String> incoming = bControl.next("incoming");
                    assertEquals(bAddress, incoming.get("target"));
                    try (RelayLab.Host accept = lab.connect(b, Map.of("op", "accept", "host", "b", "id", incoming.get("id"),
                            "splice", "p"))) {
                        assertEquals("spliced", RelayWire.read(accept.in).get("ok"));
                        assertEquals("spliced", dialed.get(RelayLab.WAIT.toSeconds(), TimeUnit.SECONDS).get("ok"));
                    }
                }
                assertTrue(bControl.answersPing(), "b's control connection after its splice");
            }
        }
    }

    /**
     * The engine answers a relay's check only about the credential each registration proved: a new credential issued
     * for the same host id after a revocation does not keep the old registration (its key opens nothing any more).
     */
    @Test
    void theEngineAnswersForTheCredentialARegistrationProvedNotForTheHostId() throws Exception {
        try (Engine engine = engine(); RelayLab lab = new RelayLab(engine, dir)) {
            HostCredential old = engine.issueHostCredential("a");
            String check = engine.url() + "/api/registry/relays/check";
            assertEquals("[\"a\"]", check(lab, Map.of("a", old.id())).toString());
            assertEquals(204, Http.send("DELETE", engine.url() + "/api/registry/credentials/" + old.id(), "Bearer " + engine.token(),
                    null).status());
            HostCredential renewed = engine.issueHostCredential("a");
            assertEquals("[]", check(lab, Map.of("a", old.id())).toString());
            assertEquals("[\"a\"]", check(lab, Map.of("a", renewed.id())).toString());
            assertEquals("[]", check(lab, Map.of("b", renewed.id())).toString(), "a's credential is not b's");

            Http.Answer asHost = Http.send("POST", check, renewed.authorization(), Map.of("hosts", Map.of("a", renewed.id())));
            assertEquals(409, asHost.status(), "a host's credential asks about no credential: " + asHost.body());
            HostCredential unannounced = engine.issueRelayCredential("r2");
            Http.Answer notARelay = Http.send("POST", check, unannounced.authorization(), Map.of("hosts", Map.of("a", renewed.id())));
            assertEquals(403, notARelay.status(), notARelay.body());
        }
    }

    /**
     * The relay cannot reach the engine for a while: it keeps every host (each dial and accept is still checked with
     * the engine, so keeping them opens nothing), even one revoked meanwhile; once the engine answers again the
     * revoked host goes and the valid one stays.
     */
    @Test
    void anEngineBrieflyUnreachableMakesTheRelayDropNoValidHost() throws Exception {
        try (Engine engine = engine(); RelayLab lab = new RelayLab(engine, dir)) {
            String aAddress = lab.announce("a", 4101);
            String bAddress = lab.announce("b", 4201);
            HostCredential a = HostCalls.credential(engine, "a");
            HostCredential b = HostCalls.credential(engine, "b");
            try (RelayLab.Host aControl = lab.register(a, aAddress); RelayLab.Host bControl = lab.register(b, bAddress)) {
                assertEquals("registered", bControl.answer.get("ok"), bControl.answer.toString());
                lab.line.cut();
                Await.until(RelayLab.WAIT, () -> "the relay says it cannot ask the engine: " + lab.err(), lab::err,
                        e -> e.contains("could not ask the engine whether its hosts' credentials are still valid"));
                assertEquals(204, Http.send("DELETE", engine.url() + "/api/registry/credentials/" + a.id(), "Bearer " + engine.token(),
                        null).status());
                // two more checks go unanswered (one every 2 s; the announcement every 10 s adds to the count)
                int refused = lab.line.refused();
                Await.until(RelayLab.WAIT, "two more unanswered checks", lab.line::refused, n -> n >= refused + 2);
                assertTrue(bControl.answersPing(), "b dropped while the engine was unreachable");
                assertTrue(aControl.answersPing(), "the relay cannot know of a's revocation before it reaches the engine");
                assertFalse(lab.err().contains("dropped host"), lab.err());

                lab.line.restore();
                aControl.awaitClosed();
                assertTrue(lab.err().contains("the engine answers the check of the hosts' credentials again"), lab.err());
                assertTrue(bControl.answersPing(), "b dropped after the engine came back");
            }
        }
    }

    private static JsonNode check(RelayLab lab, Map<String, String> hosts) throws Exception {
        Http.Answer a = Http.send("POST", lab.engine.url() + "/api/registry/relays/check", lab.relayCredential.authorization(),
                Map.of("hosts", hosts));
        assertEquals(200, a.status(), a.body());
        return a.json().path("valid");
    }

    private static Map<String, String> readQuietly(RelayLab.Host h) {
        try {
            return RelayWire.read(h.in);
        } catch (java.io.IOException e) {
            return Map.of("error", e.toString());
        }
    }
}
