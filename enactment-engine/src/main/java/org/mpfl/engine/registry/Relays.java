package org.mpfl.engine.registry;

import java.net.ProxySelector;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.mpfl.protocol.relay.RelayDialer;
import org.mpfl.protocol.relay.RelayIdentity;
import org.mpfl.protocol.relay.RelayWatch;
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
    /** The id each relay address last announced, kept after a loss so that messages still name the relay. */
    private final Map<String, String> lastIds = new ConcurrentHashMap<>();
    private final List<java.util.function.BiConsumer<Relay, String>> lostListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The watches under way, each under the announcement that started it; {@link #close} stops them. */
    private final Map<Relay, RelayWatch> watches = new ConcurrentHashMap<>();
    private volatile boolean closed;
    /** Addresses whose watch broke, until their relay announces itself again. */
    private final java.util.Set<String> lostAddresses = ConcurrentHashMap.newKeySet();
    /**
     * Relay address → the hosts behind it that a relay back from a loss has not yet reported registered again
     * ({@link #registered}): its announcement comes before its hosts' links dial it again.
     */
    private final Map<String, java.util.Set<String>> unregistered = new ConcurrentHashMap<>();
    /** How long a watched relay may stay silent (it pings every second) before it counts as lost. */
    static final long WATCH_SILENCE_MS = 5000;
    /**
     * The default {@link #relayReturn()}: a relay announces itself when it starts, and a restarted JVM on a loaded
     * machine takes some seconds; the hosts' relay links register again within a second or two after that.
     */
    public static final java.time.Duration RELAY_RETURN = java.time.Duration.ofSeconds(60);
    private volatile java.time.Duration relayReturn = RELAY_RETURN;

    /**
     * How long after a relay is lost the engine waits for it and the hosts behind it, all told: a restart's wait for
     * the relay and its retried abort of those hosts share this one bound, and so does a failed run's retried abort.
     * Hosts behind a relay hear it when they announce themselves ({@code relayReturnMs}) and abort their ranks
     * once their own link to the relay has been down for as long.
     */
    public java.time.Duration relayReturn() {
        return relayReturn;
    }

    /** Sets {@link #relayReturn()} (at start-up). */
    public void relayReturn(java.time.Duration bound) {
        if (bound == null || bound.isNegative()) {
            throw new IllegalArgumentException("the relay-return bound must be at least 0");
        }
        relayReturn = bound;
    }

    /**
     * A relay's announcement at another address than the one its id is live at (two relays started with one
     * credential): refused, since hosts register only at the address their relay announced.
     */
    public static final class AddressTaken extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        AddressTaken(String message) {
            super(message);
        }
    }

    /**
     * Records a relay's announcement.
     *
     * @throws AddressTaken when the relay's id is live at another address: a second relay with the same credential
     */
    public Relay announce(String relayId, String address) {
        if (address == null || address.lastIndexOf(':') <= 0) {
            throw new IllegalArgumentException("a relay announces its address as host:port");
        }
        Relay r = new Relay(relayId, address, System.currentTimeMillis());
        Relay[] held = new Relay[1];
        relays.compute(relayId, (id, now) -> {
            held[0] = now;
            return now == null || now.address().equals(address) ? r : now;
        });
        Relay before = held[0];
        if (before != null && !before.address().equals(address)) {
            // two relays with one credential: each announcement would move the record, and hosts' registrations at the
            // other would be refused every other 10 s, while every move started one more watch that nothing stopped
            throw new AddressTaken("relay " + relayId + " is announced at " + before.address() + ", which answers the engine's"
                    + " watch: a second relay at " + address + " needs a credential of its own (mpflc host-token --relay"
                    + " --host-id NAME); a relay moved to " + address + " is taken once the engine has seen the one at "
                    + before.address() + " go (within " + WATCH_SILENCE_MS / 1000 + " s)");
        }
        lastIds.put(address, relayId);
        if (lostAddresses.remove(address)) {
            // back from a loss: the hosts behind it hold no registration there yet (their links dial it again within
            // a second or two); until it reports each registered, a call through it would not reach that host
            java.util.Set<String> behind = ConcurrentHashMap.newKeySet();
            hostRelays.forEach((host, via) -> {
                if (via.equals(address)) {
                    behind.add(host);
                }
            });
            unregistered.put(address, behind);
        }
        if (before == null && !closed) {
            // watched from its first announcement: a relay that dies fails the runs it carries at once
            watches.put(r, RelayDialer.shared().watch(address, WATCH_SILENCE_MS, why -> lost(r, why)));
        }
        return r;
    }

    /**
     * Stops every relay watch and waits for them, {@code bound} all told (the engine closing): a watch that broke
     * now would fail the runs it carries and write them to a store about to be closed, and one telling its
     * listeners already finishes first. Returns whether all ended within the bound.
     */
    public boolean close(java.time.Duration bound) {
        closed = true;
        long end = System.nanoTime() + bound.toNanos();
        boolean all = true;
        for (RelayWatch w : List.copyOf(watches.values())) {
            all &= w.stop(java.time.Duration.ofNanos(Math.max(0, end - System.nanoTime())));
        }
        watches.clear();
        return all;
    }

    /** Listeners hear of a relay whose watch broke, with the reason; it leaves the list until it announces again. */
    public void onRelayLost(java.util.function.BiConsumer<Relay, String> listener) {
        lostListeners.add(listener);
    }

    private void lost(Relay r, String why) {
        watches.remove(r);
        lostAddresses.add(r.address());
        unregistered.remove(r.address());
        // the watch belongs to the address: whatever record re-announcements left under the id goes with it
        relays.computeIfPresent(r.relayId(), (id, now) -> now.address().equals(r.address()) ? null : now);
        lostListeners.forEach(l -> l.accept(r, why));
    }

    public List<Relay> list() {
        return new ArrayList<>(relays.values());
    }

    /** Whether a relay listening at {@code address} is registered (announced itself and was not lost since). */
    public boolean live(String address) {
        return relays.values().stream().anyMatch(r -> r.address().equals(address));
    }

    /** Whether {@code hostId} announced itself as a relay. */
    public boolean isRelay(String hostId) {
        return relays.containsKey(hostId);
    }

    /** The relay a host said it holds a connection to ({@code host:port}), if any. */
    public Optional<String> relayOf(String hostId) {
        return Optional.ofNullable(hostRelays.get(hostId));
    }

    /**
     * The address of the relay {@code hostId} is reached through when that relay is lost now (it
     * announced no more since its watch broke, or never did), else empty. Such a host is healthy — it
     * still heartbeats — but neither the engine nor another site reaches it: placement leaves it out
     * (not in quarantine) until its relay announces itself again.
     */
    public Optional<String> lostRelayOf(String hostId) {
        return relayOf(hostId).filter(address -> !live(address));
    }

    /**
     * The address of the relay {@code hostId} is reached through when that relay came back from a loss and has not
     * yet reported the host registered again ({@link #registered}), else empty. Placement leaves such a host out
     * until then, as it does one behind a lost relay: the engine's calls through the relay would not reach it.
     */
    public Optional<String> unregisteredAt(String hostId) {
        return relayOf(hostId).filter(address -> unregistered.getOrDefault(address, java.util.Set.of()).contains(hostId));
    }

    /**
     * Relay {@code relayId} reports {@code hostId} registered there (it checked the host's proof with the engine, or
     * names it among its registrations): the host is placeable again if the relay came back from a loss.
     */
    public void registered(String relayId, String hostId) {
        Relay r = relays.get(relayId);
        java.util.Set<String> waiting = r == null ? null : unregistered.get(r.address());
        if (waiting != null) {
            waiting.remove(hostId);
        }
    }

    /**
     * Why {@code hostId}, healthy, cannot be reached now for its relay — lost, never announced at the address the host
     * gave, or back from a loss without the host's registration yet — else empty. Placement leaves such a host out
     * (not in quarantine) and the registry view shows the reason, so that {@code mpflc hosts} does not call it ok.
     */
    public Optional<String> unreachable(String hostId) {
        Optional<String> lost = lostRelayOf(hostId);
        if (lost.isPresent()) {
            String address = lost.get();
            if (!lastIds.containsKey(address)) {
                // nothing was lost: the host's --relay names an address no relay announces (a typo, another name for it)
                return Optional.of("reached only through a relay at " + address + ", but no relay has announced itself at "
                        + address + " (a host's --relay must be the address a relay's ready line prints; placed once a"
                        + " relay announces itself there)");
            }
            return Optional.of("reached only through relay " + nameOf(address) + " at " + address
                    + ", which is lost (placed again once the relay announces itself)");
        }
        return unregisteredAt(hostId).map(address -> "reached only through relay " + nameOf(address) + " at " + address
                + ", which is back from a loss but has not registered it again yet (placed once it has)");
    }

    /** The id of the relay listening at {@code address} (or last there, if lost), else the address itself. */
    public String nameOf(String address) {
        return relays.values().stream().filter(r -> r.address().equals(address)).map(Relay::relayId).findFirst()
                .orElse(lastIds.getOrDefault(address, address));
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

    /**
     * The id of the credential {@code proof} was made with, when it is host {@code hostId}'s proof for request
     * {@code op} at relay {@code relayId} over {@code nonce}; else empty. Only a host's credential proves a host (a
     * relay's never does). The relay keeps the id with the registration and asks about it again ({@link #stillValid}).
     */
    public Optional<String> verify(HostCredentials credentials, String relayId, String hostId, String op, String nonce,
                                   String proof) {
        return credentials.forHost(hostId)
                .filter(e -> e.kind() == HostCredentials.Kind.HOST)
                .filter(e -> RelayWire.same(RelayWire.hostProof(e.engineKey(), op, relayId, nonce, hostId), proof))
                .map(HostCredentials.Entry::id);
    }

    /**
     * Why {@code hostId} may not register at relay {@code relayId}, if it may not: a host registers only at the relay it
     * announced to the engine (its announcement's {@code relay}, the address that relay announced). Its proof alone does
     * not say so: a host proves itself to every relay it dials (to reach a peer behind it), on a plain connection, and
     * to whatever greets it at a peer's announced relay address. Had the relay registered it, that relay's directory
     * would list the host's addresses, and the hosts behind that relay, which route an address of another site through
     * their own relay when its directory lists it, would dial the host there — reaching whoever registered with the
     * passed-on proof: traffic for a host through a relay it never chose.
     */
    public Optional<String> registrationRefused(String relayId, String hostId) {
        Relay relay = relays.get(relayId);
        String chosen = hostRelays.get(hostId);
        if (relay != null && relay.address().equals(chosen)) {
            return Optional.empty();
        }
        String here = "relay " + relayId + (relay == null ? "" : " at " + relay.address());
        return Optional.of("host " + hostId + " may not register at " + here + ": "
                + (chosen == null ? "it announced no relay to the engine" : "it announced its relay to the engine as " + chosen)
                + " (a host registers only at the relay it announced; its --relay must be the address the relay announces)");
    }

    /**
     * Of the registrations a relay holds (host id → the id of the credential its proof was checked against), the host
     * ids whose credential is still that host's: a revoked credential, and one replaced by a new credential for the
     * same host id, are not (the registration was proved with a key that no longer opens anything).
     */
    public static List<String> stillValid(HostCredentials credentials, Map<String, String> credentialByHost) {
        List<String> valid = new ArrayList<>();
        credentialByHost.forEach((hostId, credentialId) -> {
            // by the credential's id: a map lookup per host, however many credentials the engine holds
            if (credentials.byId(credentialId).filter(e -> e.kind() == HostCredentials.Kind.HOST && e.hostId().equals(hostId))
                    .isPresent()) {
                valid.add(hostId);
            }
        });
        return valid;
    }

    /**
     * The {@code host:port} addresses of {@code h} as it announced them (SOAP, deploy, binary): the only ones a relay
     * lets it register, so that no other credential takes the dials meant for it.
     */
    public static List<String> addressesOf(HostInfo h) {
        java.util.Set<String> out = new java.util.LinkedHashSet<>();
        for (String url : new String[] {h.soapUrl(), h.deployUrl()}) {
            if (url != null && !url.isBlank()) {
                URI u = URI.create(url);
                if (u.getHost() != null && u.getPort() > 0) {
                    out.add(u.getHost() + ":" + u.getPort());
                }
            }
        }
        if (h.binaryAddress() != null && !h.binaryAddress().isBlank()) {
            out.add(h.binaryAddress());
        }
        return List.copyOf(out);
    }

    /**
     * Why {@code announced} may not be registered, if it may not: another host of {@code live} has one of its addresses
     * ({@link #addressesOf}) and either of the two is reached through a relay ({@code relay}: the announcing host's,
     * blank or null for none). Hosts behind relays are reached by address — the engine's route to a relay
     * ({@link RelayDialer#routeVia}), a relay's choice among the hosts registered there, the hosts' own routes — so two
     * sites with the same private addresses, or two hosts of a site that a relay would take for one, would get each
     * other's calls: the engine's deploy and {@code run} need no domain token at a relay, and would reach the other host.
     * The host that came second is refused, naming the first.
     */
    public Optional<String> addressTaken(HostInfo announced, String relay, java.util.Collection<HostInfo> live) {
        boolean relayed = relay != null && !relay.isBlank();
        List<String> mine = addressesOf(announced);
        for (HostInfo other : live) {
            if (other.hostId().equals(announced.hostId()) || !(relayed || hostRelays.containsKey(other.hostId()))) {
                continue;
            }
            for (String address : addressesOf(other)) {
                if (mine.contains(address)) {
                    String via = relayOf(other.hostId()).map(r -> ", through relay " + nameOf(r)).orElse("");
                    return Optional.of("host " + announced.hostId() + " announces " + address + ", which is host "
                            + other.hostId() + "'s (site " + other.site() + via + "): hosts behind relays are reached by"
                            + " address, so each needs addresses no other host has (another port: mpflc host --port),"
                            + " else one would get the calls and messages meant for the other");
                }
            }
        }
        return Optional.empty();
    }

    /**
     * How each ordered pair of these hosts connects, and why — the choice the hosts make when their
     * domain is set up ({@link RelayDialer}): {@code direct} within a site or where the receiving host
     * holds no relay connection (it accepts inbound connections); {@code reverse} when the receiver is
     * in another site and holds a relay connection but the sender holds none (it accepts inbound
     * connections, so the receiver connects out to it, asked through the receiver's relay);
     * {@code relay} when both hold relay connections (neither side can be reached from the other site).
     *
     * @param sites host id → site, in placement order
     */
    public List<Map<String, Object>> connections(Map<String, String> sites) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map.Entry<String, String> from : sites.entrySet()) {
            for (Map.Entry<String, String> to : sites.entrySet()) {
                if (!from.getKey().equals(to.getKey())) {
                    out.add(connection(from.getKey(), from.getValue(), to.getKey(), to.getValue()));
                }
            }
        }
        return out;
    }

    private Map<String, Object> connection(String from, String fromSite, String to, String toSite) {
        String relay = hostRelays.get(to);
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("from", from);
        m.put("to", to);
        if (fromSite.equals(toSite)) {
            m.put("method", "direct");
            m.put("why", "both hosts in site " + toSite);
        } else if (relay == null) {
            m.put("method", "direct");
            m.put("why", "host " + to + " in site " + toSite + " accepts inbound connections");
        } else if (!hostRelays.containsKey(from)) {
            m.put("method", "reverse");
            m.put("relay", nameOf(relay));
            m.put("why", "reverse, asked through " + nameOf(relay) + ": host " + to + " in site " + toSite
                    + " accepts no inbound connections, host " + from + " does, so " + to + " connects out to " + from);
        } else {
            m.put("method", "relay");
            m.put("relay", nameOf(relay));
            m.put("why", "relay via " + nameOf(relay) + ": host " + to + " in site " + toSite + " accepts no inbound connections");
        }
        return m;
    }

    /**
     * Makes this process's HTTP clients reach relayed hosts through their relays (a default proxy
     * selector that tunnels only relayed {@code https} addresses), proving itself to each relay with the
     * engine key of the relay's credential.
     */
    public void engineDialer(HostCredentials credentials) {
        RelayDialer dialer = RelayDialer.shared();
        dialer.identity(RelayIdentity.ofEngine((address, relayId) -> engineKeyFor(credentials, address, relayId)));
        ProxySelector.setDefault(dialer.proxySelector(ProxySelector.getDefault()));
    }

    /**
     * The engine key the engine proves itself with to the relay at {@code address} that greeted as {@code relayId}:
     * only that of a relay's credential (a greeting naming a host's id must not make the engine prove anything under
     * that host's key), and only where that relay announced itself (a host may announce any address as its relay;
     * what listens there could pass a real relay's greeting on and the engine's proof back to it).
     */
    Optional<String> engineKeyFor(HostCredentials credentials, String address, String relayId) {
        Relay announced = relays.get(relayId);
        if (announced == null || !announced.address().equals(address)) {
            return Optional.empty();
        }
        return credentials.forHost(relayId).filter(e -> e.kind() == HostCredentials.Kind.RELAY).map(e -> e.engineKey());
    }
}
