package org.mpfl.engine.run;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.mpfl.engine.json.Json;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * Calls {@code run}, {@code status} and {@code abort} on service hosts over SOAP 1.2 with the service
 * runtime's {@link MpiwsClient} (every call bounded by the timeout). {@code abort} carries the proof
 * of the domain token, so only the engine that created a domain can abort it; {@code status} carries
 * its own proof, without which a host leaves a rank's outputs and failure message out of the answer
 * (the health probe needs neither: it sends none); {@code run} carries the
 * engine's key for the target host (a host refuses {@code run} without it), never the admin token.
 */
public final class SoapRankInvoker implements RankInvoker, AutoCloseable {
    /** How long the health probe waits: seconds, far below the fan-out time-out it follows. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

    private final MpiwsClient client;
    private final MpiwsClient probe;
    private final Function<String, String> authorizations;

    /**
     * @param authorizations the {@code Authorization} header for {@code run} at a host id (the engine's
     *                       key for that host), or {@code null} for a host without a credential
     */
    public SoapRankInvoker(Duration timeout, Function<String, String> authorizations) {
        this(timeout, authorizations, TlsSettings.NONE);
    }

    /** An invoker whose {@code https} calls verify hosts against the TLS settings' CA ({@code --tls-ca}). */
    public SoapRankInvoker(Duration timeout, Function<String, String> authorizations, TlsSettings tls) {
        this.client = new MpiwsClient(timeout, tls);
        this.probe = new MpiwsClient(PROBE_TIMEOUT.compareTo(timeout) < 0 ? PROBE_TIMEOUT : timeout, tls);
        this.authorizations = authorizations;
    }

    @Override
    public void run(RankPlacement target, RunRequest request) throws Exception {
        client.run(target.endpoint().soapUrl(), request, authorizations.apply(target.hostId()));
    }

    @Override
    public RankStatus status(RankPlacement target, String domainId, String token) throws Exception {
        org.mpfl.protocol.RankStatus s = client.status(target.endpoint().soapUrl(), domainId, target.rank(),
                new DomainToken(token).proveStatus(domainId, target.rank()));
        Map<String, Object> counters = null;
        if (s.countersJson() != null && !s.countersJson().isBlank()) {
            counters = Json.MAPPER.readValue(s.countersJson(), Json.MAPPER.getTypeFactory()
                    .constructMapType(Map.class, String.class, Object.class));
        }
        Map<String, Object> outputs = new LinkedHashMap<>();
        if (s.outputsJson() != null) {
            for (Map.Entry<String, String> o : s.outputsJson().entrySet()) {
                outputs.put(o.getKey(), o.getValue() == null ? null : Json.MAPPER.readValue(o.getValue(), Object.class));
            }
        }
        return new RankStatus(s.state().toUpperCase(Locale.ROOT),
                Double.isNaN(s.progressValue()) ? null : s.progressValue(),
                Double.isNaN(s.progressTotal()) ? null : s.progressTotal(), s.failure(), counters, outputs, s.fault());
    }

    @Override
    public void abort(RankPlacement target, String domainId, String token) throws Exception {
        client.abort(target.endpoint().soapUrl(), domainId, new DomainToken(token).proveAbort(domainId));
    }

    /**
     * A {@code status} read of the domain at the rank's host, answered well within {@link #PROBE_TIMEOUT}
     * (a healthy host answers it for any domain, "unknown" too; an error status is no health).
     */
    @Override
    public boolean answersHealthProbe(RankPlacement target, String domainId) {
        try {
            probe.status(target.endpoint().soapUrl(), domainId, target.rank());
            return true;
        } catch (MpiwsClient.MpiwsCallException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public void close() {
        probe.close();
        client.close();
    }
}
