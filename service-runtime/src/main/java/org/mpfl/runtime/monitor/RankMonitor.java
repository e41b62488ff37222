package org.mpfl.runtime.monitor;

import java.util.List;
import org.mpfl.protocol.RunRequest;

/**
 * What a rank's host offers a rank program beyond {@link org.mpfl.runtime.api.RankContext}: the
 * MPMD layout of the domain, and the monitoring events that drive the engine's timeline and its
 * deadlock detector ({@link RankEvent.Type#ACTIVITY}, {@link RankEvent.Type#WAIT}). The service
 * host's rank context implements it; a program checks with {@code instanceof} and does without
 * when it is absent (hand-made contexts in tests and embedding).
 */
public interface RankMonitor {

    /**
     * The processes of the domain in world-rank order with their rank counts ({@code run}'s content);
     * empty when the run request did not say.
     */
    List<RunRequest.ProcessSlice> processes();

    /**
     * The rank started an activity ({@code "receive"}, {@code "compute org.x.Step"}) at a source
     * location ({@code file:line:col}, or {@code null}); also clears a previous {@link #waiting}.
     */
    void activity(String activity, String location);

    /**
     * The rank is blocked in {@code activity} at {@code location}, waiting for what {@code waitingFor}
     * says ({@code "receive from 3 tag 0 comm world"}: world ranks, so that wait-for edges can be followed).
     */
    void waiting(String activity, String location, String waitingFor);

    /**
     * A batch of finished operations of the rank for the engine's trace ({@code RankEvent.Type.SPANS}):
     * {@code {"spans":[{name, cat, ts, dur, lane, peer, tag, bytes, loc}…], "dropped":{activity:{count, durUs}}}}
     * (times in epoch microseconds). A monitor that keeps no trace ignores it.
     */
    default void spans(java.util.Map<String, Object> batch) {
    }
}
