package org.mpfl.engine.run;

import org.mpfl.protocol.RankEvent;

/**
 * Where a rank is, as its {@code ACTIVITY} and {@code WAIT} events say: the activity and source location it
 * reached, and whether (and for what) it waits there — what the deadlock watch reads. A run of the engine
 * ({@link Run}) and a run of ranks in the command line's JVM ({@code engine.local.InProcessRun}) fold the events
 * the same way.
 *
 * @param waitingFor what the rank waits for ({@code "receive from 3"}), or {@code null}
 */
public record RankPosition(String activity, String location, boolean blocked, String waitingFor) {

    /** A rank that reported nothing yet. */
    public static final RankPosition NONE = new RankPosition(null, null, false, null);

    /**
     * The position after {@code e}: an {@code ACTIVITY} moves the rank on (no longer waiting); a {@code WAIT}
     * blocks it, at the activity and location it names if it names them; any other event leaves it.
     */
    public RankPosition after(RankEvent e) {
        return switch (e.type()) {
            case ACTIVITY -> new RankPosition(e.activity(), e.location(), false, null);
            case WAIT -> new RankPosition(e.activity() != null ? e.activity() : activity,
                    e.location() != null ? e.location() : location, true, e.message());
            default -> this;
        };
    }
}
