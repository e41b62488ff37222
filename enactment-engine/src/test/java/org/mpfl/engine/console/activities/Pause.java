package org.mpfl.engine.console.activities;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/**
 * A compute activity that only takes time: sleeps the run's {@code pauseMs} parameter (in short
 * slices, so that an abort interrupting the rank ends it at once). Packaged into
 * {@code console-activities.jar} by the console tests and into the sweep document's library by
 * {@code SweepTest}.
 */
public class Pause implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) throws Exception {
        long ms = ((Number) context.params().getOrDefault("pauseMs", 50)).longValue();
        long end = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() < end) {
            Thread.sleep(Math.min(50, Math.max(1, (end - System.nanoTime()) / 1_000_000L)));
        }
        return Map.of();
    }
}
