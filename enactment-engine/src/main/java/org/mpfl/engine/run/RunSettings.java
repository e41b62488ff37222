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
 * @param quarantine         how long a host that refused a deployment or {@code run} (or did not answer
 *                           {@code run} in time) gets no ranks, the first time
 * @param quarantineMax      the cap on quarantine; each offence in a row doubles it up to this
 * @param maxReplacements    how many times one run may place its ranks again after hosts failed it
 *                           before the domain started (0: the first host fault fails the run)
 * @param queueTimeout       how long a run may wait in the run queue before it fails, unless it says otherwise
 *                           ({@link Duration#ZERO}: as long as it takes)
 */
public record RunSettings(Duration fanOutTimeout, Duration deadlockGrace, Duration statusPollInterval,
                          int hostFailureLimit, String transport, Duration quarantine, Duration quarantineMax,
                          int maxReplacements, Duration queueTimeout) {

    /** Default quarantine: a minute at first. */
    public static final Duration QUARANTINE = Duration.ofSeconds(60);
    /** Default cap on quarantine (a host failing again and again is tried once every 15 minutes). */
    public static final Duration QUARANTINE_MAX = Duration.ofMinutes(15);
    /** Default bound on re-placements per run. */
    public static final int MAX_REPLACEMENTS = 2;

    public RunSettings {
        if (quarantine.isNegative() || quarantineMax.compareTo(quarantine) < 0) {
            throw new IllegalArgumentException("quarantine must be at least 0 and at most quarantineMax");
        }
        if (maxReplacements < 0) {
            throw new IllegalArgumentException("maxReplacements must be at least 0");
        }
        if (queueTimeout == null || queueTimeout.isNegative()) {
            throw new IllegalArgumentException("queueTimeout must be at least 0 (0: no bound)");
        }
    }

    /** The timing of run control with the default quarantine and re-placement bound. */
    public RunSettings(Duration fanOutTimeout, Duration deadlockGrace, Duration statusPollInterval,
                       int hostFailureLimit, String transport) {
        this(fanOutTimeout, deadlockGrace, statusPollInterval, hostFailureLimit, transport, QUARANTINE, QUARANTINE_MAX,
                MAX_REPLACEMENTS, Duration.ZERO);
    }

    public static RunSettings defaults() {
        return new RunSettings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(1), 2, "auto");
    }

    /** These settings with another quarantine policy. */
    public RunSettings withQuarantine(Duration first, Duration max, int replacements) {
        return new RunSettings(fanOutTimeout, deadlockGrace, statusPollInterval, hostFailureLimit, transport, first, max,
                replacements, queueTimeout);
    }

    /** These settings with another default bound on the time a run waits in the queue ({@link Duration#ZERO}: none). */
    public RunSettings withQueueTimeout(Duration timeout) {
        return new RunSettings(fanOutTimeout, deadlockGrace, statusPollInterval, hostFailureLimit, transport, quarantine,
                quarantineMax, maxReplacements, timeout);
    }
}
