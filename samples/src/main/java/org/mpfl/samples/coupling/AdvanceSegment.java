package org.mpfl.samples.coupling;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;
import org.mpfl.samples.common.Inputs;

/**
 * {@code in="segment, neighbourTemperature, neighbourResistance, interval"} →
 * {@code out="segment, edgeTemperature, interfaceTemperature"}: one exchange interval of this
 * material, given the neighbour's contact cell temperature just received.
 */
public final class AdvanceSegment implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        RodSegment segment = Inputs.get(inputs, "segment", RodSegment.class);
        double neighbourTemperature = Inputs.doubleValue(inputs, "neighbourTemperature");
        double neighbourResistance = Inputs.doubleValue(inputs, "neighbourResistance");
        segment.advance(Inputs.doubleValue(inputs, "interval"), neighbourTemperature, neighbourResistance);
        return Map.of("segment", segment,
                "edgeTemperature", segment.contactCellTemperature(),
                "interfaceTemperature", segment.interfaceTemperature(neighbourTemperature, neighbourResistance));
    }
}
