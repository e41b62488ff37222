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
}
