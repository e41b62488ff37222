package org.mpfl.samples.matmul;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.samples.common.FakeRankContext;

/** The activities of matmul.mpfl.xml, with scatter and gather done by array copies in the test. */
class MatMulActivitiesTest {
    @Test
    void blockProductsGatheredEqualTheSequentialProduct() throws Exception {
        int order = 12;
        int ranks = 4;
        Map<String, Object> generated = new GenerateMatrices().execute(Map.of("order", order, "randomSeed", 7L), new FakeRankContext(0, ranks));
        double[] a = (double[]) generated.get("a");
        double[] b = (double[]) generated.get("b");

        int blockLength = order * order / ranks;   // scatter: equal blocks when ranks divides order
        double[] c = new double[order * order];
        for (int r = 0; r < ranks; r++) {
            double[] aBlock = Arrays.copyOfRange(a, r * blockLength, (r + 1) * blockLength);
            Map<String, Object> out = new MultiplyBlock().execute(Map.of("aBlock", aBlock, "b", b, "order", order), new FakeRankContext(r, ranks));
            System.arraycopy((double[]) out.get("cBlock"), 0, c, r * blockLength, blockLength);
        }

        double[] expected = new double[order * order];
        for (int i = 0; i < order; i++) {
            for (int j = 0; j < order; j++) {
                for (int k = 0; k < order; k++) {
                    expected[i * order + j] += a[i * order + k] * b[k * order + j];
                }
            }
        }
        assertArrayEquals(expected, c, 1e-12);
        Map<String, Object> check = new CheckProduct().execute(Map.of("a", a, "b", b, "c", c, "order", order), new FakeRankContext(0, ranks));
        assertEquals(0.0, (Double) check.get("maxError"), "same loop order: identical sums");
    }

    @Test
    void checkReportsAWrongElement() throws Exception {
        int order = 3;
        double[] identity = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        double[] wrong = identity.clone();
        wrong[4] = 1.5;
        Map<String, Object> check = new CheckProduct().execute(Map.of("a", identity, "b", identity, "c", wrong, "order", order), new FakeRankContext(0, 1));
        assertEquals(0.5, (Double) check.get("maxError"), 0.0);
    }

    @Test
    void generatedMatricesDependOnlyOnTheSeed() throws Exception {
        Map<String, Object> first = new GenerateMatrices().execute(Map.of("order", 5, "randomSeed", 42L), new FakeRankContext(0, 1));
        Map<String, Object> second = new GenerateMatrices().execute(Map.of("order", 5, "randomSeed", 42L), new FakeRankContext(0, 1));
        assertArrayEquals((double[]) first.get("a"), (double[]) second.get("a"), 0.0);
        assertArrayEquals((double[]) first.get("b"), (double[]) second.get("b"), 0.0);
    }

    @Test
    void blockThatIsNotWholeRowsIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new MultiplyBlock().execute(
                Map.of("aBlock", new double[5], "b", new double[9], "order", 3), new FakeRankContext(0, 1)));
    }
}
