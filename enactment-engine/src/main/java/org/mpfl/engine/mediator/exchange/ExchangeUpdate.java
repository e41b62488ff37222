package org.mpfl.engine.mediator.exchange;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/**
 * {@code in="all" out="block, checksum"}: one iteration's small compute. {@code all} holds every rank's
 * block in rank order (an allgather's result); the rank's new block mixes its own block with a
 * rotated average of everybody's, so every rank needs every other rank's data each iteration.
 * {@code checksum} is the sum of the new block.
 */
public final class ExchangeUpdate implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        double[] all = (double[]) inputs.get("all");
        int p = context.size();
        int n = all.length / p;
        int me = context.rank();
        double[] block = new double[n];
        double checksum = 0;
        for (int i = 0; i < n; i++) {
            double mixed = 0;
            for (int r = 0; r < p; r++) {
                mixed += all[r * n + (i + r) % n];
            }
            block[i] = 0.5 * all[me * n + i] + 0.5 * mixed / p;
            checksum += block[i];
        }
        return Map.of("block", block, "checksum", checksum);
    }
}
