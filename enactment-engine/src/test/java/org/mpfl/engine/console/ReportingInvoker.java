package org.mpfl.engine.console;

import java.util.LinkedHashMap;
import java.util.Map;
import org.mpfl.engine.run.RankInvoker;
import org.mpfl.engine.run.RankPlacement;
import org.mpfl.engine.run.RankStatus;
import org.mpfl.runtime.monitor.RunRequest;

/**
 * The engine's real SOAP invoker, plus one thing for the console tests: the rank's event callback
 * address is handed to the rank program in an extra parameter ({@link ActivityReporter#CALLBACK_PARAM}),
 * so that hand-written test programs can report ACTIVITY and WAIT events with source locations the
 * way the MPFL rank interpreter does. The run's own parameters (what the engine shows) are unchanged.
 */
final class ReportingInvoker implements RankInvoker {
    private final RankInvoker delegate;

    ReportingInvoker(RankInvoker delegate) {
        this.delegate = delegate;
    }

    @Override
    public void run(RankPlacement target, RunRequest r) throws Exception {
        Map<String, Object> params = new LinkedHashMap<>(r.params() == null ? Map.of() : r.params());
        params.put(ActivityReporter.CALLBACK_PARAM, r.callbackUrl());
        delegate.run(target, new RunRequest(r.domainId(), r.rank(), r.endpoints(), r.processes(), params, r.token(),
                r.callbackUrl(), r.transport()));
    }

    @Override
    public RankStatus status(RankPlacement target, String domainId) throws Exception {
        return delegate.status(target, domainId);
    }

    @Override
    public void abort(RankPlacement target, String domainId, String token) throws Exception {
        delegate.abort(target, domainId, token);
    }
}
