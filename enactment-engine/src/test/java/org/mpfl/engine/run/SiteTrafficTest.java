package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.Endpoint;

/** The run detail's {@code siteTraffic}: the ranks' traffic counters summed from site to site, absent for one site. */
class SiteTrafficTest {
    static RankView rank(int r, String site) {
        return new RankView(new RankPlacement(r, "p", "s", "h" + r, new Endpoint("http://h" + r + "/s", null, "h" + r, site)));
    }

    @Test
    void countersAreSummedFromSiteToSite() {
        List<RankView> ranks = List.of(rank(0, "A"), rank(1, "A"), rank(2, "B"));
        ranks.get(0).applyCounters(Map.of("sentTo", Map.of("1", 5, "2", 1), "bytesTo", Map.of("1", 50, "2", 800)));
        ranks.get(1).applyCounters(Map.of("sentTo", Map.of("2", 2), "bytesTo", Map.of("2", 16)));
        ranks.get(2).applyCounters(Map.of("sentTo", Map.of("0", 1), "bytesTo", Map.of("0", 8)));
        assertEquals(Map.of("A", Map.of("A", Map.of("messages", 5L, "bytes", 50L), "B", Map.of("messages", 3L, "bytes", 816L)),
                "B", Map.of("A", Map.of("messages", 1L, "bytes", 8L))), RankView.siteTraffic(ranks));
        assertNull(RankView.siteTraffic(List.of(rank(0, null), rank(1, null))), "one site: nothing to show");
    }
}
