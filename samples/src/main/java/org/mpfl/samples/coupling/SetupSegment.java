package org.mpfl.samples.coupling;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;
import org.mpfl.samples.common.Inputs;

/**
 * {@code in="conductivity, heatCapacity, segmentLength, cellCount, heldTemperature"} →
 * {@code out="segment, edgeTemperature, contactResistance"}: this material's part of the rod; the
 * neighbour needs its contact cell temperature (each step) and its half-cell resistance (once).
 */
public final class SetupSegment implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        RodSegment segment = new RodSegment(
                Inputs.doubleValue(inputs, "conductivity"),
                Inputs.doubleValue(inputs, "heatCapacity"),
                Inputs.doubleValue(inputs, "segmentLength"),
                Inputs.intValue(inputs, "cellCount"),
                Inputs.doubleValue(inputs, "heldTemperature"));
        return Map.of("segment", segment,
                "edgeTemperature", segment.contactCellTemperature(),
                "contactResistance", segment.contactResistance());
    }
}
