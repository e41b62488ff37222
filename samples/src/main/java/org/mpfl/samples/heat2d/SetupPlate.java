package org.mpfl.samples.heat2d;

import java.util.HashMap;
import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;
import org.mpfl.samples.common.Inputs;

/**
 * {@code in="globalRows, globalColumns, gridDims, gridCoords"} →
 * {@code out="plate, northEdge, southEdge, westEdge, eastEdge"}: this rank's block of the plate
 * (an MPFL {@code object}) and its first edges to send to the neighbours.
 */
public final class SetupPlate implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        Plate plate = new Plate(Inputs.intValue(inputs, "globalRows"), Inputs.intValue(inputs, "globalColumns"),
                Inputs.ints(inputs, "gridDims"), Inputs.ints(inputs, "gridCoords"));
        Map<String, Object> outputs = new HashMap<>();
        outputs.put("plate", plate);
        putEdges(plate, outputs);
        return outputs;
    }

    static void putEdges(Plate plate, Map<String, Object> outputs) {
        outputs.put("northEdge", plate.northEdge());
        outputs.put("southEdge", plate.southEdge());
        outputs.put("westEdge", plate.westEdge());
        outputs.put("eastEdge", plate.eastEdge());
    }
}
