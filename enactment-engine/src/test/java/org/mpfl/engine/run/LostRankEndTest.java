package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.mpfl.engine.HostCalls;
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.RunRequest;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * A rank lost with its host never reports its end: its end time is when it was last heard of (its last event or
 * status answer), marked {@code lost}, not when the engine gave up on it. Before, a run whose host was lost while
 * the engine was down showed its ranks ending when the restarted engine gave up, their time including the downtime.
 */
@Timeout(120)
class LostRankEndTest {
    @TempDir
    Path dir;

    @Test
    void aRankLostWhileTheEngineWasDownEndsWhenItWasLastHeardOfNotWhenTheEngineGaveUp() throws Exception {
        FakeRanks ranks = new FakeRanks(r -> {
            r.event(RankEvent.Type.ACTIVITY, null, "compute", "lost.mpfl.xml:5:5", null, null, null);
            r.awaitAbort(60_000);
        });
        String id;
        long lastHeardBy;
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT)
                .invoker(ranks))) {
            assertEquals(201, HostCalls.announce(engine, Map.of("hostId", "h0", "soapUrl", "http://127.0.0.1:1/axis2/services/h0",
                    "services", List.of("ring"), "capacity", 2)).status());
            Http.Answer a = Http.post(engine.url() + "/api/runs", engine.token(),
                    Map.of("plan", EngineRunTest.ringPlan(2), "params", Map.of()));
            assertEquals(201, a.status(), a.body());
            id = a.json().get("id").asText();
            Await.until(Duration.ofSeconds(30), "both ranks computing", () -> Http.get(engine.url() + "/api/runs/" + id).json(),
                    d -> d.at("/ranks/0/activity").asText().equals("compute") && d.at("/ranks/1/activity").asText().equals("compute"));
            lastHeardBy = System.currentTimeMillis();
        }

        // the engine comes back after its host's process is gone: nothing answers there any more
        long restartedMs = System.currentTimeMillis();
        try (Engine successor = Engine.start(new EngineConfig().port(0).dataDir(dir).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT)
                .reattachGrace(Duration.ofSeconds(1)).invoker(new GoneHost()))) {
            JsonNode d = Await.until(Duration.ofSeconds(60), "the run's lost ranks read ABORTED",
                    () -> Http.get(successor.url() + "/api/runs/" + id).json(),
                    x -> x.at("/ranks/0/state").asText().equals("ABORTED") && x.at("/ranks/1/state").asText().equals("ABORTED"));
            assertEquals("FAILED", d.path("state").asText(), d.toString());
            for (JsonNode r : d.path("ranks")) {
                long ended = r.path("endedMs").asLong();
                assertTrue(ended >= r.path("startedMs").asLong() && ended <= lastHeardBy,
                        "ends when last heard of (by " + lastHeardBy + "), not when the successor (started " + restartedMs
                                + ") gave up: " + r);
                assertEquals(ended, r.path("lastSeenMs").asLong(), r.toString());
                assertTrue(r.path("lost").asBoolean(), "marked lost (its end is not known): " + r);
            }
        }
    }

    /** A host whose process is gone: every call is refused. */
    private static final class GoneHost implements RankInvoker {
        @Override
        public void run(RankPlacement target, RunRequest request) throws Exception {
            throw refused(target);
        }

        @Override
        public RankStatus status(RankPlacement target, String domainId, String token) throws Exception {
            throw refused(target);
        }

        @Override
        public void abort(RankPlacement target, String domainId, String token) throws Exception {
            throw refused(target);
        }

        private static java.net.ConnectException refused(RankPlacement target) {
            return new java.net.ConnectException("Connection refused: " + target.endpoint().soapUrl());
        }
    }
}
