package org.mpfl.runtime.interp.activities;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/** Test activity: an {@code object} output holding NaN and infinities (in a map, a list and a {@code double[]}). */
public class NonFinite implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("nan", Double.NaN);
        value.put("inf", Double.POSITIVE_INFINITY);
        value.put("list", new ArrayList<>(List.of(1.0, Double.NEGATIVE_INFINITY)));
        value.put("array", new double[] {Double.NaN, 2.0});
        return Map.of("j", value);
    }
}
