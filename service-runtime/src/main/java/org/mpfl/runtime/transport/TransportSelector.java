package org.mpfl.runtime.transport;

import java.util.Locale;
import org.mpfl.protocol.Endpoint;

/**
 * Chooses the transport for each peer, like Open MPI's transport selection: {@code local} when the
 * peer lives in this host process (same {@code hostId}); else {@code binary} when the peer's
 * endpoint advertises a binary address and it answers (checked once per address, at the first
 * message of a domain to it); else {@code soap}. A mode forces one transport: {@code auto} (the
 * default), {@code local}, {@code binary} or {@code soap} — from {@code RunRequest.transport} or the
 * system property {@code mpfl.transport}. A forced transport that cannot reach the peer is a final
 * error (no silent fallback, so benchmarks measure what they say); a binary address that does not
 * answer is a retryable one (the sender retries until its delivery deadline).
 *
 * <p>The SOAP transport is supplied by the service host (Axis2 lives there); a selector built with
 * {@code soap == null} works with local and binary only.
 */
public final class TransportSelector implements AutoCloseable {
    /** System property forcing a transport for every domain of this JVM that does not force one itself. */
    public static final String MODE_PROPERTY = "mpfl.transport";

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
            mode = System.getProperty(MODE_PROPERTY, "auto");
        }
        mode = mode.trim().toLowerCase(Locale.ROOT);
        return switch (mode) {
            case "auto", "local", "binary", "soap" -> mode;
            default -> throw new IllegalArgumentException("unknown transport '" + mode
                    + "' (expected auto, local, binary or soap)");
        };
    }

    /** The transport to carry messages to {@code peer}. */
    public Transport select(Endpoint peer, String requestedMode) throws TransportException {
        String mode = effectiveMode(requestedMode);
        switch (mode) {
            case "local":
                if (local.reaches(peer)) {
                    return local;
                }
                throw unreachable(mode, peer, "the peer lives in another host process (" + peer.hostId() + ")");
            case "binary":
                if (binary == null) {
                    throw unreachable(mode, peer, "this host offers no binary channel");
                }
                if (binary.reaches(peer)) {
                    return binary;
                }
                if (peer.binaryAddress() == null) {
                    throw unreachable(mode, peer, "the peer advertises no binary address");
                }
                // the peer host may be (re)starting: retryable, the sender keeps trying until its deadline
                throw new TransportException("transport binary cannot reach " + peer.soapUrl() + ": its binary address "
                        + peer.binaryAddress() + " does not answer", false, null);
            case "soap":
                if (soap == null) {
                    throw unreachable(mode, peer, "this host has no SOAP transport");
                }
                return soap;
            default:
                if (local.reaches(peer)) {
                    return local;
                }
                if (binary != null && peer.binaryAddress() != null && binary.reaches(peer)) {
                    return binary;
                }
                if (soap != null) {
                    return soap;
                }
                if (binary != null && peer.binaryAddress() != null) {
                    throw new TransportException("no transport reaches " + peer.soapUrl() + ": its binary address "
                            + peer.binaryAddress() + " does not answer and this host has no SOAP transport", false, null);
                }
                throw unreachable(mode, peer, "neither the local nor the binary transport reaches it and this "
                        + "host has no SOAP transport");
        }
    }

    private static TransportException unreachable(String mode, Endpoint peer, String why) {
        return new TransportException("transport " + mode + " cannot reach " + peer.soapUrl() + ": " + why, true, null);
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
