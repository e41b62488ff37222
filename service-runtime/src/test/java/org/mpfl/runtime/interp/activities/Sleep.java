package org.mpfl.runtime.interp.activities;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/** Test activity: a long computation (30 s) that honours interrupts, as blocking library code does. */
public class Sleep implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) throws InterruptedException {
        Thread.sleep(30_000);
        return Map.of();
    }
}
