package org.mpfl.samples.matmul;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;
import org.mpfl.samples.common.Inputs;

/**
 * {@code in="a, b, c, order"} → {@code out="maxError"}: the largest |c − a·b| over all elements, with
 * a·b computed sequentially on this rank.
 */
public final class CheckProduct implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        int order = Inputs.intValue(inputs, "order");
        double[] c = Inputs.doubles(inputs, "c");
        double[] expected = Matrices.multiplyRows(Inputs.doubles(inputs, "a"), Inputs.doubles(inputs, "b"), order);
        if (c.length != expected.length) {
            throw new IllegalArgumentException("gathered product has " + c.length + " elements, expected " + expected.length);
        }
        double maxError = 0.0;
        for (int k = 0; k < c.length; k++) {
            maxError = Math.max(maxError, Math.abs(c[k] - expected[k]));
        }
        return Map.of("maxError", maxError);
    }
}
