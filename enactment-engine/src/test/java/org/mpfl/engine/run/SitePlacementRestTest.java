package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * Site-aware placement through the engine's REST API, with in-process fake ranks on hosts labelled with
 * two sites (site A: 2 hosts of 2 slots, site B: 2 hosts of 3): the run detail says which sites a run got
 * and why, each rank says its site, the run request and each rank's endpoint table carry the sites, a
 * run asked to span sites is split over them, and a malformed request is refused before anything runs.
 */
@Timeout(90)
class SitePlacementRestTest {
    @TempDir
    Path dir;
    Engine engine;
    /** The site of every rank's endpoint as the ranks' run requests carried them, by run id. */
    final Map<String, List<String>> tables = new java.util.concurrent.ConcurrentHashMap<>();
    final FakeRanks fakes = new FakeRanks(r -> {
        List<String> sites = new ArrayList<>();
        r.request().endpoints().forEach(e -> sites.add(e.site()));
        tables.put(r.request().domainId() + "/" + r.request().rank(), sites);
        r.state("DONE");
    });

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
    }

    void host(String id, int capacity, String site) throws Exception {
        Http.Answer a = HostCalls.announce(engine, Map.of("hostId", id, "soapUrl", "http://127.0.0.1:1/axis2/services/" + id,
                "services", List.of("ring"), "capacity", capacity, "site", site));
        assertEquals(201, a.status(), a.body());
    }

    Http.Answer start(int ranks, Map<String, Object> more) throws Exception {
        Map<String, Object> body = new LinkedHashMap<>(more);
        body.put("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "service", "ring", "ranks", ranks))));
        return Http.post(engine.url() + "/api/runs", engine.token(), body);
    }

    JsonNode finished(Http.Answer started) throws Exception {
        assertEquals(201, started.status(), started.body());
        String id = started.json().get("id").asText();
        JsonNode d = Await.runEnds(Duration.ofSeconds(30), () -> Http.get(engine.url() + "/api/runs/" + id).json());
        assertEquals("SUCCEEDED", d.path("state").asText(), d.toString());
        return d;
    }

    static List<String> rankSites(JsonNode detail) {
        List<String> out = new ArrayList<>();
        detail.path("ranks").forEach(r -> out.add(r.path("site").asText()));
        return out;
    }

    @Test
    void theRunDetailSaysWhichSitesTheRunGotAndWhyAndTheRanksKnowEachOthersSites() throws Exception {
        engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir).invoker(fakes));
        host("a1", 2, "A");
        host("a2", 2, "A");
        host("b1", 3, "B");
        host("b2", 3, "B");

        JsonNode packed = finished(start(4, Map.of()));
        assertEquals(List.of("A", "A", "A", "A"), rankSites(packed));
        assertEquals("packed in site A (4 of 4 free slots)", packed.at("/placement/reason").asText(), packed.toString());

        JsonNode spans = finished(start(8, Map.of()));
        assertEquals(List.of("B", "B", "B", "B", "B", "B", "A", "A"), rankSites(spans));
        assertEquals("[\"B\",\"A\"]", spans.at("/placement/sites").toString());
        assertTrue(spans.at("/placement/reason").asText().startsWith("spans sites B,A: no one site has 8 free slots"),
                spans.toString());

        JsonNode asked = finished(start(4, Map.of("sites", "A,B")));
        assertEquals(List.of("A", "A", "B", "B"), rankSites(asked));
        assertEquals("spans sites A,B as asked (sites=A,B): A 2 ranks, B 2 ranks", asked.at("/placement/reason").asText());
        // every rank's run request carried the whole table of sites, in rank order
        List<List<String>> seen = tables.values().stream().filter(t -> t.size() == 4 && t.get(3).equals("B")).toList();
        assertEquals(4, seen.size(), "each rank of the asked run got the table: " + tables);
        seen.forEach(t -> assertEquals(List.of("A", "A", "B", "B"), t));
    }

    @Test
    void aMalformedOrImpossibleSiteRequestIsRefusedOrFailsWithItsReason() throws Exception {
        engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir).invoker(fakes));
        host("a1", 2, "A");
        host("b1", 2, "B");
        Http.Answer bad = start(2, Map.of("sites", "A,,B"));
        assertEquals(400, bad.status(), bad.body());
        assertTrue(bad.body().contains("empty site name"), bad.body());
        Http.Answer unknown = start(2, Map.of("sites", "C"));
        assertEquals(201, unknown.status(), unknown.body());
        String id = unknown.json().get("id").asText();
        JsonNode d = Await.runEnds(Duration.ofSeconds(30), () -> Http.get(engine.url() + "/api/runs/" + id).json());
        assertEquals("FAILED", d.path("state").asText(), d.toString());
        assertTrue(d.path("error").toString().contains("no registered host is in site 'C' (sites: A, B)"), d.toString());
    }
}
