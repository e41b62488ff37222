package org.mpfl.samples.coupling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.samples.common.FakeRankContext;

/** coupling.mpfl.xml's two processes in one thread, the sendrecv calls replaced by swapping variables. */
class CouplingActivitiesTest {
    static Map<String, Object> setup(double conductivity, double heatCapacity, double heldTemperature, int rank) throws Exception {
        return new HashMap<>(new SetupSegment().execute(Map.of("conductivity", conductivity, "heatCapacity", heatCapacity,
                "segmentLength", 0.05, "cellCount", 10, "heldTemperature", heldTemperature), new FakeRankContext(rank, 2)));
    }

    static void step(Map<String, Object> own, double neighbourTemperature, double neighbourResistance, int rank) throws Exception {
        own.putAll(new AdvanceSegment().execute(Map.of("segment", own.get("segment"),
                "neighbourTemperature", neighbourTemperature, "neighbourResistance", neighbourResistance,
                "interval", 10.0), new FakeRankContext(rank, 2)));
    }

    @Test
    void steadyStateInterfaceTemperatureIsTheAnalyticOne() throws Exception {
        Map<String, Object> steel = setup(50.0, 3.6e6, 100.0, 0);
        Map<String, Object> copper = setup(400.0, 3.45e6, 0.0, 1);
        double steelResistance = (Double) steel.get("contactResistance");
        double copperResistance = (Double) copper.get("contactResistance");
        for (int s = 0; s < 300; s++) {   // the document's default number of exchanges
            double steelEdge = (Double) steel.get("edgeTemperature");
            double copperEdge = (Double) copper.get("edgeTemperature");
            step(steel, copperEdge, copperResistance, 0);
            step(copper, steelEdge, steelResistance, 1);
        }
        double analytic = (50.0 * 100.0 + 400.0 * 0.0) / (50.0 + 400.0);   // 11.11 °C
        System.out.println("coupling: steel sees " + steel.get("interfaceTemperature") + ", copper sees "
                + copper.get("interfaceTemperature") + ", analytic " + analytic);
        assertEquals(analytic, (Double) steel.get("interfaceTemperature"), 1e-3);
        assertEquals(analytic, (Double) copper.get("interfaceTemperature"), 1e-3);
    }

    @Test
    void singleCellSegmentStaysStable() {
        RodSegment segment = new RodSegment(400.0, 3.45e6, 0.01, 1, 0.0);
        for (int s = 0; s < 100; s++) {
            segment.advance(50.0, 100.0, segment.contactResistance());
        }
        // one cell: half-cell resistance R to the 0 °C end, R + R (own half cell + neighbour's) to the
        // 100 °C neighbour, so it settles a third of the way: 100/3 °C, without oscillating on the way
        assertEquals(100.0 / 3.0, segment.contactCellTemperature(), 1e-9);
    }
}
