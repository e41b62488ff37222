package org.mpfl.bench.mediator.exchange;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/**
 * {@code in="all" out="block, checksum"}: one iteration's small compute. {@code all} holds every rank's
 * block in rank order (an allgather's result); the rank's new block mixes its own block with a
 * rotated average of everybody's, so every rank needs every other rank's data each iteration.
 * {@code checksum} is the sum of the new block:
 * {@code block[i] = ½·all[me·n + i] + ½·(Σ_r all[r·n + (i + r) mod n]) / p}.
 *
 * <p>The sum runs over r in the outer loop, each rotated block added as two contiguous runs: the same
 * additions in the same order per element as the formula (so the same bits), without an integer
 * division per element and rank — written with {@code %} in the inner loop it cost ~2.5 ms per rank
 * and iteration at p = 8 and 200 KiB, more than the allgather it is there to follow.
 */
public final class ExchangeUpdate implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        double[] all = (double[]) inputs.get("all");
        int p = context.size();
        int n = all.length / p;
        int me = context.rank();
        double[] mixed = new double[n];
        for (int r = 0; r < p; r++) {
            int shift = n == 0 ? 0 : r % n;
            int base = r * n;
            // element i takes all[base + (i + r) mod n]: first i + shift < n, then the wrapped rest
            for (int i = 0; i < n - shift; i++) {
                mixed[i] += all[base + i + shift];
            }
            for (int i = n - shift; i < n; i++) {
                mixed[i] += all[base + i + shift - n];
            }
        }
        double[] block = new double[n];
        double checksum = 0;
        for (int i = 0; i < n; i++) {
            block[i] = 0.5 * all[me * n + i] + 0.5 * mixed[i] / p;
            checksum += block[i];
        }
        return Map.of("block", block, "checksum", checksum);
    }
}
