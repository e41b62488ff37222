package org.mpfl.bench.mediator.exchange;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/** {@code out="now"}: the rank's monotonic clock in microseconds (the document times its own loop with it). */
public final class ExchangeClock implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        return Map.of("now", System.nanoTime() / 1000);
    }
}
