package org.mpfl.engine.run;

import org.mpfl.protocol.RunRequest;

/**
 * How the engine talks to rank instances: the MPIWS {@code run}, {@code status} and {@code abort}
 * operations. The default implementation calls the service hosts over SOAP; tests substitute
 * in-process fakes. Every method must return or throw within a bounded time.
 */
public interface RankInvoker {
    /** Starts one rank instance; returns once the host accepted it (the rank runs on). */
    void run(RankPlacement target, RunRequest request) throws Exception;

    /**
     * Asks one rank instance how it is doing.
     *
     * @param token the domain token: the host answers the rank's outputs and failure message only to a request
     *              that proves it (state, progress and counters to anyone who knows the domain ID)
     */
    RankStatus status(RankPlacement target, String domainId, String token) throws Exception;

    /** Aborts the domain at one rank's service (blocked operations there fail fast). */
    void abort(RankPlacement target, String domainId, String token) throws Exception;

    /**
     * The health probe behind a quarantine decision: whether the rank's host answers a short read
     * well (a healthy host's answer, not an error) within a few seconds. A host that
     * was too slow to accept {@code run} but answers this is slow, not faulty — e.g. busy with
     * strangers' connections — and is not quarantined. Bounded; never throws.
     *
     * @return {@code false} when nothing answered, or when this invoker cannot probe
     */
    default boolean answersHealthProbe(RankPlacement target, String domainId) {
        return false;
    }
}
