package org.mpfl.runtime.transport;

import java.util.Optional;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.relay.RelayDialer;
import org.mpfl.runtime.settings.RuntimeSettings;

/**
 * How long the binary channel's set-up probe waits for one peer, in two steps, by the method this host
 * connects to the peer with ({@link RelayDialer}).
 *
 * <p><b>The connection.</b> A direct peer's port must take the connection within the configured
 * time-out ({@code mpfl.binary.probeTimeoutMs}, 1 s: far above a LAN's round trip). This is the question
 * a firewall answers: a port that drops the connection costs this, once per domain. A peer reached
 * through a relay or by a reverse connection gets at least what that method itself may take
 * ({@link RelayDialer#indirectWaitMs}: the relay's splice wait, 10 s, or the wait for a reverse
 * connection, 15 s): the far host answers only once its rank's domain is open there and its proof is
 * checked by the engine, seconds on a loaded machine.
 *
 * <p><b>The answer.</b> Once connected, the peer's TLS handshake and HELLO get {@link #ANSWER_MS} more
 * ({@code mpfl.binary.probeAnswerMs}, 3 s). That is CPU at both ends, not the network: on a 2-core
 * machine at a load of 8, under a flood of handshakes at one end, a TLS probe took 400–460 ms instead of
 * 80–100 ms, and in a full test suite one took more than 1 s. A probe that gives up on an answer still on
 * its way sends a working pair to SOAP for the domain's whole life; the longer wait costs only when a
 * port takes connections but never says HELLO.
 */
public final class ProbeTimeouts {
    /** How long a connected probe waits for the peer's TLS handshake and HELLO ({@code mpfl.binary.probeAnswerMs}). */
    public static final long ANSWER_MS = RuntimeSettings.BINARY_PROBE_ANSWER_MS.get();

    /**
     * How long after a domain's set-up a relayed or reverse peer whose probe got no answer is dialled again (60 s).
     * Its far host answers only once its rank's domain is open there, and a loaded engine's run call to it, with the
     * relay's check of its proof, took longer than the relay's 10 s wait (SiteAdmissionTest at load ~27): one dial
     * sent a working pair to SOAP for the domain's life. Messages could not reach that rank before its domain opens
     * over SOAP either; the longer wait costs only a first message to a relayed peer whose binary port never answers.
     */
    public static final long INDIRECT_SETUP_MS = 60_000;

    private ProbeTimeouts() {
    }

    /** How long the probe's connection to {@code peer}'s binary address may take, at least {@code directMs}. */
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

    /** The whole probe of {@code peer} at most: its connection ({@link #forPeer}), then its answer ({@link #ANSWER_MS}). */
    public static long total(Endpoint peer, long directMs) {
        return forPeer(peer, directMs) + ANSWER_MS;
    }

    /**
     * The set-up probe of {@code peer} at most, as a message to it waits for it: {@link #total} for a direct peer; for
     * an indirect one the dials again until {@link #INDIRECT_SETUP_MS}, then its last dial's {@link #total}.
     */
    public static long setup(Endpoint peer, long directMs) {
        return direct(peer) ? total(peer, directMs) : INDIRECT_SETUP_MS + total(peer, directMs);
    }

    /** Whether {@code peer}'s binary address is reached directly (not through a relay or a reverse connection). */
    public static boolean direct(Endpoint peer) {
        return forPeer(peer, 0) == 0;
    }
}
