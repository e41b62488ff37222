package org.mpfl.samples.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class StatisticsTest {
    @Test
    void medianOfOddAndEvenSeries() throws Exception {
        Map<String, Object> odd = new Statistics().execute(Map.of("samples", new double[] {9, 1, 5}), new FakeRankContext(0, 1));
        assertEquals(5.0, odd.get("median"));
        assertEquals(5.0, odd.get("mean"));
        assertEquals(1.0, odd.get("minimum"));
        Map<String, Object> even = new Statistics().execute(Map.of("samples", new double[] {4, 1, 3, 2}), new FakeRankContext(0, 1));
        assertEquals(2.5, even.get("median"));
    }

    @Test
    void clockIsMonotonicMicroseconds() throws Exception {
        long first = (Long) new Clock().execute(Map.of(), new FakeRankContext(0, 1)).get("now");
        Thread.sleep(5);
        long second = (Long) new Clock().execute(Map.of(), new FakeRankContext(0, 1)).get("now");
        assertTrue(second - first >= 4_000, "5 ms should read as at least 4000 µs, got " + (second - first));
    }
}
