package org.mpfl.engine.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.engine.json.Json;

/**
 * {@link InProcessRun#node}, which builds the run's view without a JSON mapper, gives the nodes the engine's
 * mapper gives for every kind of output value (node classes included: an {@code IntNode} is not equal to a
 * {@code LongNode} of the same number).
 */
class InProcessRunNodeTest {

    @Test
    void everyKindOfOutputValueBecomesTheNodeTheMapperMakes() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("n", 3);
        map.put("xs", List.of(1.5, 2.5));
        map.put("none", null);
        List<Object> values = Arrays.asList(null, "text", 6, 7_000_000_000L, 2.5, Double.NaN, true,
                new int[] {1, 2}, new long[] {3L}, new double[] {0.5, -1}, new boolean[] {false},
                List.of(1, "a", List.of(2L)), map, new byte[] {1, 2, 3}, new char[] {'h', 'i'}, Map.of(1, "key not text"),
                new float[] {1.5f});
        for (Object v : values) {
            var expected = Json.MAPPER.valueToTree(v);
            var actual = InProcessRun.node(v);
            assertEquals(expected, actual, "value " + (v != null && v.getClass().isArray() ? v.getClass().getSimpleName() : v));
            assertEquals(expected == null ? null : expected.getClass(), actual.getClass(), "node class of " + v);
        }
    }
}
