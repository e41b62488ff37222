package org.mpfl.protocol.relay;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.URI;
import java.nio.channels.SocketChannel;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;

/**
 * How this process opens a TCP connection to another component's {@code host:port}: directly, or
 * through a relay ({@link RelayServer}) — the one place where that is decided, for SOAP between
 * ranks, the binary channel, and (through {@link #proxySelector()}) the engine's HTTP calls to hosts.
 *
 * <p>The method per address: an explicit route ({@link #routeVia}, how the engine reaches a host that
 * announced a relay); else, for an address in the directory of this host's relay, {@code direct} when
 * both are in the same site, {@code relay} when the sites differ, and when a site is unknown a
 * direct attempt first ({@link #PROBE_MS}), then the relay; else, when this process holds no relay
 * connection (it accepts inbound connections) and the address is a peer's of another site that
 * accepts none ({@link Endpoint#relay}), a {@code reverse} connection: the peer connects out to this
 * host, asked through its relay ({@link ReverseConnections}), and the relay splices only when that
 * fails; else direct. The choice is kept per
 * address ({@link #method}) so that it is made once, when a domain first connects, and can be shown.
 *
 * <p>A relayed connection is returned after the relay spliced it: the caller then speaks its own
 * protocol, TLS first where it uses TLS, to the host it named — the relay only copies bytes.
 */
public final class RelayDialer {
    /** How long a direct attempt to an address of unknown site may take before the relay is tried. */
    public static final int PROBE_MS = 1500;
    /**
     * How long a reverse connection may take to arrive: the far host answers once its rank's domain
     * is open there ({@code RelayLink#DOMAIN_WAIT_MS}, 10 s, as the relay's own splice wait) and then
     * connects out within {@link #PROBE_MS}.
     */
    static final int REVERSE_WAIT_MS = 15_000;
    /** How long a relay waits for the far host's end of a splice ({@code RelayServer.Limits#spliceWait} by default). */
    static final long SPLICE_WAIT_MS = 10_000;
    private static final RelayDialer SHARED = new RelayDialer();

    /** Which domain (and its token) this host would use to connect to an address, if any. */
    @FunctionalInterface
    public interface DomainKeys {
        /**
         * The key of domain {@code domainId} if it is live here and has a rank at {@code hostPort}; for a {@code null}
         * domain, any live domain of this host with a rank there; else empty. A connection made for one domain is
         * proven with that domain's token, never with another domain's that reaches the same address (two runs on
         * the same pair of hosts: the other run may end, or never have admitted this connection).
         */
        Optional<SpliceKey> forTarget(String domainId, String hostPort);
    }

    /** A domain's relay tag ({@link DomainToken#relayTag}) and token. */
    public record SpliceKey(String tag, DomainToken token) {
    }

    /** A method chosen for an address: {@code direct}, {@code reverse} or {@code relay}, the relay's address, and why. */
    public record Method(String kind, String relay, String why) {
        @Override
        public String toString() {
            return switch (kind) {
                case "relay" -> "relay via " + relay + ": " + why;
                case "reverse" -> "reverse, asked through " + relay + ": " + why;
                default -> "direct: " + why;
            };
        }
    }

    private final Map<String, String> explicitRoutes = new ConcurrentHashMap<>();
    private final Map<String, Method> methods = new ConcurrentHashMap<>();
    private final Map<String, String> directory = new ConcurrentHashMap<>();
    private volatile RelayIdentity identity;
    private volatile String ownRelay;
    private volatile String ownSite = "";
    private volatile DomainKeys domainKeys = (domainId, target) -> Optional.empty();
    private volatile LocalProxy proxy;
    private volatile Function<String, Optional<Endpoint>> peers = target -> Optional.empty();
    private volatile String reverseBind;
    private ReverseConnections reverse;
    private volatile Consumer<String> log = message -> { };

    /** The one dialer of this process. */
    public static RelayDialer shared() {
        return SHARED;
    }

