package org.mpfl.bench.mediator.exchange;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/** {@code in="n" out="block"}: the rank's first block of n doubles (deterministic, different per rank). */
public final class ExchangeInit implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        int n = ((Number) inputs.get("n")).intValue();
        double[] block = new double[n];
        for (int i = 0; i < n; i++) {
            block[i] = context.rank() + 1 + (i % 1000) * 1e-3;
        }
        return Map.of("block", block);
    }
}
