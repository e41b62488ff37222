package org.mpfl.runtime.monitor;

import org.mpfl.protocol.FaultKind;

/**
 * A rank failure that knows where it happened in the workflow document. When a rank program throws
 * one, the host reports the rank FAILED with this activity and location and with the exception's
 * message alone (no exception class name), so the run's error reads as the user wrote the workflow, and with
 * its {@linkplain #fault() kind}, by which the engine decides whether the run may restart.
 */
public interface LocatedFailure {
    /** The failing activity ({@code "receive"}, {@code "compute org.x.Step"}), or {@code null}. */
    String activity();

    /** Source location {@code file:line:col} of the failing activity or expression, or {@code null}. */
    String location();

    /**
     * Whose fault it is, decided where the failure was raised (the engine never reads it from the message):
     * {@link FaultKind#INFRASTRUCTURE} only for a peer unreachable and a kernel worker killed from outside.
     */
    FaultKind fault();
}
