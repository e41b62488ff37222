package org.mpfl.protocol.relay;

import java.util.Optional;
import java.util.function.BiFunction;

/** Who this process is to a relay, and its proof for one connection's nonce. */
public interface RelayIdentity {
    String id();

    /**
     * The proof for request {@code op} ({@code register}, {@code dial}, {@code accept}, {@code watch}) on one
     * connection to the relay at {@code relayAddress} (as dialled) that greeted as {@code relayId} with {@code nonce};
     * empty when this process proves nothing to that relay.
     */
    String proof(String op, String relayAddress, String relayId, String nonce);

    /** A host: its id and an HMAC under its engine key over each relay's nonce (never its secret). */
    static RelayIdentity ofHost(String hostId, String engineKey) {
        return new RelayIdentity() {
            @Override
            public String id() {
                return hostId;
            }

            @Override
            public String proof(String op, String relayAddress, String relayId, String nonce) {
                return RelayWire.hostProof(engineKey, op, relayId, nonce, hostId);
            }
        };
    }

    /**
     * The engine: an HMAC under the engine key of each relay's credential ({@code engineKeyOf}: the address dialled
     * and the id the relay greeted with → key). The address is part of the question because a relay's greeting
     * proves nothing: whatever listens at an address a host announced as its relay can pass on another relay's
     * greeting, and the engine's proof with it, to that relay.
     */
    static RelayIdentity ofEngine(BiFunction<String, String, Optional<String>> engineKeyOf) {
        return new RelayIdentity() {
            @Override
            public String id() {
                return RelayWire.ENGINE;
            }

            @Override
            public String proof(String op, String relayAddress, String relayId, String nonce) {
                return engineKeyOf.apply(relayAddress, relayId).map(key -> RelayWire.engineProof(key, relayId, nonce)).orElse("");
            }
        };
    }
}
