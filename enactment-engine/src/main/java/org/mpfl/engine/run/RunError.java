package org.mpfl.engine.run;

/**
 * Why a run failed.
 *
 * @param rank     the world rank that failed or was found stuck, or {@code null} when no rank is to blame
 * @param location source location {@code file:line:col} of the failing activity, or the host URL when
 *                 a host was lost, or {@code null}
 * @param message  what happened, readable by a user
 */
public record RunError(Integer rank, String location, String message) {
    /** A cancelled run's message: {@code cancelled by user}, or {@code cancelled: REASON} when the canceller said why. */
    public static String cancelled(String reason) {
        return reason == null ? "cancelled by user" : "cancelled: " + reason;
    }
}
