package org.mpfl.engine.registry;

/**
 * Why and until when the engine places no ranks on a host: it refused a deployment or a
 * {@code run}, or did not answer {@code run} in time, before a domain started. Kept after it ends
 * (with {@link #active} false) so a repeat offence quarantines the host for longer.
 *
 * @param reason   what the host did, readable by a user (e.g. "deploy of service 'ring' refused: HTTP 500")
 * @param sinceMs  epoch milliseconds of the latest offence
 * @param untilMs  epoch milliseconds when the host may be placed on again
 * @param offences offences in a row (reset once the host accepts work again)
 */
public record Quarantine(String reason, long sinceMs, long untilMs, int offences) {

    /** Whether the host is still kept out at {@code nowMs}. */
    public boolean active(long nowMs) {
        return nowMs < untilMs;
    }
}
