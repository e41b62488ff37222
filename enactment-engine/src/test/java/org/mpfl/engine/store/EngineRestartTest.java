package org.mpfl.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
import org.mpfl.engine.run.RankInvoker;
import org.mpfl.engine.run.RankPlacement;
import org.mpfl.engine.run.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.testing.Await;
import java.time.Duration;
import org.mpfl.engine.HostCalls;

/**
 * A re-attached run whose rank its host no longer knows. The restart itself, on H2 and PostgreSQL:
 * {@code RunStoreContract#runsSurviveARestart}; with real hosts and a SIGKILLed engine:
 * {@code org.mpfl.engine.durability.EngineRestartDurabilityTest}.
 */
@Timeout(60)
class EngineRestartTest {
    @TempDir
    Path dir;

    /**
     * The restarted engine asks each rank of a re-attached run for its status; a host that answers
     * but no longer knows the rank (it restarted) fails the run at once, naming host and rank, and the
     * domain is aborted with the stored token.
     */
    @Test
    void aRankUnknownToItsHostAfterTheRestartFailsTheRunNamingIt() throws Exception {
        String going;
        String token;
        try (Engine first = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir)
                .invoker(new FakeRanks(r -> r.awaitAbort(20_000))))) {
            token = first.token();
            HostCalls.announce(first, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("w")));
            going = Http.post(first.url() + "/api/runs", token, plan(2)).json().get("id").asText();
            awaitState(first, going, "RUNNING");
        }
        FakeRanks ranks = new FakeRanks(r -> { });
        RankInvoker forgetful = new RankInvoker() {
            @Override
            public void run(RankPlacement target, RunRequest request) throws Exception {
                ranks.run(target, request);
            }

            @Override
            public RankStatus status(RankPlacement target, String domainId, String token) {
                return new RankStatus("UNKNOWN", null, null, null, null, null, null);
            }

            @Override
            public void abort(RankPlacement target, String domainId, String token) throws Exception {
                ranks.abort(target, domainId, token);
            }
        };
        try (Engine second = Engine.start(new EngineConfig().port(0).dataDir(dir).invoker(forgetful))) {
            awaitState(second, going, "FAILED");
            JsonNode b = Http.get(second.url() + "/api/runs/" + going).json();
            String why = b.at("/error/message").asText();
            assertTrue(why.startsWith("rank 0 is unknown to service host h at http://127.0.0.1:1/s"), why);
            Await.until(Duration.ofSeconds(30), "the domain aborted", () -> ranks.abortCalls() > 0);
            assertEquals(1, ranks.abortCalls(), "the domain is aborted");
        }
    }

    static Map<String, Object> plan(int ranks) {
        return Map.of("plan", Map.of("workflow", "w" + ranks, "processes", List.of(Map.of("name", "w", "ranks", ranks))));
    }

    static void awaitState(Engine e, String id, String state) throws Exception {
        Await.runIn(Duration.ofSeconds(30), state, () -> Http.get(e.url() + "/api/runs/" + id).json());
    }
}
