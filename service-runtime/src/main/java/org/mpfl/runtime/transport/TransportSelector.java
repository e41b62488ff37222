package org.mpfl.runtime.transport;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.util.Locale;
import org.mpfl.protocol.Endpoint;

/**
 * Chooses the transport for each peer, like Open MPI's transport selection: {@code local} when the
 * peer lives in this host process (same {@code hostId}); else {@code binary} when the peer's
 * endpoint advertises a binary address and it answered the probe made when the domain was set up
 * in this host ({@link DomainTransports}: once per domain and peer host, bounded); else {@code soap}. A mode forces one transport: {@code auto} (the
 * default), {@code local}, {@code binary} or {@code soap} — from {@code RunRequest.transport} or the
 * system property {@code mpfl.transport}. A forced transport that cannot reach the peer is a final
 * error (no silent fallback, so benchmarks measure what they say); a forced binary channel that does
 * not answer fails stores retryably (the sender retries until its delivery deadline).
 *
 * <p>The SOAP transport is supplied by the service host (Axis2 lives there); a selector built with
 * {@code soap == null} works with local and binary only.
 */
public final class TransportSelector implements AutoCloseable {
    /** System property forcing a transport for every domain of this JVM that does not force one itself. */
    public static final String MODE_PROPERTY = RuntimeSettings.TRANSPORT.name();

    private final Transport local;
    private final Transport binary;
    private final Transport soap;

    /**
     * @param local  the in-JVM transport (required)
     * @param binary the binary TCP transport, or {@code null} when this host offers none
     * @param soap   the SOAP/MTOM transport, or {@code null} when this host has no Axis2 client
     */
    public TransportSelector(Transport local, Transport binary, Transport soap) {
        this.local = local;
        this.binary = binary;
        this.soap = soap;
    }

    /** The mode to use: the given one if set, else the system property, else {@code auto}. */
    public static String effectiveMode(String requested) {
        String mode = requested;
        if (mode == null || mode.isBlank()) {
            mode = RuntimeSettings.TRANSPORT.get();
        }
        mode = mode.trim().toLowerCase(Locale.ROOT);
        return switch (mode) {
            case "auto", "local", "binary", "soap" -> mode;
            default -> throw new IllegalArgumentException("unknown transport '" + mode
                    + "' (expected auto, local, binary or soap)");
        };
    }

    /**
     * The transports of a domain being set up in this host, with {@code endpoints} its ranks' endpoints:
     * in auto mode this starts the probe of the other hosts' binary channels, on {@code probes}.
     */
    public DomainTransports forDomain(String domainId, java.util.List<Endpoint> endpoints, String requestedMode,
                                      java.util.concurrent.Executor probes) {
        return new DomainTransports(domainId, local, binary, soap, endpoints, requestedMode, probes,
                DomainTransports.PROBE_TIMEOUT_MS);
    }

    @Override
    public void close() {
        local.close();
        if (binary != null) {
            binary.close();
        }
        if (soap != null) {
            soap.close();
        }
    }
}
