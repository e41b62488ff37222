package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * A service host says goodbye as it stops ({@code DELETE /api/registry/hosts/{id}} with its own credential): a run with
 * live ranks there fails over at once as after a lost host — restarted elsewhere while restarts are left, else FAILED
 * naming the host and that it left — rather than running on until a call to the stopped host fails. The fake ranks
 * answer no {@code status} poll, so nothing but the goodbye can end the run here (before the fix it stayed RUNNING).
 * Only the host itself or an admin may say it: another host's credential changes nothing.
 */
@Timeout(90)
class HostGoodbyeTest {
    /** Generous for a loaded two-core machine: the fault is decided on the goodbye's own request. */
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;
    Engine engine;

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
    }

    private FakeRanks start(String... hosts) throws Exception {
        FakeRanks fakes = new FakeRanks(r -> r.awaitAbort(60_000));
        engine = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(fakes)
                .heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT));
        for (String h : hosts) {
            Http.Answer a = HostCalls.announce(engine, Map.of("hostId", h, "soapUrl", "http://127.0.0.1:1/axis2/services/" + h,
                    "services", List.of("ring"), "capacity", 1));
            assertEquals(201, a.status(), a.body());
        }
        return fakes;
    }

    private String run(int restarts) throws Exception {
        Http.Answer started = Http.post(engine.url() + "/api/runs", engine.token(),
                Map.of("plan", EngineRunTest.ringPlan(2), "restarts", restarts));
        assertEquals(201, started.status(), started.body());
        String id = started.json().get("id").asText();
        Await.until(WAIT, "run " + id + " RUNNING", () -> detail(id), d -> "RUNNING".equals(d.path("state").asText()));
        return id;
    }

    private JsonNode detail(String id) throws Exception {
        return Http.get(engine.url() + "/api/runs/" + id).json();
    }

    private Http.Answer goodbye(String hostId, String authorization) throws Exception {
        return Http.send("DELETE", engine.url() + "/api/registry/hosts/" + hostId, authorization, null);
    }

    private String hostOfRank(JsonNode detail, int rank) {
        for (JsonNode r : detail.path("ranks")) {
            if (r.path("rank").asInt() == rank) {
                return r.path("host").asText();
            }
        }
        throw new AssertionError("no rank " + rank + " in " + detail);
    }

    @Test
    void aRunWithoutRestartsFailsAtOnceNamingTheHostThatLeft() throws Exception {
        start("h0", "h1");
        String id = run(0);
        String h0 = hostOfRank(detail(id), 0);
        String other = h0.equals("h0") ? "h1" : "h0";

        // the other host of the run cannot say goodbye for h0 (403): neither the registry nor the run changes
        Http.Answer forged = goodbye(h0, HostCalls.credential(engine, other).authorization());
        assertEquals(403, forged.status(), forged.body());
        assertEquals(java.util.Optional.of(EngineRefusal.CREDENTIAL_FOREIGN.value()), forged.header(EngineRefusal.HEADER));
        assertTrue(engine.registry().host(h0).isPresent(), "h0 still registered");
        assertEquals("RUNNING", detail(id).path("state").asText(), "a goodbye in another host's name fails no run");

        assertEquals(204, goodbye(h0, HostCalls.credential(engine, h0).authorization()).status());
        JsonNode ended = Await.runEnds(WAIT, () -> detail(id));
        assertEquals("FAILED", ended.path("state").asText(), ended.toString());
        String error = ended.path("error").path("message").asText();
        assertTrue(error.startsWith("service host " + h0 + " at http://127.0.0.1:1/axis2/services/" + h0
                + " said goodbye as it stopped and left the registry (rank 0 ran there)"), error);
        assertEquals(0, ended.path("error").path("rank").asInt(), ended.toString());
    }

    @Test
    void aRunWithARestartLeftIsPlacedAgainWithoutTheHostThatLeftAndAnAdminsRemovalIsSaidAsSuch() throws Exception {
        FakeRanks fakes = start("h0", "h1", "h2");
        String id = run(1);
        JsonNode first = detail(id);
        String left = hostOfRank(first, 0);
        Set<String> firstDomains = fakes.started.stream().map(FakeRanks.Started::domainId).collect(Collectors.toSet());

        assertEquals(204, goodbye(left, HostCalls.credential(engine, left).authorization()).status());
        JsonNode again = Await.until(WAIT, "the run restarted on the hosts that stay", () -> detail(id),
                d -> d.path("attempts").asInt() == 2 && "RUNNING".equals(d.path("state").asText()));
        assertEquals(Map.of("allowed", 1, "used", 1), Map.of("allowed", again.at("/restarts/allowed").asInt(),
                "used", again.at("/restarts/used").asInt()), again.toString());
        JsonNode restart = again.path("attemptLog").get(1);
        assertTrue(restart.path("cause").asText().contains("service host " + left + " at "), restart.toString());
        assertTrue(restart.path("cause").asText().contains("said goodbye as it stopped and left the registry"), restart.toString());
        assertTrue(fakes.started.stream().filter(s -> !firstDomains.contains(s.domainId())).noneMatch(s -> s.hostId().equals(left)),
                "the restart is not placed on the host that left: " + fakes.started);

        // an admin takes another host of the run out of the registry: no restart is left, and the error says who did it
        String removed = hostOfRank(again, 1);
        assertEquals(204, goodbye(removed, "Bearer " + engine.token()).status());
        JsonNode ended = Await.runEnds(WAIT, () -> detail(id));
        assertEquals("FAILED", ended.path("state").asText(), ended.toString());
        String error = ended.path("error").path("message").asText();
        assertTrue(error.startsWith("service host " + removed + " at "), error);
        assertTrue(error.contains("was removed from the registry by an admin (rank 1 ran there)"), error);
        assertTrue(error.endsWith("(no restarts left: 1 of 1 used)"), error);
    }
}
