package org.mpfl.samples.heat2d;

import java.util.HashMap;
import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;
import org.mpfl.samples.common.Inputs;

/**
 * {@code in="plate, northHalo, southHalo, westHalo, eastHalo"} →
 * {@code out="plate, localResidual, northEdge, southEdge, westEdge, eastEdge"}: unpacks the halos
 * received from the neighbours (ignored on sides at the plate's edge), does one Jacobi sweep, and packs the new
 * edges for the next exchange. {@code localResidual} is the largest change of a cell of this rank.
 */
public final class JacobiSweep implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        Plate plate = Inputs.get(inputs, "plate", Plate.class);
        plate.storeHalos(
                plate.northNeighbour ? Inputs.doubles(inputs, "northHalo") : null,
                plate.southNeighbour ? Inputs.doubles(inputs, "southHalo") : null,
                plate.westNeighbour ? Inputs.doubles(inputs, "westHalo") : null,
                plate.eastNeighbour ? Inputs.doubles(inputs, "eastHalo") : null);
        double localResidual = plate.sweep();
        Map<String, Object> outputs = new HashMap<>();
        outputs.put("plate", plate);
        outputs.put("localResidual", localResidual);
        SetupPlate.putEdges(plate, outputs);
        return outputs;
    }
}
