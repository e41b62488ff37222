package org.mpfl.samples.matmul;

import java.util.Map;
import java.util.SplittableRandom;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;
import org.mpfl.samples.common.Inputs;

/** {@code in="order, randomSeed"} → {@code out="a, b"}: two deterministic pseudo-random matrices of order × order. */
public final class GenerateMatrices implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        int order = Inputs.intValue(inputs, "order");
        SplittableRandom random = new SplittableRandom(Inputs.longValue(inputs, "randomSeed"));
        double[] a = Matrices.random(order, random);
        double[] b = Matrices.random(order, random);
        return Map.of("a", a, "b", b);
    }
}
