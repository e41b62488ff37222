package org.mpfl.runtime.interp.activities;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/** Test activity whose answer the compiler cannot know: whether this rank should receive first (every rank says yes). */
public class Decide implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        return Map.of("receiveFirst", true);
    }
}
