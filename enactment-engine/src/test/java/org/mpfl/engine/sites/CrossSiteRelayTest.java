package org.mpfl.engine.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.lab.NetworkLab;

/**
 * Across sites ({@link NetworkLab.Builder#sites}): two sites, each behind a NAT gateway that admits
 * no connection from outside, the engine and a relay on the WAN between them, everything over TLS.
 * Before each run the lab asserts that no host of one site can open a connection to a host of the
 * other, so a run whose ranks span both sites can only have exchanged its messages through the relay.
 */
@Timeout(400)
@StartsProcesses
class CrossSiteRelayTest {
    static NetworkLab lab;

    @BeforeAll
    static void start() throws Exception {
        lab = NetworkLab.builder().sites(2, 2).capacity(1).tls().start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    void ringRunsAcrossTwoSitesThroughTheRelay() throws Exception {
        lab.assertSitesIsolated();
        JsonNode r = lab.runDocument(Path.of("..", "samples", "ring", "ring.mpfl.xml"), "ranks=8");
        assertEquals("SUCCEEDED", r.path("state").asText(), r + "\n" + lab.logs());
        assertEquals(28, r.at("/outputs/token/0").asInt(), r.toString());
        Set<String> sites = new TreeSet<>();
        lab.placement(r.path("run").asText()).forEach(h -> sites.add(h.substring(0, 2)));
        assertEquals(Set.of("s1", "s2"), sites, "the run must span both sites");
        JsonNode relays = lab.adminGet("/api/registry/relays").json();
        assertEquals("rly", relays.path(0).path("relayId").asText(), relays.toString());
        assertTrue(lab.adminGet("/api/registry/hosts").body().contains("\"relay\":\"" + lab.relayAddress() + "\""));
    }
}
