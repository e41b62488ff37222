package org.mpfl.runtime.transport;

import java.util.Optional;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.relay.RelayDialer;

/**
 * How long the binary channel's set-up probe waits for one peer's HELLO, by the method this host
 * connects to the peer with ({@link RelayDialer}). A direct peer gets the configured time-out
 * ({@code mpfl.binary.probeTimeoutMs}, 1 s: far above a LAN's round trip). A peer reached through a
 * relay or by a reverse connection gets at least what that method itself may take
 * ({@link RelayDialer#indirectWaitMs}: the relay's splice wait, 10 s, or the wait for a reverse
 * connection, 15 s): the far host answers only once its rank's domain is open there, its proof is
 * checked by the engine, and TLS runs end to end over two WAN hops — seconds on a loaded machine. A
 * shorter probe gives up on a pair whose connection would still arrive, and the domain then carries
 * that pair over SOAP for its whole life; the longer bound costs only when the binary channel really
 * does not answer (once per domain and peer, as for a firewalled port).
 */
public final class ProbeTimeouts {
    private ProbeTimeouts() {
    }

    /** The probe's time-out for {@code peer}'s binary address, at least {@code directMs}. */
    public static long forPeer(Endpoint peer, long directMs) {
        String address = peer.binaryAddress();
        int colon = address == null ? -1 : address.lastIndexOf(':');
        if (colon < 0) {
            return directMs;
        }
        Optional<Long> indirect;
        try {
            indirect = RelayDialer.shared().indirectWaitMs(peer, address.substring(0, colon),
                    Integer.parseInt(address.substring(colon + 1)));
        } catch (NumberFormatException e) {
            return directMs;
        }
        return indirect.map(w -> Math.max(directMs, w)).orElse(directMs);
    }

    /** Whether {@code peer}'s binary address is reached directly (not through a relay or a reverse connection). */
    public static boolean direct(Endpoint peer) {
        return forPeer(peer, 0) == 0;
    }
}
