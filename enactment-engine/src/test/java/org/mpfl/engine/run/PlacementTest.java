package org.mpfl.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.protocol.RunRequest.ProcessSlice;

class PlacementTest {
    static HostInfo host(String id, int capacity, String... services) {
        return new HostInfo(id, "http://" + id + "/axis2/services", null, Set.of(services), capacity, 0, false, null);
    }

    @Test
    void fillsHostsByCapacityThenOversubscribesRoundRobin() throws Exception {
        List<RankPlacement> p = Placement.place(List.of(new ProcessSlice("ring", "ring", 7)),
                List.of(host("a", 2, "ring"), host("b", 3, "ring")), (h, s) -> h.offers(s));
        assertEquals(List.of("a", "a", "b", "b", "b", "a", "b"), p.stream().map(RankPlacement::hostId).toList());
        assertEquals("http://b/axis2/services/ring", p.get(2).endpoint().soapUrl());
    }

    @Test
    void mpmdProcessesGoToHostsOfferingTheirServiceAndShareCapacity() throws Exception {
        List<RankPlacement> p = Placement.place(
                List.of(new ProcessSlice("fluid", "Fluid", 2), new ProcessSlice("solid", "Solid", 2)),
                List.of(host("a", 2, "Fluid", "Solid"), host("b", 2, "Solid")), (h, s) -> h.offers(s));
        assertEquals(List.of("a", "a", "b", "b"), p.stream().map(RankPlacement::hostId).toList());
        assertEquals(List.of(0, 1, 2, 3), p.stream().map(RankPlacement::rank).toList());
        assertEquals("solid", p.get(2).process());
    }

    @Test
    void aServiceMayHaveAnotherNameOnSomeHostsAndItsRanksAndEndpointsUseIt() throws Exception {
        // the engine deploys the workflow's 'node' as 'wf.v2.node'; a static host-file entry has only the plain 'node'
        HostInfo dynamic = host("a", 1, "wf.v2.node");
        HostInfo fixed = new HostInfo("s", "http://s/axis2/services", null, Set.of("node"), 1, 0, true, null);
        java.util.function.BiFunction<HostInfo, String, String> onHost = (h, s) -> h.staticEntry() ? "node" : s;
        List<RankPlacement> p = Placement.place(ProcessLayout.ofCounts(Map.of("p", 2)), Map.of("p", "wf.v2.node"),
                List.of(dynamic, fixed), (h, s) -> h.offers(onHost.apply(h, s)), Map.of(), onHost);
        assertEquals("http://a/axis2/services/wf.v2.node", p.get(0).endpoint().soapUrl());
        assertEquals("wf.v2.node", p.get(0).service());
        assertEquals("http://s/axis2/services/node", p.get(1).endpoint().soapUrl());
        assertEquals("node", p.get(1).service());
    }

    @Test
    void noHostForAServiceIsAClearError() {
        Placement.PlacementException e = assertThrows(Placement.PlacementException.class, () -> Placement.place(
                List.of(new ProcessSlice("x", "X", 1)), List.of(host("a", 1, "Y")), (h, s) -> h.offers(s)));
        assertEquals(true, e.getMessage().contains("no registered host offers service 'X'"));
        Placement.PlacementException none = assertThrows(Placement.PlacementException.class, () -> Placement.place(
                List.of(new ProcessSlice("x", "X", 1)), List.of(), (h, s) -> true));
        // how to get a host since the registry is closed: a credential first (mpflc host --engine alone is refused)
        assertEquals("no service hosts are registered (enrol one: mpflc host-token --engine URL -o F, then mpflc host"
                + " --credential-file F; or start local ones with mpflc up --hosts N)", none.getMessage());
    }

    @Test
    void unavailableHostsGetNoRanksAndWhenOnlyTheyAreLeftTheErrorNamesThem() throws Exception {
        List<HostInfo> hosts = List.of(host("a", 8, "ring"), host("b", 1, "ring"), host("c", 8, "other"));
        List<RankPlacement> p = Placement.place(ProcessLayout.ofCounts(Map.of("ring", 3)),
                Map.of("ring", "ring"), hosts, (h, s) -> h.offers(s),
                Map.of("a", "quarantined until T (deploy refused: HTTP 500)"));
        assertEquals(List.of("b", "b", "b"), p.stream().map(RankPlacement::hostId).toList(), "oversubscribed rather than placed on a");

        Placement.PlacementException e = assertThrows(Placement.PlacementException.class, () -> Placement.place(
                ProcessLayout.ofCounts(Map.of("ring", 4)), Map.of("ring", "ring"),
                hosts, (h, s) -> h.offers(s), Map.of("a", "quarantined until T (deploy refused: HTTP 500)",
                        "b", "quarantined until U (rank 0 refused run: no)")));
        assertEquals("no capacity: 4 ranks of process 'ring' (service 'ring') need hosts; "
                + "a quarantined until T (deploy refused: HTTP 500), b quarantined until U (rank 0 refused run: no)", e.getMessage());
    }
}
