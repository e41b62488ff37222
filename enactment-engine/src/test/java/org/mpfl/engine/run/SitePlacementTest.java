package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.ir.eval.ProcessLayout;

/**
 * Site-aware placement: a run is packed within one site while one has room (best fit), spans sites only
 * when it must (the sites with the most free slots first) or when asked, stays all-or-nothing, and says why.
 * Site A: two hosts of 2 slots (4 free); site B: two hosts of 3 slots (6 free).
 */
class SitePlacementTest {
    static HostInfo host(String id, int capacity, String site) {
        return new HostInfo(id, "http://" + id + "/axis2/services", null, Set.of("ring"), capacity, 0, false, null, false, null, site);
    }

    static final List<HostInfo> HOSTS = List.of(host("a1", 2, "A"), host("a2", 2, "A"), host("b1", 3, "B"), host("b2", 3, "B"));

    static SitePlacement.Placed place(int ranks, Map<String, Integer> busy, String sites) throws Exception {
        return place(ranks, HOSTS, busy, sites);
    }

    static SitePlacement.Placed place(int ranks, List<HostInfo> hosts, Map<String, Integer> busy, String sites) throws Exception {
        return SitePlacement.place(ProcessLayout.ofCounts(Map.of("ring", ranks)), Map.of("ring", "ring"), hosts,
                (h, s) -> h.offers(s), Map.of(), (h, s) -> s, new Placement.Load(busy, false), SiteRequest.parse(sites));
    }

    static List<String> sitesOfRanks(SitePlacement.Placed p) {
        return p.ranks().stream().map(r -> r.endpoint().site()).toList();
    }

    @Test
    void aRunThatFitsInOneSiteIsPackedInTheSiteWhereItFitsBest() throws Exception {
        SitePlacement.Placed four = place(4, Map.of(), null);
        assertEquals(List.of("A", "A", "A", "A"), sitesOfRanks(four));
        assertEquals("packed in site A (4 of 4 free slots)", four.reason());
        SitePlacement.Placed five = place(5, Map.of(), null);
        assertEquals(List.of("B"), five.sites());
        assertEquals("packed in site B (5 of 6 free slots)", five.reason());
        // other runs' ranks count: with 3 of A's slots taken a run of 2 goes to B
        SitePlacement.Placed busy = place(2, Map.of("a1", 2, "a2", 1), null);
        assertEquals(List.of("B"), busy.sites(), busy.reason());
    }

    @Test
    void aRunTooLargeForAnyOneSiteSpansTheSitesWithTheMostFreeSlotsFirst() throws Exception {
        SitePlacement.Placed eight = place(8, Map.of(), null);
        assertEquals(List.of("B", "B", "B", "B", "B", "B", "A", "A"), sitesOfRanks(eight));
        assertEquals(List.of("B", "A"), eight.sites());
        assertEquals("spans sites B,A: no one site has 8 free slots (A 4 free, B 6 free)", eight.reason());
        assertEquals(Map.of("sites", List.of("B", "A"), "reason", eight.reason()), eight.toJson());
    }

    @Test
    void placementStaysAllOrNothingAcrossSites() {
        Placement.NoRoomException e = assertThrows(Placement.NoRoomException.class, () -> place(11, Map.of(), null));
        assertTrue(e.getMessage().contains("needs 11 ranks"), e.getMessage());
    }

    @Test
    void aRunAskedToSpanSitesIsSplitInContiguousBlocks() throws Exception {
        SitePlacement.Placed two = place(4, Map.of(), "2");
        assertEquals(List.of("B", "B", "A", "A"), sitesOfRanks(two));
        assertEquals("spans sites B,A as asked (sites=2): B 2 ranks, A 2 ranks", two.reason());
        SitePlacement.Placed named = place(6, Map.of(), "A,B");
        assertEquals(List.of("A", "A", "A", "B", "B", "B"), sitesOfRanks(named));
        // A has 4 free: a share of 5 of 9 is cut to 4 and B takes the rest
        SitePlacement.Placed uneven = place(9, Map.of(), "A,B");
        assertEquals(4, sitesOfRanks(uneven).stream().filter("A"::equals).count());
        SitePlacement.Placed one = place(2, Map.of(), "B");
        assertEquals(List.of("B", "B"), sitesOfRanks(one));
        assertEquals("packed in site B as asked (sites=B) (2 of 6 free slots)", one.reason());
    }

    @Test
    void askingForSitesThatAreNotThereIsAClearError() {
        Placement.PlacementException unknown = assertThrows(Placement.PlacementException.class, () -> place(2, Map.of(), "A,C"));
        assertEquals("sites=A,C: no registered host is in site 'C' (sites: A, B)", unknown.getMessage());
        Placement.PlacementException many = assertThrows(Placement.PlacementException.class, () -> place(2, Map.of(), "3"));
        assertEquals("sites=3 asks for 3 sites; the hosts able to run this run are in 2: A, B", many.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SiteRequest.parse("0"));
        assertThrows(IllegalArgumentException.class, () -> SiteRequest.parse("a,,b"));
        assertThrows(IllegalArgumentException.class, () -> SiteRequest.parse("a,a"));
        assertThrows(IllegalArgumentException.class, () -> SiteRequest.parse("a b"));
    }

    @Test
    void withEveryHostInOneSiteNothingChangesAndThereIsNothingToExplain() throws Exception {
        List<HostInfo> one = List.of(host("h1", 2, null), host("h2", 3, null));
        SitePlacement.Placed p = place(4, one, Map.of(), null);
        assertNull(p.reason());
        assertEquals(List.of("default"), p.sites());
        assertEquals(Placement.place(ProcessLayout.ofCounts(Map.of("ring", 4)), Map.of("ring", "ring"), one, (h, s) -> h.offers(s),
                Map.of(), (h, s) -> s, new Placement.Load(Map.of(), false)), p.ranks());
    }
}
