package org.mpfl.samples.common;

import java.util.Map;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;

/**
 * The rank's monotonic clock, since MPFL has no clock built-in.
 *
 * <p>{@code <compute class="org.mpfl.samples.common.Clock" out="now"/>} sets the {@code long}
 * variable {@code now} to {@link System#nanoTime()} in microseconds. Only differences between two
 * readings on the same rank mean anything. Two readings around an operation include the cost of one
 * compute call (a few microseconds), which the samples accept.
 */
public final class Clock implements Activity {
    @Override
    public Map<String, Object> execute(Map<String, Object> inputs, ActivityContext context) {
        return Map.of("now", System.nanoTime() / 1000L);
    }
}
