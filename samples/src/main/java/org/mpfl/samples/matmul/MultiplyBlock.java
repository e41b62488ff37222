package org.mpfl.samples.matmul;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;
import org.mpfl.samples.common.Inputs;

/** {@code in="aBlock, b, order"} → {@code out="cBlock"}: this rank's rows of C = A·B. */
public final class MultiplyBlock implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        int order = Inputs.intValue(inputs, "order");
        return Map.of("cBlock", Matrices.multiplyRows(Inputs.doubles(inputs, "aBlock"), Inputs.doubles(inputs, "b"), order));
    }
}
