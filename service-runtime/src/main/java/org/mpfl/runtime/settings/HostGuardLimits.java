package org.mpfl.runtime.settings;

import java.time.Duration;
import org.mpfl.protocol.guard.ConnectionGuard;

/**
 * The limits of a host's {@link ConnectionGuard}s — one on its SOAP port, one on its binary channel,
 * each with the same limits ({@code mpfl.guard.*}, docs/security.md "Slow and flooding clients").
 */
public final class HostGuardLimits {
    /** How long an address that proved a credential at a host counts as known (its connections use the reserve). */
    public static final Duration TRUST_PROVEN_SOURCES = Duration.ofMinutes(30);

    private HostGuardLimits() {
    }

    /** From the {@code mpfl.guard.*} settings of this JVM. */
    public static ConnectionGuard.Limits fromSettings() {
        return new ConnectionGuard.Limits(Duration.ofMillis(RuntimeSettings.GUARD_PROOF_DEADLINE_MS.get()),
                RuntimeSettings.GUARD_PER_SOURCE.get(), RuntimeSettings.GUARD_STRANGERS.get(), TRUST_PROVEN_SOURCES);
    }
}