    /** Who this process is at relays (a host: its credential; the engine: its relays' keys). */
    public void identity(RelayIdentity id) {
        this.identity = id;
    }

    /** This host's relay ({@code host:port}) and its site (blank: unknown). */
    public void ownRelay(String relayAddress, String site) {
        this.ownRelay = relayAddress;
        this.ownSite = known(site);
    }

    /** A site name, blank when unknown: the default site says nothing about where a host is. */
    static String known(String site) {
        return site == null || site.equals(org.mpfl.protocol.Sites.DEFAULT) ? "" : site;
    }

    public void domainKeys(DomainKeys keys) {
        this.domainKeys = keys;
    }

    /** The endpoint of a live domain's rank at a {@code host:port} (SOAP or binary), if any: its site and relay. */
    public void peers(Function<String, Optional<Endpoint>> endpointAt) {
        this.peers = endpointAt;
    }

    /**
     * This host accepts inbound connections on {@code bindAddress}: it may ask peers behind relays to
     * connect out to it there (a port of its own, opened on the first reverse connection).
     */
    public void acceptsReverseOn(String bindAddress) {
        this.reverseBind = bindAddress;
    }

    /** Where the first choice of a method per address, and a fallback, is told (a host's log). */
    public void log(Consumer<String> sink) {
        this.log = sink;
    }

    /** Tells {@code message} where {@link #log} said. */
    void report(String message) {
        log.accept(message);
    }

    /** Reaches {@code hostPort} through the relay at {@code relayAddress} (null: directly again). */
    public void routeVia(String hostPort, String relayAddress, String why) {
        if (relayAddress == null) {
            explicitRoutes.remove(hostPort);
            methods.remove(hostPort);
        } else {
            explicitRoutes.put(hostPort, relayAddress);
            methods.put(hostPort, new Method("relay", relayAddress, why));
        }
    }

    /** The relay's directory as its control connection last told it: {@code host:port} → site. */
    void directory(Map<String, String> addresses) {
        directory.keySet().retainAll(addresses.keySet());
        addresses.forEach((a, site) -> directory.put(a, known(site)));
    }

    /** The method used (or chosen) for {@code hostPort}, if this process connected to it or was told. */
    public Optional<Method> method(String hostPort) {
        return Optional.ofNullable(methods.get(hostPort));
    }

    /** Every method chosen so far, by address. */
    public Map<String, Method> methods() {
        return new LinkedHashMap<>(methods);
    }

    /** Whether connections to {@code hostPort} go through a relay (as far as decided now). */
    public boolean relayed(String hostPort) {
        Method m = methods.get(hostPort);
        return m != null && "relay".equals(m.kind());
    }

    /**
     * A connected blocking channel to {@code host:port}, direct or spliced through a relay.
     *
     * @throws IOException naming the relay when the relay refused or could not be reached
     */
    public SocketChannel connect(String host, int port, int timeoutMs) throws IOException {
        return connect(null, null, host, port, timeoutMs);
    }

    /**
     * As {@link #connect(String, int, int)}, for a caller that knows the peer's endpoint ({@code peer},
     * its site and relay; null: look it up): the binary channel's set-up probe dials while the domain
     * is still opening here, before the host's registry can name the peer.
     */
    public SocketChannel connect(Endpoint peer, String host, int port, int timeoutMs) throws IOException {
        return connect(null, peer, host, port, timeoutMs);
    }

