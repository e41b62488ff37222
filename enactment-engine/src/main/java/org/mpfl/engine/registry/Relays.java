package org.mpfl.engine.registry;

import java.net.ProxySelector;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.mpfl.protocol.relay.RelayDialer;
import org.mpfl.protocol.relay.RelayWire;

/**
 * The relays the engine knows ({@code mpflc relay} announces itself with its credential) and which
 * host is reached through which relay (a host announces {@code relay} when it accepts no connection
 * from outside its site). The engine's own calls to such a host (deploy, run, status, abort) go
 * through its relay ({@link RelayDialer#routeVia}); the engine checks hosts' proofs for relays
 * ({@link #verify}), since only it holds the hosts' engine keys.
 */
public final class Relays {
    /** One relay: its id (its credential's host id), where it listens, when it last announced itself. */
    public record Relay(String relayId, String address, long lastSeenMs) {
    }

    private final Map<String, Relay> relays = new ConcurrentHashMap<>();
    private final Map<String, String> hostRelays = new ConcurrentHashMap<>();

    /** Records a relay's announcement. */
    public Relay announce(String relayId, String address) {
        if (address == null || address.lastIndexOf(':') <= 0) {
            throw new IllegalArgumentException("a relay announces its address as host:port");
        }
        Relay r = new Relay(relayId, address, System.currentTimeMillis());
        relays.put(relayId, r);
        return r;
    }

    public List<Relay> list() {
        return new ArrayList<>(relays.values());
    }

    /** Whether {@code hostId} announced itself as a relay. */
    public boolean isRelay(String hostId) {
        return relays.containsKey(hostId);
    }

    /** The relay a host said it holds a connection to ({@code host:port}), if any. */
    public Optional<String> relayOf(String hostId) {
        return Optional.ofNullable(hostRelays.get(hostId));
    }

    /** The id of the relay listening at {@code address}, else the address itself. */
    public String nameOf(String address) {
        return relays.values().stream().filter(r -> r.address().equals(address)).map(Relay::relayId).findFirst().orElse(address);
    }

    /** Host {@code h} is reached through the relay at {@code relayAddress} (null: directly again). */
    public void hostUses(HostInfo h, String relayAddress) {
        if (relayAddress == null || relayAddress.isBlank()) {
            hostRelays.remove(h.hostId());
        } else {
            hostRelays.put(h.hostId(), relayAddress);
        }
        String why = "host " + h.hostId() + " accepts no inbound connections from outside its site";
        for (String url : List.of(h.soapUrl(), h.deployUrl())) {
            URI u = URI.create(url);
            RelayDialer.shared().routeVia(u.getHost() + ":" + u.getPort(), relayAddress == null || relayAddress.isBlank()
                    ? null : relayAddress, why);
        }
    }

    /** Whether {@code proof} is host {@code hostId}'s proof for relay {@code relayId} over {@code nonce}. */
    public boolean verify(HostCredentials credentials, String relayId, String hostId, String nonce, String proof) {
        return credentials.forHost(hostId)
                .map(e -> RelayWire.same(RelayWire.hostProof(e.engineKey(), relayId, nonce, hostId), proof))
                .orElse(false);
    }

    /**
     * Makes this process's HTTP clients reach relayed hosts through their relays (a default proxy
     * selector that tunnels only relayed {@code https} addresses), proving itself to each relay with the
     * engine key of the relay's credential.
     */
    public static void engineDialer(HostCredentials credentials) {
        RelayDialer dialer = RelayDialer.shared();
        dialer.identity(new RelayDialer.Identity() {
            @Override
            public String id() {
                return RelayWire.ENGINE;
            }

            @Override
            public String proof(String relayId, String nonce) {
                return credentials.forHost(relayId).map(e -> RelayWire.engineProof(e.engineKey(), relayId, nonce)).orElse("");
            }
        });
        ProxySelector.setDefault(dialer.proxySelector(ProxySelector.getDefault()));
    }
}
