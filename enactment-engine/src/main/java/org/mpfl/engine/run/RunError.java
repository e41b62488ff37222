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
    /**
     * A cancelled run's message: {@code cancelled by alice} (a logged-in user; {@code by user} for the admin token, which
     * names nobody), or {@code cancelled: REASON} when the canceller said why ({@code --timeout 10 s passed}).
     *
     * @param by the user who cancelled, or {@code null}
     */
    public static String cancelled(String reason, String by) {
        return reason != null ? "cancelled: " + reason : "cancelled by " + (by == null ? "user" : by);
    }
}
