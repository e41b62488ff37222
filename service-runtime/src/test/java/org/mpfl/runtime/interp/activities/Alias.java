package org.mpfl.runtime.interp.activities;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/** Test activity: hands its input array {@code a} back as it is, as output {@code b} and (updated in place) as {@code c}. */
public class Alias implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        double[] a = (double[]) inputs.get("a");
        a[2] = 7.0;
        return Map.of("b", a, "c", a, "a", a);
    }
}
