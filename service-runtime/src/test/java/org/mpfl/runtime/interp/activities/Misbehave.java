package org.mpfl.runtime.interp.activities;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/**
 * Test activity that fails as its input {@code how} says: throw, wrong output type, missing output, or one of the
 * JVM's errors (a runaway recursion, a failed assertion, an allocation larger than the heap).
 */
public class Misbehave implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        String how = (String) inputs.get("how");
        return switch (how) {
            case "throw" -> throw new IllegalStateException("the solver diverged at step 7");
            case "type" -> Map.of("result", "not a number");
            case "missing" -> Map.of("other", 1.0);
            case "recurse" -> Map.of("result", (double) depth(0));
            case "assert" -> throw new AssertionError("the mesh has no cells");
            // larger than any test JVM's heap: refused at once, without taking memory
            case "heap" -> Map.of("result", (double) new long[Integer.MAX_VALUE - 8].length);
            default -> Map.of("result", 1.0);
        };
    }

    private static int depth(int n) {
        return 1 + depth(n + 1);
    }
}
