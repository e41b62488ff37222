package org.mpfl.runtime.interp.activities;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/** Test activity: keeps a running total across calls (one instance per rank and site), scales an array in place. */
public class Accumulate implements Activity {
    private double total;
    private int calls;

    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        double[] values = (double[]) inputs.get("values");
        double factor = (Double) inputs.get("factor");
        for (int i = 0; i < values.length; i++) {
            values[i] *= factor;
            total += values[i];
        }
        calls++;
        context.log("info", "rank " + context.rank() + "/" + context.size() + " process rank " + context.processRank()
                + "/" + context.processSize() + " call " + calls + " scale " + context.params().get("scale"));
        return Map.of("total", total, "calls", calls, "values", values);
    }
}