    /**
     * As {@link #connect(Endpoint, String, int, int)}, for domain {@code domainId} ({@code null}: any live
     * domain of this host with a rank there): a splice or a reverse connection is proven with that domain's
     * token only, so it belongs to that domain — the caller keeps it for that domain's traffic.
     */
    public SocketChannel connect(String domainId, Endpoint peer, String host, int port, int timeoutMs) throws IOException {
        String hostPort = host + ":" + port;
        String relay = explicitRoutes.get(hostPort);
        if (relay != null) {
            return viaRelay(relay, hostPort, timeoutMs, domainId);
        }
        Method chosen = methods.get(hostPort);
        if (chosen != null) {
            return switch (chosen.kind()) {
                case "relay" -> viaRelay(chosen.relay(), hostPort, timeoutMs, domainId);
                case "reverse" -> reverseOrRelay(chosen, hostPort, timeoutMs, domainId);
                default -> direct(host, port, timeoutMs);
            };
        }
        String mine = ownRelay;
        Optional<Method> reverse = reverseFor(hostPort, peer);
        if (reverse.isPresent()) {
            return reverseOrRelay(reverse.get(), hostPort, timeoutMs, domainId);
        }
        Optional<Endpoint> behindRelay = directory.containsKey(hostPort) ? Optional.empty() : peerBehindRelay(hostPort, peer);
        if (behindRelay.isPresent()) {
            Endpoint e = behindRelay.get();
            methods.put(hostPort, new Method("relay", e.relay(), "host " + e.hostId() + " in site " + known(e.site())
                    + " accepts no inbound connections (its endpoint says so; not yet in the relay's directory here)"));
            return viaRelay(e.relay(), hostPort, timeoutMs, domainId);
        }
        String site = directory.get(hostPort);
        if (mine == null || site == null) {
            return direct(host, port, timeoutMs);
        }
        if (!site.isBlank() && site.equals(ownSite)) {
            methods.put(hostPort, new Method("direct", null, "same site " + site));
            return direct(host, port, timeoutMs);
        }
        if (site.isBlank() || ownSite.isBlank()) {
            try {
                SocketChannel ch = direct(host, port, Math.min(timeoutMs, PROBE_MS));
                methods.put(hostPort, new Method("direct", null, hostPort + " answered a direct connection"));
                return ch;
            } catch (IOException unreachable) {
                methods.put(hostPort, new Method("relay", mine, hostPort + " accepts no direct connection from here ("
                        + unreachable.getMessage() + ")"));
            }
        } else {
            methods.put(hostPort, new Method("relay", mine, "site " + site + " accepts no inbound connections from site "
                    + ownSite));
        }
        return viaRelay(mine, hostPort, timeoutMs, domainId);
    }

    /**
     * The endpoint of a rank at {@code hostPort} (known, or of a live domain here) whose host is behind a relay
     * in another site than this host, which is behind a relay too: the run request says so before the relay's
     * directory may (a host registered at the relay moments ago, a directory update still on its way), and a
     * direct connection to such an address never answers.
     */
    private Optional<Endpoint> peerBehindRelay(String hostPort, Endpoint known) {
        if (ownRelay == null) {
            return Optional.empty();
        }
        Optional<Endpoint> peer = known != null ? Optional.of(known) : peers.apply(hostPort);
        return peer.filter(e -> e.relay() != null && !known(e.site()).isBlank() && !known(e.site()).equals(ownSite));
    }

    /** A reverse connection, when this host accepts inbound connections and the peer at {@code hostPort} of another site does not. */
    private Optional<Method> reverseFor(String hostPort, Endpoint known) {
        if (ownRelay != null || reverseBind == null) {
            return Optional.empty();
        }
        Optional<Endpoint> peer = known != null ? Optional.of(known) : peers.apply(hostPort);
        String peerSite = peer.map(e -> known(e.site())).orElse("");
        if (peer.isEmpty() || peer.get().relay() == null || (peerSite.equals(ownSite) && !peerSite.isBlank())) {
            return Optional.empty();
        }
        return Optional.of(new Method("reverse", peer.get().relay(), hostPort + " (host " + peer.get().hostId()
                + ") accepts no inbound connections, this host does: " + peer.get().hostId() + " connects out to it"));
    }

