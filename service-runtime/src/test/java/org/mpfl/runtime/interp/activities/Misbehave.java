package org.mpfl.runtime.interp.activities;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/** Test activity that fails as its input {@code how} says: throw, wrong output type, missing output. */
public class Misbehave implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        String how = (String) inputs.get("how");
        return switch (how) {
            case "throw" -> throw new IllegalStateException("the solver diverged at step 7");
            case "type" -> Map.of("result", "not a number");
            case "missing" -> Map.of("other", 1.0);
            default -> Map.of("result", 1.0);
        };
    }
}
