package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.relay.RelayDialer;
import org.mpfl.protocol.relay.RelayServer;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;
import org.mpfl.testing.Ports;

/**
 * A relay lost while it carries a run, as the engine sees it: a real relay ({@link RelayServer}, in
 * this JVM on loopback) that the engine watches, hosts of site s2 behind it, a host of site s1 that
 * accepts inbound connections, fake ranks. The run's error names the relay, its site and only the
 * run's hosts behind it; the hosts behind it stay out of placement while it is lost, without a
 * quarantine, and are placed again once it announces itself again. The engine's relay-return bound
 * ({@link EngineConfig#relayReturn}) is {@link #RELAY_RETURN} here: a restart waits for a lost relay at most
 * that long all told, and the abort of a given-up domain reaches the hosts behind the relay once it is back.
 */
@Timeout(120)
class RelayOutageTest {
    /** The engine's relay-return bound in these tests: short, so a wait for a relay that stays lost ends soon. */
    static final Duration RELAY_RETURN = Duration.ofSeconds(10);
    @TempDir
    Path dir;
    Engine engine;
    FakeRanks ranks;
    RelayServer relay;
    int relayPort;
    String relayAddress;
    HostCredential relayCredential;
    final List<String> routed = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        ranks = new FakeRanks(r -> r.awaitAbort(60_000));
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(ranks).runSettings(EngineRunTest.fast())
                .heartbeatTimeout(Duration.ofMinutes(10)).relayReturn(RELAY_RETURN));
        relayCredential = engine.issueRelayCredential("rly");
        startRelay(Ports.outsideEphemeralRange());
        relayAddress = "127.0.0.1:" + relayPort;
        announceRelay();
        host("s1h1", "s1", null, "ring", 11);
        host("s2h1", "s2", relayAddress, "ring", 12);
        host("s2h2", "s2", relayAddress, "ring", 13);
        // behind the same relay, but offers no service of the runs below: never one of their hosts
        host("s2h3", "s2", relayAddress, "other", 14);
    }

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
        if (relay != null) {
            relay.close();
        }
        // the dialer is the process's: the routes the hosts' announcements made go with the test
        routed.forEach(a -> RelayDialer.shared().routeVia(a, null, null));
    }

    /**
     * Starts the relay at {@code port}, the same port again after an outage (a service manager restarting it). The port
     * is outside the ephemeral range: the engine dials the lost relay every second, and on loopback a dial of a closed
     * ephemeral port can be given that very port as its own and hold it.
     */
    void startRelay(int port) throws Exception {
        relay = new RelayServer("rly", relayCredential.engineKey(), TlsSettings.NONE,
                (op, host, nonce, proof) -> RelayServer.Verdict.REFUSED, RelayServer.Limits.DEFAULT, "127.0.0.1", port);
        relayPort = relay.port();
    }

    void announceRelay() throws Exception {
        Http.Answer a = announceRelayAt(relayAddress);
        assertEquals(201, a.status(), a.body());
    }

    Http.Answer announceRelayAt(String address) throws Exception {
        return Http.send("POST", engine.url() + "/api/registry/relays", relayCredential.authorization(), Map.of("address", address));
    }

    /** The engine's watches of the relay at {@code address} (one thread each). */
    static long watchesOf(String address) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("mpfl-relay-watch-" + address)).count();
    }

    /**
     * What the relay reports to the engine every 2 s ({@code POST /api/registry/relays/check}): these hosts hold a
     * registration there (their links dialled it), each with the credential it proved.
     */
    void relayHolds(String... hostIds) throws Exception {
        Map<String, String> held = new LinkedHashMap<>();
        for (String h : hostIds) {
            held.put(h, HostCalls.credential(engine, h).id());
        }
        Http.Answer a = Http.send("POST", engine.url() + "/api/registry/relays/check", relayCredential.authorization(),
                Map.of("hosts", held));
        assertEquals(200, a.status(), a.body());
    }

    /** Announces a host of capacity 1 at a fake address of its own (loopback port {@code port}, never dialled). */
    void host(String id, String site, String relayAddr, String service, int port) throws Exception {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("hostId", id);
        h.put("soapUrl", "http://127.0.0.1:" + port + "/axis2/services");
        h.put("services", List.of(service));
        h.put("capacity", 1);
        h.put("site", site);
        h.put("instance", id + "-1");
        if (relayAddr != null) {
            h.put("relay", relayAddr);
        }
        routed.add("127.0.0.1:" + port);
        Http.Answer a = HostCalls.announce(engine, h);
        assertEquals(201, a.status(), a.body());
    }

    String startRun(int ranks) throws Exception {
        return startRun(ranks, 0);
    }

    String startRun(int ranks, int restarts) throws Exception {
        Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(), Map.of("plan", EngineRunTest.ringPlan(ranks),
                "restarts", restarts));
        assertEquals(201, a.status(), a.body());
        return a.json().get("id").asText();
    }

    JsonNode detail(String id) throws Exception {
        return Http.get(engine.url() + "/api/runs/" + id).json();
    }

    JsonNode hosts() throws Exception {
        return Http.send("GET", engine.url() + "/api/registry/hosts", "Bearer " + engine.token(), null).json();
    }

    @Test
    void aLostRelayFailsTheRunNamingTheRelayItsSiteAndOnlyThisRunsHostsBehindIt() throws Exception {
        String id = startRun(3);
        Await.until(Duration.ofSeconds(30), "the run is RUNNING on s1h1, s2h1, s2h2", () -> detail(id),
                d -> d.path("state").asText().equals("RUNNING"));

        relay.close();

        JsonNode d = Await.until(Duration.ofSeconds(30), "the run fails for the lost relay", () -> detail(id),
                x -> x.path("state").asText().equals("FAILED"));
        String message = d.path("error").path("message").asText();
        assertTrue(message.startsWith("relay rly at " + relayAddress + " (site s2) was lost"), message);
        assertTrue(message.contains("this run's hosts s2h1, s2h2 behind it"), message);
        assertFalse(message.contains("s2h3"), "s2h3 is behind the relay but not a host of this run: " + message);
        assertFalse(message.contains("s1h1"), "s1h1 is reached directly: " + message);
    }

    @Test
    void hostsBehindALostRelayAreLeftOutOfPlacementWithoutQuarantineAndComeBackWithTheRelay() throws Exception {
        relay.close();
        Await.until(Duration.ofSeconds(30), "the engine saw the relay lost",
                () -> Http.send("GET", engine.url() + "/api/registry/relays", "Bearer " + engine.token(), null).json(), r -> r.size() == 0);

        String id = startRun(3);
        JsonNode queued = Await.until(Duration.ofSeconds(30), "the run waits for room", () -> detail(id),
                d -> d.path("state").asText().equals("QUEUED") && d.toString().contains("relay rly"));
        assertTrue(queued.toString().contains("which is lost"), queued.toString());
        for (JsonNode h : hosts()) {
            assertTrue(h.path("quarantine").isNull(), "a host behind a lost relay is healthy, not quarantined: " + h);
            assertEquals(h.path("relay").isNull(), h.path("unreachable").isNull(), "out of reach when behind the lost relay: " + h);
        }

        startRelay(relayPort);
        announceRelay();
        relayHolds("s2h1", "s2h2", "s2h3");

        Await.until(Duration.ofSeconds(30), "the run is placed once the relay is back", () -> detail(id),
                d -> d.path("state").asText().equals("RUNNING"));
    }

    /**
     * Two relays started with one credential (an admin who copied {@code relay1.credential} to a second machine for the
     * same site): each announcement moved the engine's record of the relay to its address, so the hosts registering at
     * the other were refused every other 10 s, and every move started one more watch of that address that nothing
     * stopped until the relay died. The second is refused (409) while the first answers, naming both and the fix, and
     * taken once the first is gone (a relay moved to another machine).
     */
    @Test
    void aSecondRelayWithTheSameCredentialIsRefusedWhileTheFirstAnswers() throws Exception {
        RelayServer second = new RelayServer("rly", relayCredential.engineKey(), TlsSettings.NONE,
                (op, host, nonce, proof) -> RelayServer.Verdict.REFUSED, RelayServer.Limits.DEFAULT, "127.0.0.1", 0);
        try {
            String secondAddress = "127.0.0.1:" + second.port();
            for (int i = 0; i < 3; i++) {
                Http.Answer refused = announceRelayAt(secondAddress);
                assertEquals(409, refused.status(), refused.body());
                assertTrue(refused.body().contains("is announced at " + relayAddress) && refused.body().contains(secondAddress)
                        && refused.body().contains("credential of its own"), refused.body());
                announceRelay();
            }
            JsonNode relays = Http.send("GET", engine.url() + "/api/registry/relays", "Bearer " + engine.token(), null).json();
            assertEquals(1, relays.size(), relays.toString());
            assertEquals(relayAddress, relays.get(0).path("address").asText(), relays.toString());
            assertEquals(1, watchesOf(relayAddress), "one watch of the first relay, however often it announced itself");
            assertEquals(0, watchesOf(secondAddress), "no watch of a relay the engine refused");

            relay.close();
            Await.until(Duration.ofSeconds(30), "the engine saw the first relay go",
                    () -> Http.send("GET", engine.url() + "/api/registry/relays", "Bearer " + engine.token(), null).json(),
                    r -> r.size() == 0);
            Http.Answer moved = announceRelayAt(secondAddress);
            assertEquals(201, moved.status(), moved.body());
        } finally {
            second.close();
        }
    }

    /**
     * A host whose {@code --relay} names an address where no relay ever announced itself (a typo, another name for the
     * relay, a relay not started yet): the engine cannot reach it, so the run waits without it — and says that no
     * relay announced itself there, not that a relay "is lost", which sends the admin looking for a crash that
     * never happened.
     */
    @Test
    void aHostBehindARelayThatNeverAnnouncedItselfIsLeftOutSayingSo() throws Exception {
        String nowhere = "127.0.0.1:" + Ports.outsideEphemeralRange();
        host("s3h1", "s3", nowhere, "ring", 15);

        String id = startRun(4);
        JsonNode queued = Await.until(Duration.ofSeconds(30), "the run waits without s3h1", () -> detail(id),
                d -> d.path("state").asText().equals("QUEUED") && d.toString().contains(nowhere));
        String said = queued.toString();
        assertFalse(said.contains("which is lost"), "no relay was ever there to be lost: " + said);
        assertTrue(said.contains("no relay has announced itself at " + nowhere), said);
        assertTrue(said.contains("ready line"), "says where the right address is found: " + said);
        // the registry view (mpflc hosts) says it too, rather than calling the host ok
        JsonNode s3h1 = null;
        for (JsonNode h : hosts()) {
            if (h.path("hostId").asText().equals("s3h1")) {
                s3h1 = h;
            } else {
                assertTrue(h.path("unreachable").isNull(), h.toString());
            }
        }
        assertTrue(s3h1 != null && s3h1.path("unreachable").asText().contains("no relay has announced itself at " + nowhere),
                String.valueOf(s3h1));
        assertTrue(s3h1.path("quarantine").isNull(), "a host behind no relay is healthy, not quarantined: " + s3h1);
    }

    /**
     * A relay back from a loss announces itself before the hosts behind it have registered there again (their links
     * dial it again a second or two later): a run placed on them then would fail, the engine's calls through the
     * relay reaching no one. They are placed once the relay reports them registered.
     */
    @Test
    void hostsBehindARelayBackFromALossArePlacedOnlyOnceItReportsThemRegisteredAgain() throws Exception {
        relay.close();
        Await.until(Duration.ofSeconds(30), "the engine saw the relay lost",
                () -> Http.send("GET", engine.url() + "/api/registry/relays", "Bearer " + engine.token(), null).json(), r -> r.size() == 0);
        startRelay(relayPort);
        announceRelay();

        // no host has registered at the relay again yet
        String id = startRun(3);
        JsonNode d = Await.until(Duration.ofSeconds(30), "the run is queued, placed or failed", () -> detail(id),
                x -> !x.path("state").asText().equals("QUEUED") || x.toString().contains("relay rly"));
        assertEquals("QUEUED", d.path("state").asText(), "a run placed on hosts the relay holds no registration of: " + d);
        assertTrue(d.toString().contains("has not registered it again"), d.toString());

        relayHolds("s2h1", "s2h2", "s2h3");
        Await.until(Duration.ofSeconds(30), "the run is placed once the relay holds its hosts again", () -> detail(id),
                x -> x.path("state").asText().equals("RUNNING"));
    }

    /**
     * The same when every host able to run it is behind that relay (as for the restart of a run across two sites after
     * their relay's loss: CrossSiteFaultsTest failed so once): the run waits for them too. It failed at once, "no
     * capacity: … back from a loss but has not registered it again yet (placed once it has)".
     */
    @Test
    void aRunWhoseEveryHostIsBehindARelayBackFromALossWaitsForThemToRegisterAgain() throws Exception {
        Http.Answer gone = Http.send("DELETE", engine.url() + "/api/registry/hosts/s1h1", "Bearer " + engine.token(), null);
        assertEquals(204, gone.status(), gone.body());
        relay.close();
        Await.until(Duration.ofSeconds(30), "the engine saw the relay lost",
                () -> Http.send("GET", engine.url() + "/api/registry/relays", "Bearer " + engine.token(), null).json(), r -> r.size() == 0);
        startRelay(relayPort);
        announceRelay();

        String id = startRun(2);
        JsonNode d = Await.until(Duration.ofSeconds(30), "the run is queued, placed or failed", () -> detail(id),
                x -> !x.path("state").asText().equals("QUEUED") || x.toString().contains("has not registered it again"));
        assertEquals("QUEUED", d.path("state").asText(), "a run failed for hosts on their way back: " + d);

        relayHolds("s2h1", "s2h2", "s2h3");
        Await.until(Duration.ofSeconds(30), "the run is placed once the relay holds its hosts again", () -> detail(id),
                x -> x.path("state").asText().equals("RUNNING"));
    }

    /**
     * A relay lost for good under a run with a restart left: the restart waits for it, and retries its abort of
     * the hosts behind it, within one relay-return bound all told, then queues the new attempt (the hosts behind
     * the lost relay left out). The wait and the abort's retries each had a bound of their own (60 s), so a relay
     * that stayed lost held the restart for twice the 60 s the documentation gives.
     */
    @Test
    void aRestartWaitsForALostRelayNoLongerThanTheRelayReturnBoundAllTold() throws Exception {
        String id = startRun(3, 1);
        Await.until(Duration.ofSeconds(30), "the run is RUNNING on s1h1, s2h1, s2h2", () -> detail(id),
                d -> d.path("state").asText().equals("RUNNING"));
        // the engine reaches s2h1 and s2h2 only through the relay
        ranks.unreachableHosts = Set.of("s2h1", "s2h2");
        long t0 = System.nanoTime();
        relay.close();

        JsonNode queued = Await.until(RELAY_RETURN.multipliedBy(4), "the restart queues its new attempt", () -> detail(id),
                d -> d.at("/restarts/used").asInt() == 1 && d.path("state").asText().equals("QUEUED"));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(queued.toString().contains("which is lost"), queued.toString());
        assertTrue(ms >= RELAY_RETURN.toMillis(), "the restart waited for the relay: queued after " + ms + " ms");
        // twice the bound is what the two waits added up to; half of it is slack for a loaded machine
        assertTrue(ms < RELAY_RETURN.toMillis() * 3 / 2, "the restart waited " + ms + " ms for the lost relay, more than its bound "
                + RELAY_RETURN.toMillis() + " ms");
    }

    /**
     * A run failed by a lost relay: the abort of its domain cannot reach the hosts behind the relay then, and is
     * tried again until they can be reached (the relay back, within the relay-return bound) — rather than once,
     * which left their ranks running until they next posted an event (a rank blocked on a peer posts none).
     */
    @Test
    void theAbortOfARunFailedByALostRelayReachesItsHostsOnceTheRelayIsBack() throws Exception {
        String id = startRun(3);
        Await.until(Duration.ofSeconds(30), "the run is RUNNING on s1h1, s2h1, s2h2", () -> detail(id),
                d -> d.path("state").asText().equals("RUNNING"));
        String domain = ranks.started.get(0).domainId();
        ranks.unreachableHosts = Set.of("s2h1", "s2h2");
        relay.close();
        Await.until(Duration.ofSeconds(30), "the run fails for the lost relay", () -> detail(id),
                x -> x.path("state").asText().equals("FAILED"));
        Await.until(Duration.ofSeconds(30), "the abort reached s1h1", () -> ranks.abortsReached,
                a -> a.contains("s1h1 " + domain));
        assertFalse(ranks.abortsReached.contains("s2h1 " + domain), ranks.abortsReached.toString());

        startRelay(relayPort);
        announceRelay();
        // the hosts' links register at the relay again: the engine's dial through it reaches them
        ranks.unreachableHosts = Set.of();

        Await.until(RELAY_RETURN, "the abort reaches s2h1 and s2h2 through the relay, back", () -> ranks.abortsReached,
                a -> a.contains("s2h1 " + domain) && a.contains("s2h2 " + domain));
    }

    /**
     * The engine closing stops its relay watches, and waits for them, before its store closes. A watch left running
     * broke when the relay went after the engine, failed the run it carried and wrote it to the closed store
     * ({@code cannot persist run …: The object is already closed} at the end of this class's log).
     */
    @Test
    void closingTheEngineStopsItsRelayWatchesBeforeItsStoreCloses() throws Exception {
        String id = startRun(3);
        Await.until(Duration.ofSeconds(30), "the run is RUNNING on s1h1, s2h1, s2h2", () -> detail(id),
                d -> d.path("state").asText().equals("RUNNING"));
        String watch = "mpfl-relay-watch-" + relayAddress;
        assertTrue(threadAlive(watch), "the engine watches the relay on a thread named " + watch);

        engine.close();
        engine = null;

        assertFalse(threadAlive(watch), "the relay's watch outlived the engine (and its store)");
    }

    static boolean threadAlive(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }
}