    /**
     * How long {@link #connect} to {@code host:port} may take beyond a direct connect, by the method it
     * would use now: empty for a direct connection (a round trip); for a splice the relay's own wait for
     * the far host ({@link #SPLICE_WAIT_MS}: it answers once its rank's domain is open there); for a
     * reverse connection {@link #REVERSE_WAIT_MS}; for an address of unknown site a direct attempt
     * ({@link #PROBE_MS}) and then the splice. A caller that bounds a connection's set-up (the binary
     * channel's probe) gives an indirect one this much room, or it gives up on pairs that would work.
     *
     * @param peer the peer's endpoint if the caller knows it (null: look it up), as for {@link #connect(Endpoint, String, int, int)}
     */
    public Optional<Long> indirectWaitMs(Endpoint peer, String host, int port) {
        String hostPort = host + ":" + port;
        if (explicitRoutes.containsKey(hostPort)) {
            return Optional.of(SPLICE_WAIT_MS);
        }
        Method chosen = methods.get(hostPort);
        if (chosen != null) {
            return switch (chosen.kind()) {
                case "relay" -> Optional.of(SPLICE_WAIT_MS);
                case "reverse" -> Optional.of((long) REVERSE_WAIT_MS);
                default -> Optional.empty();
            };
        }
        if (reverseFor(hostPort, peer).isPresent()) {
            return Optional.of((long) REVERSE_WAIT_MS);
        }
        if (!directory.containsKey(hostPort) && peerBehindRelay(hostPort, peer).isPresent()) {
            return Optional.of(SPLICE_WAIT_MS);
        }
        String site = directory.get(hostPort);
        if (ownRelay == null || site == null || (!site.isBlank() && site.equals(ownSite))) {
            return Optional.empty();
        }
        return Optional.of(site.isBlank() || ownSite.isBlank() ? PROBE_MS + SPLICE_WAIT_MS : SPLICE_WAIT_MS);
    }

    /**
     * A reverse connection for {@code target} as {@code m} says; when it does not arrive, a splice
     * through the same relay, and the address keeps that method from then on.
     */
    private SocketChannel reverseOrRelay(Method m, String target, int timeoutMs, String domainId) throws IOException {
        try {
            SocketChannel ch = reversed(m.relay(), target, timeoutMs, domainId);
            if (methods.putIfAbsent(target, m) == null) {
                log.accept("connections to " + target + ": " + m);
            }
            return ch;
        } catch (IOException e) {
            Method fallback = new Method("relay", m.relay(), "a reverse connection from " + target + " failed: " + e.getMessage());
            methods.put(target, fallback);
            log.accept("connections to " + target + ": " + fallback);
            return viaRelay(m.relay(), target, timeoutMs, domainId);
        }
    }

