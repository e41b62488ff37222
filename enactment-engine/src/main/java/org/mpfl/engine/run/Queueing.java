package org.mpfl.engine.run;

import java.time.Duration;

/**
 * How one run takes its place in the run queue and on the hosts.
 *
 * @param priority      higher first; among equal priorities, first come first served (by when the run was accepted)
 * @param oversubscribe whether its ranks may exceed hosts' capacities instead of waiting (as mpirun's
 *                      {@code --oversubscribe})
 * @param queueTimeout  how long it may wait in the queue before it fails ({@code null}: the engine's default;
 *                      {@link Duration#ZERO}: as long as it takes)
 * @param sites         the sites it asks to be placed on ({@code null}: packed within one site while capacity allows)
 */
public record Queueing(int priority, boolean oversubscribe, Duration queueTimeout, SiteRequest sites) {
    /** Priority 0, capacities honoured, the engine's queue timeout. */
    public static final Queueing DEFAULT = new Queueing(0, false, null);

    /** Without a site request. */
    public Queueing(int priority, boolean oversubscribe, Duration queueTimeout) {
        this(priority, oversubscribe, queueTimeout, null);
    }

    public Queueing {
        if (queueTimeout != null && queueTimeout.isNegative()) {
            throw new IllegalArgumentException("the queue timeout must be at least 0 (0: no bound)");
        }
    }
}
