package org.mpfl.bench.mediator.exchange;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The update gives the bits of its formula, written the plain way, for sizes around p. */
class ExchangeUpdateTest {
    @Test
    void sameBitsAsTheFormula() {
        for (int p : new int[] {1, 2, 3, 8}) {
            for (int n : new int[] {0, 1, 2, 7, 1000}) {
                double[] all = new double[p * n];
                for (int k = 0; k < all.length; k++) {
                    all[k] = Math.sin(k * 0.37) * (k % 11 + 1);
                }
                for (int me = 0; me < p; me++) {
                    Map<String, Object> out = new ExchangeUpdate().execute(Map.of("all", all), new RankOfProcess(me, p));
                    double[] expected = new double[n];
                    double sum = 0;
                    for (int i = 0; i < n; i++) {
                        double mixed = 0;
                        for (int r = 0; r < p; r++) {
                            mixed += all[r * n + (i + r) % n];
                        }
                        expected[i] = 0.5 * all[me * n + i] + 0.5 * mixed / p;
                        sum += expected[i];
                    }
                    assertArrayEquals(expected, (double[]) out.get("block"), 0.0, "p=" + p + " n=" + n + " rank " + me);
                    assertEquals(Double.doubleToLongBits(sum), Double.doubleToLongBits((Double) out.get("checksum")));
                }
            }
        }
    }
}