    /** Asks the host at {@code target}, through the relay at {@code relay}, to connect out to this host; waits for it. */
    private SocketChannel reversed(String relay, String target, int timeoutMs, String domainId) throws IOException {
        // as a splice's dial: the binary channel's probe dials while the domain is still opening here
        SpliceKey key = awaitDomain(() -> domainKeys.forTarget(domainId, target).orElse(null),
                Math.min(timeoutMs, RelayLink.DOMAIN_WAIT_MS), () -> false);
        if (key == null) {
            throw new IOException("no domain of this host has a rank at " + target);
        }
        RelayIdentity me = identity;
        if (me == null) {
            throw new IOException("this process has no credential to ask relay " + relay);
        }
        ReverseConnections listener = reverseListener();
        String ticket = RelayWire.nonce();
        java.util.concurrent.CompletableFuture<SocketChannel> arriving = listener.expect(ticket, me.id(), target, key.token());
        boolean taken = false;
        try {
            Map<String, String> ask = new LinkedHashMap<>();
            ask.put("reverse", Integer.toString(listener.port()));
            ask.put("ticket", ticket);
            Map<String, String> answer = new LinkedHashMap<>();
            dialRelay(relay, target, timeoutMs, ask, answer, domainId).close();
            expectFrom(listener, answer.get("source"));
            SocketChannel ch = arriving.get(REVERSE_WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
            taken = true;
            return ch;
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IOException("no connection from " + target + " within " + REVERSE_WAIT_MS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for a connection from " + target);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.CancellationException e) {
            throw new IOException("the reverse connection from " + target + " was given up");
        } finally {
            listener.done(ticket, taken);
        }
    }

    private synchronized ReverseConnections reverseListener() throws IOException {
        if (reverse == null) {
            reverse = new ReverseConnections(reverseBind);
            log.accept("reverse connections are accepted on " + reverse.address() + " while one is awaited");
        }
        return reverse;
    }

    /** The far host's address as its relay saw it (a literal address, else ignored): served from the reserve. */
    private static void expectFrom(ReverseConnections listener, String source) {
        if (source == null || source.isBlank() || !(source.indexOf(':') >= 0 || source.matches("[0-9.]+"))) {
            return;
        }
        try {
            listener.expectFrom(java.net.InetAddress.getByName(source));
        } catch (java.net.UnknownHostException notAnAddress) {
            // a literal that does not parse: the connection is admitted as a stranger's
        }
    }

    static SocketChannel direct(String host, int port, int timeoutMs) throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            ch.socket().setTcpNoDelay(true);
            ch.socket().connect(new InetSocketAddress(host, port), timeoutMs);
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Dials {@code target} through the relay at {@code relay}; returns the channel once spliced. */
    SocketChannel viaRelay(String relay, String target, int timeoutMs) throws IOException {
        return viaRelay(relay, target, timeoutMs, null);
    }

    /** As {@link #viaRelay(String, String, int)}, proven for domain {@code domainId} ({@code null}: any with a rank there). */
    SocketChannel viaRelay(String relay, String target, int timeoutMs, String domainId) throws IOException {
        return dialRelay(relay, target, timeoutMs, Map.of(), new LinkedHashMap<>(), domainId);
    }

    /**
     * One dial at the relay at {@code relay} for {@code target}, with {@code extra} fields (a request
     * for a reverse connection); returns the channel once the relay said ok, its answer in {@code answered}.
     */
    private SocketChannel dialRelay(String relay, String target, int timeoutMs, Map<String, String> extra,
                                    Map<String, String> answered, String domainId) throws IOException {
        RelayIdentity me = identity;
        if (me == null) {
            throw new IOException(target + " is reached through relay " + relay + ", but this process has no credential");
        }
        String[] hp = RelayWire.hostPort(relay);
        SocketChannel ch;
        try {
            ch = direct(hp[0], Integer.parseInt(hp[1]), timeoutMs);
        } catch (IOException e) {
            throw new IOException("relay " + relay + " (for " + target + ") cannot be reached: " + e.getMessage(), e);
        }
        try {
            Socket s = ch.socket();
            // a splice waits for the far host to answer through its control connection: bounded by the relay's wait
            s.setSoTimeout(Math.max(timeoutMs, 15_000));
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write(RelayServer.MAGIC);
            Map<String, String> greeting = RelayWire.read(in);
            String relayId = greeting.getOrDefault("relay", "");
            String nonce = greeting.getOrDefault("nonce", "");
            Map<String, String> dial = new LinkedHashMap<>();
            dial.put("op", "dial");
            dial.put("from", me.id());
            String proof = me.proof("dial", relay, relayId, nonce);
            if (proof.isEmpty()) {
                throw new IOException("the relay at " + relay + " (for " + target + ") greeted as '" + relayId
                        + "', which is not the relay announced at that address: no proof given");
            }
            dial.put("proof", proof);
            dial.put("target", target);
            if (!RelayWire.ENGINE.equals(me.id())) {
                // the binary channel's set-up probe dials while this host is still opening the domain (its
                // registry lists a domain once the first rank is in): without this wait the probe failed and auto
                // carried every relayed domain over SOAP (SitesBenchTest, before this)
                SpliceKey key = awaitDomain(() -> domainKeys.forTarget(domainId, target).orElse(null),
                        Math.min(timeoutMs, RelayLink.DOMAIN_WAIT_MS), () -> false);
                if (key == null) {
                    throw new IOException((domainId == null ? "no domain of this host" : "domain " + shortId(domainId)
                            + " of this host") + " has a rank at " + target + ": relay " + relayId
                            + " splices only within a domain");
                }
                dial.put("domain", key.tag());
                dial.put("splice", RelayWire.b64(key.token().proveRelaySplice(relayId, nonce, me.id(), target)));
            }
            dial.putAll(extra);
            RelayWire.write(out, dial);
            Map<String, String> answer = RelayWire.read(in);
            if (!answer.containsKey("ok")) {
                throw new IOException("relay " + relayId + " at " + relay + " refused the connection to " + target + ": "
                        + answer.getOrDefault("error", "no reason given"));
            }
            answered.putAll(answer);
            s.setSoTimeout(0);
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            if (e.getMessage() != null && e.getMessage().startsWith("relay ")) {
                throw e;
            }
            throw new IOException("relay " + relay + " (for " + target + "): " + e.getMessage(), e);
        }
    }

    /** A domain ID as logs show it: its first 8 characters. */
    private static String shortId(String domainId) {
        return domainId.length() > 8 ? domainId.substring(0, 8) + "…" : domainId;
    }

    /**
     * The first non-null answer of {@code lookup}, asked every 50 ms for at most {@code waitMs} or until
     * {@code stop} says so; null after that. A domain opens in the hosts of a run in any order, and its
     * first connections (the binary probe's among them) are dialled while it opens.
     */
    static <T> T awaitDomain(java.util.function.Supplier<T> lookup, long waitMs, java.util.function.BooleanSupplier stop) {
        long end = System.nanoTime() + waitMs * 1_000_000L;
        while (!stop.getAsBoolean()) {
            T found = lookup.get();
            if (found != null || System.nanoTime() >= end) {
                return found;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return null;
    }

    /**
     * Watches the relay at {@code relay} (the engine): a connection on which the relay pings every
     * second; {@code onLost} runs once with the reason when it breaks or stays silent for
     * {@code silenceMs} — a killed relay's connection breaks at once, a cut network falls silent
     * ({@link RelayWatch}). Its owner ends it with {@link RelayWatch#stop} when it closes.
     */
    public RelayWatch watch(String relay, long silenceMs, java.util.function.Consumer<String> onLost) {
        return RelayWatch.start(identity, relay, silenceMs, onLost);
    }

    /**
     * A proxy selector for {@link java.net.http.HttpClient}: {@code https} URLs of explicitly routed
     * addresses go through a CONNECT proxy on this machine's loopback that dials through the relay (so
     * TLS stays end to end, with the host's name checked); everything else goes to {@code fallback}
     * (the previous default), or direct.
     */
    public ProxySelector proxySelector(ProxySelector fallback) {
        return new ProxySelector() {
            @Override
            public List<Proxy> select(URI uri) {
                String hostPort = uri.getHost() + ":" + (uri.getPort() < 0 ? ("https".equals(uri.getScheme()) ? 443 : 80)
                        : uri.getPort());
                if ("https".equals(uri.getScheme()) && explicitRoutes.containsKey(hostPort)) {
                    return List.of(new Proxy(Proxy.Type.HTTP, localProxy().address()));
                }
                return fallback == null ? List.of(Proxy.NO_PROXY) : fallback.select(uri);
            }

            @Override
            public void connectFailed(URI uri, SocketAddress sa, IOException ioe) {
                if (fallback != null) {
                    fallback.connectFailed(uri, sa, ioe);
                }
            }
        };
    }

    private synchronized LocalProxy localProxy() {
        if (proxy == null) {
            try {
                proxy = new LocalProxy(this);
            } catch (IOException e) {
                throw new IllegalStateException("cannot open the loopback proxy to relays: " + e.getMessage(), e);
            }
        }
        return proxy;
    }
}
