package org.mpfl.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.Await;
import org.mpfl.testing.StartsProcesses;

/**
 * Sites with real host processes on loopback: two {@code mpflc host} processes, one started with
 * {@code --site A} and one with {@code --site B}, capacity 2 each. The registry keeps their sites; a run
 * that fits in one site is packed there; a run of 4 spans both (the run detail says why), its ranks learn
 * each other's sites from the run request, so {@code auto} picks the site-aware allreduce, and the
 * engine's message matrix (the ranks' own traffic counters) shows exactly one message each way between the sites.
 */
@Timeout(240)
@StartsProcesses
class SitesAcrossHostProcessesTest {
    static Path dataDir;
    static Engine engine;
    static HostProcesses siteA;
    static HostProcesses siteB;

    @BeforeAll
    static void start() throws Exception {
        dataDir = Files.createTempDirectory("mpfl-sites-");
        // 15 s heartbeat timeout: hosts on a loaded 2-core machine missed 3 s (as in EndToEndTest)
        engine = Engine.start(new EngineConfig().port(0).dataDir(dataDir).heartbeatTimeout(Duration.ofSeconds(15))
                .runSettings(new RunSettings(Duration.ofSeconds(20), Duration.ofSeconds(3), Duration.ofMillis(500), 2, "auto")));
        siteA = hosts("A");
        siteB = hosts("B");
        Await.until(Duration.ofSeconds(60), "2 hosts registered", () -> engine.registry().hosts(), hs -> hs.size() >= 2);
    }

    static HostProcesses hosts(String site) throws Exception {
        return HostProcesses.builder().count(1).service("siteSum", SiteSumProgram.class)
                .environmentOf(LocalCluster.credentialsOf(engine, new ArrayList<>()))
                .hostArg("--engine").hostArg(engine.url()).hostArg("--capacity").hostArg("2").hostArg("--site").hostArg(site).start();
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {siteA, siteB, engine}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // closing the rest matters more
            }
        }
    }

    @Test
    void runsArePackedInOneSiteWhileTheyFitAndASpanningRunCrossesBetweenTheSitesOnlyAtItsLeaders() throws Exception {
        assertEquals(List.of("A", "B"), engine.registry().hosts().stream().map(HostInfo::site).sorted().toList());

        JsonNode packed = PlanRuns.awaitEnd(engine, PlanRuns.start(engine, "siteSum", 2, Map.of()), 60_000);
        assertEquals("SUCCEEDED", packed.path("state").asText(), packed.toString());
        assertEquals("packed in site A (2 of 2 free slots)", packed.at("/placement/reason").asText(), packed.toString());

        JsonNode spans = PlanRuns.awaitEnd(engine, PlanRuns.start(engine, "siteSum", 4, Map.of()), 60_000);
        assertEquals("SUCCEEDED", spans.path("state").asText(), spans.toString());
        assertEquals("spans sites A,B: no one site has 4 free slots (A 2 free, B 2 free)", spans.at("/placement/reason").asText());
        List<String> sites = new ArrayList<>();
        spans.get("ranks").forEach(r -> sites.add(r.get("site").asText()));
        assertEquals(List.of("A", "A", "B", "B"), sites);
        for (int r = 0; r < 4; r++) {
            assertEquals(10, spans.at("/outputs/sum/" + r).asLong(), spans.toString());
        }
        assertEquals(2, interSiteMessages(spans, sites), "the hierarchical allreduce: one message each way between the leaders");
        // the detail's own site-to-site sums say the same
        assertEquals(1, spans.at("/siteTraffic/A/B/messages").asLong(), spans.toString());
        assertEquals(1, spans.at("/siteTraffic/B/A/messages").asLong(), spans.toString());
        assertEquals(true, packed.path("siteTraffic").isMissingNode(), "one site: nothing crossed, no siteTraffic");

        JsonNode flat = PlanRuns.awaitEnd(engine, PlanRuns.start(engine, "siteSum", 4, Map.of("algorithm", "recursive-doubling")),
                60_000);
        assertEquals("SUCCEEDED", flat.path("state").asText(), flat.toString());
        assertEquals(10, flat.at("/outputs/sum/0").asLong());
        assertEquals(4, interSiteMessages(flat, sites), "flat recursive doubling: its second step pairs 0-2 and 1-3 across");
    }

    /** Messages between ranks of different sites, from the run's message matrix (the ranks' traffic counters). */
    static long interSiteMessages(JsonNode detail, List<String> sites) {
        JsonNode m = detail.at("/matrix/messages");
        long n = 0;
        for (int from = 0; from < sites.size(); from++) {
            for (int to = 0; to < sites.size(); to++) {
                if (!sites.get(from).equals(sites.get(to))) {
                    n += m.get(from).get(to).asLong();
                }
            }
        }
        return n;
    }
}
