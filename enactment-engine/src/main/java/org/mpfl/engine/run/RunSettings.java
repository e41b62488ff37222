package org.mpfl.engine.run;

import java.time.Duration;

/**
 * Timing of run control.
 *
 * @param fanOutTimeout      how long all ranks together may take to accept {@code run} (and {@code abort})
 * @param deadlockGrace      how long every live rank must be blocked, with nothing moving, to call it a deadlock
 * @param statusPollInterval how often live ranks are asked for {@code status}
 * @param hostFailureLimit   consecutive failed {@code status} calls after which a host counts as lost
 * @param transport          transport forced on ranks ({@code auto}, {@code soap}, {@code binary}, {@code local})
 */
public record RunSettings(Duration fanOutTimeout, Duration deadlockGrace, Duration statusPollInterval,
                          int hostFailureLimit, String transport) {

    public static RunSettings defaults() {
        return new RunSettings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(1), 2, "auto");
    }
}
