package org.mpfl.engine.run;

import java.time.Duration;
import org.mpfl.runtime.monitor.RunRequest;

/**
 * Calls {@code run}, {@code status} and {@code abort} on service hosts over SOAP 1.2 — the adapter
 * point for the service runtime's MPIWS client. Until that client is on the class path every call
 * fails with a message saying so (runs then fail cleanly with that cause instead of hanging).
 */
public final class SoapRankInvoker implements RankInvoker {
    private final Duration timeout;

    public SoapRankInvoker(Duration timeout) {
        this.timeout = timeout;
    }

    @Override
    public void run(RankPlacement target, RunRequest request) {
        throw new UnsupportedOperationException("the SOAP run client of service-runtime is not available yet (timeout "
                + timeout.toSeconds() + " s); cannot start rank " + request.rank() + " at " + target.endpoint().soapUrl());
    }

    @Override
    public RankStatus status(RankPlacement target, String domainId) {
        throw new UnsupportedOperationException("SOAP status client not available yet");
    }

    @Override
    public void abort(RankPlacement target, String domainId, String token) {
        throw new UnsupportedOperationException("SOAP abort client not available yet");
    }
}
