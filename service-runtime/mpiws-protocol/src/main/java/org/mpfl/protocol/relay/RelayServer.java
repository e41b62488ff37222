package org.mpfl.protocol.relay;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.mpfl.protocol.guard.ConnectionGuard;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * The relay ({@code mpflc relay}): a splicer of TCP connections for hosts that accept no connection
 * from outside their site. Such a host holds a control connection here ({@code register}); a caller
 * that cannot reach one of its addresses dials here ({@code dial}), the relay tells the host over its
 * control connection, the host opens a connection of its own ({@code accept}), and the relay joins
 * the two — bytes it only copies: the hosts' TLS runs end to end inside.
 *
 * <p>Admission, in this order, before anything is allocated for a connection: a bound on connections
 * in all ({@link Limits#maxConnections}), then the listeners' shared {@link ConnectionGuard}
 * ({@link Limits#admission}: a stranger's connections per source address and in all, their rate, and
 * the proof deadline within which a stranger must have proved a credential — TLS handshake, greeting
 * and request together — else its socket is closed under it), a bounded wait for each read, a frame
 * length cap ({@link RelayWire#MAX_FRAME}). An address that proved a credential (a site's NAT
 * address once one of its hosts registered) is known: its connections are served from the reserve. Every host proves itself with its credential (an HMAC
 * over this connection's nonce, checked by the engine, {@link HostVerifier}) before anything is looked up for
 * it, and registers only the addresses the engine's registry knows for it ({@link Verdict}); the engine proves
 * itself with the engine key of this relay's credential. A host stays registered only while the credential it proved
 * is valid: {@link CredentialSweep} asks the engine every {@link CredentialSweep#EVERY} and drops the others.
 * Splice ids are 256 random bits. A splice between two hosts is made only if both ends
 * present the same proof of the domain's token over the dialer's nonce
 * ({@code DomainToken#proveRelaySplice}): the relay compares, it never learns the token.
 */
// Over 600 lines on purpose: the relay's whole wire protocol (register, dial, accept, watch) over one directory of
// registrations and its lock; the per-request proofs and address checks (fix-relay) added the last lines.
public final class RelayServer implements Closeable {
    /** What a plaintext client sends first (a TLS client starts its handshake instead, then sends it inside). */
    static final byte[] MAGIC = "MPFLRLY1".getBytes(StandardCharsets.US_ASCII);
    private static final byte TLS_HANDSHAKE = 0x16;
    /** How often a relay tells a watching engine that it is alive. */
    static final long WATCH_PING_MS = 1000;

    /**
     * Bounds of the relay: connections in all, what strangers may hold ({@link ConnectionGuard}), splices,
     * and how long each step may take. By default a stranger's source address holds at most 128
     * connections and opens at most 128 a second (a site's hosts share their gateway's NAT address
     * until one of them proved itself), strangers in all 512 of the 1024, each with 10 s to prove itself.
     */
    public record Limits(int maxConnections, ConnectionGuard.Limits admission, int maxSplices, Duration headerTimeout,
                         Duration spliceWait, Duration controlSilence) {
        public static final Limits DEFAULT = new Limits(1024,
                new ConnectionGuard.Limits(Duration.ofSeconds(10), 128, 512, Duration.ofMinutes(30)), 512,
                Duration.ofSeconds(10), Duration.ofMillis(RelayDialer.SPLICE_WAIT_MS), Duration.ofSeconds(45));
    }

    /** Checks a host's proof with the engine (the relay holds no host's key). */
    @FunctionalInterface
    public interface HostVerifier {
        /**
         * The engine's verdict on {@code proof} as {@code hostId}'s proof over {@code nonce} for this relay, for the
         * request {@code op} ({@code register}, {@code dial} or {@code accept}): the engine lets a host register only at
         * the relay it announced, whereas any host of a domain dials at the relay of the host it reaches.
         */
        Verdict verify(String op, String hostId, String nonce, String proof) throws IOException;
    }

    /**
     * The engine's answer about one host's proof: whether it is valid, the {@code host:port} addresses the
     * engine's registry knows for that host (its SOAP, deploy and binary addresses, as it announced them) and the id
     * of the credential the proof was made with (what {@link CredentialSweep} asks about again). A host
     * registers only those addresses here: with any other, a stolen or a rogue host credential would take the dials
     * meant for another host. A refusal may say why ({@code refusal}, blank: not the host's proof), when the proof is
     * the host's but the request is not one it may make here (a registration at a relay it did not announce).
     */
    public record Verdict(boolean valid, List<String> addresses, String credential, String refusal) {
        /** Not the host's proof. */
        public static final Verdict REFUSED = new Verdict(false, List.of());

        public Verdict {
            addresses = List.copyOf(addresses);
            credential = credential == null ? "" : credential;
            refusal = refusal == null ? "" : refusal;
        }

        /** A valid verdict, or a refusal without a reason. */
        public Verdict(boolean valid, List<String> addresses, String credential) {
            this(valid, addresses, credential, "");
        }

        /** A verdict naming no credential (a relay whose credentials nobody sweeps). */
        public Verdict(boolean valid, List<String> addresses) {
            this(valid, addresses, "");
        }

        /** The host's proof, but not for this request: {@code why}. */
        public static Verdict refused(String why) {
            return new Verdict(false, List.of(), "", why);
        }
    }

    private final String relayId;
    private final String engineKey;
    private final TlsSettings tls;
    private final HostVerifier verifier;
    private final Limits limits;
    private final ServerSocket server;
    private final Semaphore connections;
    private final Semaphore splices;
    private final ConnectionGuard guard;
    private final Map<String, Registration> hosts = new ConcurrentHashMap<>();
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong splicedBytes = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private static final SecureRandom RANDOM = new SecureRandom();
    private volatile boolean closed;

    /**
     * @param relayId   this relay's id (its credential's host id)
     * @param engineKey the engine key of this relay's credential: how the engine's dials are checked
     */
    public RelayServer(String relayId, String engineKey, TlsSettings tls, HostVerifier verifier, Limits limits,
                       String bind, int port) throws IOException {
        this.relayId = relayId;
        this.engineKey = engineKey;
        this.tls = tls;
        this.verifier = verifier;
        this.limits = limits;
        this.connections = new Semaphore(limits.maxConnections());
        this.splices = new Semaphore(limits.maxSplices());
        this.guard = new ConnectionGuard("relay", limits.admission());
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(bind, port), 256);
        Thread t = new Thread(this::acceptLoop, "mpfl-relay-accept");
        t.setDaemon(true);
        t.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    public String relayId() {
        return relayId;
    }

    /** Bytes copied between spliced connections so far (both directions). */
    public long splicedBytes() {
        return splicedBytes.get();
    }

    /** Connections refused so far (admission, authentication, unknown target, wrong proof). */
    public long refused() {
        return refused.get();
    }

    /** The ids of the hosts holding a control connection now. */
    public List<String> registeredHosts() {
        return List.copyOf(hosts.keySet());
    }

    private void acceptLoop() {
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            if (!connections.tryAcquire()) {
                refuse(s);
                continue;
            }
            Optional<ConnectionGuard.Pass> pass = guard.admit(s.getInetAddress(), () -> Splice.close(s));
            if (pass.isEmpty()) {
                // a stranger over its share: nothing read, no thread, no handshake
                connections.release();
                refuse(s);
                continue;
            }
            Thread t = new Thread(() -> {
                try {
                    handle(s, pass.get());
                } finally {
                    connections.release();
                    pass.get().close();
                }
            }, "mpfl-relay-conn");
            t.setDaemon(true);
            t.start();
        }
    }

    private void refuse(Socket s) {
        refused.incrementAndGet();
        Splice.close(s);
    }

    /** One connection: greeting, its one request, and then either a control session or a splice. */
    private void handle(Socket raw, ConnectionGuard.Pass pass) {
        Socket s = raw;
        boolean handedOver = false;
        try {
            raw.setSoTimeout((int) limits.headerTimeout().toMillis());
            raw.setTcpNoDelay(true);
            InputStream rin = raw.getInputStream();
            int first = rin.read();
            if (first < 0) {
                return;
            }
            if (first == TLS_HANDSHAKE) {
                if (!tls.serves()) {
                    refused.incrementAndGet();
                    return;
                }
                s = tls.serverSocket(raw, new byte[] {(byte) first});
                s.setSoTimeout((int) limits.headerTimeout().toMillis());
                if (!magic(s.getInputStream(), -1)) {
                    refused.incrementAndGet();
                    return;
                }
            } else if (!magic(rin, first)) {
                refused.incrementAndGet();
                return;
            }
            Splice.End end = Splice.End.of(s);
            String nonce = RelayWire.nonce();
            RelayWire.write(end.out(), Map.of("relay", relayId, "nonce", nonce));
            Map<String, String> req = RelayWire.read(end.in());
            String op = req.getOrDefault("op", "");
            switch (op) {
                case "register" -> handedOver = register(end, nonce, req, pass);
                case "dial" -> handedOver = dial(end, nonce, req, pass);
                case "accept" -> handedOver = accept(end, nonce, req, pass);
                case "watch" -> watched(end, nonce, req, pass);
                default -> refuse(end, "unknown op '" + op + "'");
            }
        } catch (SocketTimeoutException e) {
            refused.incrementAndGet();
        } catch (IOException | RuntimeException e) {
            refused.incrementAndGet();
        } finally {
            if (!handedOver) {
                Splice.close(s);
            }
        }
    }

    private static boolean magic(InputStream in, int first) throws IOException {
        byte[] rest = in.readNBytes(first < 0 ? MAGIC.length : MAGIC.length - 1);
        byte[] got = new byte[MAGIC.length];
        int off = 0;
        if (first >= 0) {
            got[0] = (byte) first;
            off = 1;
        }
        System.arraycopy(rest, 0, got, off, Math.min(rest.length, MAGIC.length - off));
        return rest.length == MAGIC.length - off && java.util.Arrays.equals(got, MAGIC);
    }

    private void refuse(Splice.End end, String why) throws IOException {
        refused.incrementAndGet();
        RelayWire.write(end.out(), Map.of("error", why));
    }

    /**
     * Whether {@code who} proved itself on this connection (then the connection leaves the strangers' share), with
     * the addresses the engine knows for that host (none for the engine itself).
     */
    private Verdict authenticated(Splice.End end, String nonce, Map<String, String> req, String who, ConnectionGuard.Pass pass)
            throws IOException {
        String proof = req.get("proof");
        String op = req.getOrDefault("op", "");
        Verdict v;
        if (RelayWire.ENGINE.equals(who)) {
            v = RelayWire.same(RelayWire.engineProof(engineKey, relayId, nonce), proof) ? new Verdict(true, List.of()) : Verdict.REFUSED;
        } else {
            v = who != null && !who.isBlank() && proof != null ? verifier.verify(op, who, nonce, proof) : Verdict.REFUSED;
        }
        if (v == null || !v.valid()) {
            refuse(end, v != null && !v.refusal().isBlank() ? v.refusal()
                    : "not authenticated: a relay serves only hosts (and the engine) with a credential of its engine");
            return Verdict.REFUSED;
        }
        pass.prove();
        return v;
    }

    /**
     * A splice's (or reverse connection's) id: this relay's id, a dash and 256 random bits in hex, so that no one
     * guesses a pending one (hosts read the relay's id before the last dash: their splice proof names it).
     */
    String newId() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return relayId + "-" + java.util.HexFormat.of().formatHex(b);
    }

    // ------------------------------------------------------------------ control connections

    private boolean register(Splice.End end, String nonce, Map<String, String> req, ConnectionGuard.Pass pass) throws IOException {
        String hostId = req.get("host");
        if (RelayWire.ENGINE.equals(hostId)) {
            return false;
        }
        Verdict verdict = authenticated(end, nonce, req, hostId, pass);
        if (!verdict.valid()) {
            return false;
        }
        List<String> addresses = new ArrayList<>();
        for (String a : req.getOrDefault("addresses", "").split(",")) {
            if (!a.isBlank()) {
                RelayWire.hostPort(a.strip());
                addresses.add(a.strip());
            }
        }
        for (String a : addresses) {
            // dials go to the registration holding their target: only the engine's record says whose an address is
            if (!verdict.addresses().contains(a)) {
                refuse(end, "host " + hostId + " may not register " + a + " at relay " + relayId + ": the engine knows it at "
                        + (verdict.addresses().isEmpty() ? "no address (it has not announced itself to the engine)"
                        : String.join(", ", verdict.addresses())));
                return false;
            }
        }
        Registration r = new Registration(hostId, verdict.credential(), req.getOrDefault("site", ""), addresses, end);
        Registration old;
        synchronized (hosts) {
            // a dial names an address: two hosts holding one (two sites' equal private addresses) would get each
            // other's dials, the engine's among them, which need no domain token. The host registered first keeps it.
            Optional<String> taken = heldByAnother(hostId, addresses);
            if (taken.isPresent()) {
                refuse(end, taken.get());
                return false;
            }
            old = hosts.put(hostId, r);
        }
        if (old != null) {
            Splice.close(old.end.socket());
        }
        synchronized (r) {
            RelayWire.write(end.out(), Map.of("ok", "registered"));
        }
        broadcastDirectory();
        Thread t = new Thread(() -> control(r), "mpfl-relay-control-" + hostId);
        t.setDaemon(true);
        t.start();
        return true;
    }

    /** Why {@code hostId} may not register {@code addresses}, when another host registered here holds one of them. */
    private Optional<String> heldByAnother(String hostId, List<String> addresses) {
        for (Registration other : hosts.values()) {
            for (String a : addresses) {
                if (!other.hostId.equals(hostId) && other.addresses.contains(a)) {
                    return Optional.of("host " + hostId + " may not register " + a + " at relay " + relayId + ": host "
                            + other.hostId + (other.site.isBlank() ? "" : " of site " + other.site) + " holds it here (a"
                            + " relay reaches hosts by address: each host behind it needs addresses no other host has)");
                }
            }
        }
        return Optional.empty();
    }

    /** The hosts registered now, each with the id of the credential it proved ({@link Verdict#credential}). */
    Map<String, String> credentialsByHost() {
        Map<String, String> out = new LinkedHashMap<>();
        hosts.values().forEach(r -> out.put(r.hostId, r.credential));
        return out;
    }

    /**
     * Drops {@code hostId}'s registration if it was proved with {@code credential} (a registration proved since with
     * another is not this one): its control connection is closed, the dials waiting for it are refused, and the
     * other hosts get a directory without its addresses. Whether it was dropped.
     */
    boolean drop(String hostId, String credential) {
        Registration r = hosts.get(hostId);
        if (r == null || !r.credential.equals(credential) || !hosts.remove(hostId, r)) {
            return false;
        }
        Splice.close(r.end.socket());
        pending.values().stream().filter(p -> p.hostId.equals(hostId)).forEach(p -> p.accepted.cancel(false));
        broadcastDirectory();
        return true;
    }

    /** Reads the host's pings until it goes silent or away; then forgets it. */
    private void control(Registration r) {
        try {
            r.end.socket().setSoTimeout((int) limits.controlSilence().toMillis());
            while (!closed) {
                Map<String, String> f = RelayWire.read(r.end.in());
                if ("ping".equals(f.get("op"))) {
                    r.send(Map.of("op", "pong"));
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, silent, or sent an oversized frame
        } finally {
            Splice.close(r.end.socket());
            if (hosts.remove(r.hostId, r)) {
                broadcastDirectory();
            }
        }
    }

    /**
     * Every registered host learns which addresses the relay reaches, and in which site. One broadcast at a
     * time: two registrations at once would otherwise build two directories and could send the older one last,
     * leaving a host without the other's addresses until the next change.
     */
    private synchronized void broadcastDirectory() {
        Map<String, String> dir = new LinkedHashMap<>();
        dir.put("op", "directory");
        StringBuilder b = new StringBuilder();
        for (Registration r : hosts.values()) {
            for (String a : r.addresses) {
                if (b.length() > 0) {
                    b.append(',');
                }
                b.append(a).append('@').append(r.site.replace(",", "").replace("@", ""));
            }
        }
        dir.put("addresses", b.toString());
        for (Registration r : hosts.values()) {
            try {
                r.send(dir);
            } catch (IOException | RuntimeException e) {
                Splice.close(r.end.socket());
            }
        }
    }

    /** The engine watches the relay: a ping every {@link #WATCH_PING_MS} until either side goes. */
    private void watched(Splice.End end, String nonce, Map<String, String> req, ConnectionGuard.Pass pass) throws IOException {
        if (!RelayWire.ENGINE.equals(req.get("from")) || !authenticated(end, nonce, req, RelayWire.ENGINE, pass).valid()) {
            if (!RelayWire.ENGINE.equals(req.get("from"))) {
                refuse(end, "only the engine watches a relay");
            }
            return;
        }
        RelayWire.write(end.out(), Map.of("ok", "watching"));
        while (!closed) {
            try {
                Thread.sleep(WATCH_PING_MS);
            } catch (InterruptedException e) {
                return;
            }
            RelayWire.write(end.out(), Map.of("op", "ping"));
        }
    }

    // ------------------------------------------------------------------ splices

    private boolean dial(Splice.End end, String nonce, Map<String, String> req, ConnectionGuard.Pass pass) throws IOException {
        String from = req.get("from");
        if (!authenticated(end, nonce, req, from, pass).valid()) {
            return false;
        }
        String target = req.getOrDefault("target", "");
        Registration host = null;
        for (Registration r : hosts.values()) {
            if (r.addresses.contains(target)) {
                host = r;
            }
        }
        if (host == null) {
            refuse(end, "no host holding a connection to relay " + relayId + " serves " + target);
            return false;
        }
        boolean byEngine = RelayWire.ENGINE.equals(from);
        String domain = req.get("domain");
        if (!byEngine && (domain == null || req.get("splice") == null)) {
            refuse(end, "a host's dial names its domain and proves its token");
            return false;
        }
        if (req.containsKey("reverse")) {
            askReverse(end, host, from, target, domain, req);
            return false;
        }
        if (!splices.tryAcquire()) {
            refuse(end, "relay " + relayId + " splices " + limits.maxSplices() + " connections already");
            return false;
        }
        boolean spliced = false;
        String id = newId();
        Pending p = new Pending(host.hostId, new CompletableFuture<>());
        pending.put(id, p);
        try {
            Map<String, String> notice = new LinkedHashMap<>();
            notice.put("op", "incoming");
            notice.put("id", id);
            notice.put("nonce", nonce);
            notice.put("from", from);
            notice.put("target", target);
            notice.put("domain", byEngine ? null : domain);
            host.send(notice);
            Accepted a;
            try {
                a = p.accepted.get(limits.spliceWait().toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                refuse(end, "host " + host.hostId + " did not answer through relay " + relayId + " within "
                        + limits.spliceWait().toSeconds() + " s");
                return false;
            } catch (InterruptedException | java.util.concurrent.ExecutionException | java.util.concurrent.CancellationException e) {
                refuse(end, "host " + host.hostId + " is no longer served by relay " + relayId + " (it is closing, or the"
                        + " host's credential was revoked)");
                return false;
            }
            if (!byEngine && !RelayWire.same(req.get("splice"), a.splice)) {
                refuse(end, "the two ends do not prove the same domain token");
                refuse(a.end, "the two ends do not prove the same domain token");
                Splice.close(a.end.socket());
                return false;
            }
            RelayWire.write(a.end.out(), Map.of("ok", "spliced"));
            RelayWire.write(end.out(), Map.of("ok", "spliced"));
            Splice.start("mpfl-relay-splice-" + id, end, a.end, splicedBytes, splices::release);
            spliced = true;
            return true;
        } finally {
            pending.remove(id);
            if (!spliced) {
                splices.release();
            }
        }
    }

    /**
     * A dialer that accepts inbound connections asks {@code host} to connect out to it instead of a
     * splice ({@link ReverseConnections}): the host hears it on its control connection, with the
     * dialer's address as this relay sees it (so a request can only point at the dialer itself) and
     * the port it named. The host proves the domain to the dialer, not here; nothing is spliced. The
     * answer tells the dialer the host's address as seen here ({@code source}).
     */
    private void askReverse(Splice.End end, Registration host, String from, String target, String domain,
                            Map<String, String> req) throws IOException {
        int port;
        try {
            port = Integer.parseInt(req.getOrDefault("reverse", ""));
        } catch (NumberFormatException e) {
            port = -1;
        }
        String ticket = req.getOrDefault("ticket", "");
        if (RelayWire.ENGINE.equals(from) || port < 1 || port > 65_535 || ticket.isBlank()) {
            refuse(end, "a reverse connection is asked by a host, with its port and a ticket");
            return;
        }
        Map<String, String> notice = new LinkedHashMap<>();
        notice.put("op", "incoming");
        notice.put("id", newId());
        notice.put("from", from);
        notice.put("target", target);
        notice.put("domain", domain);
        notice.put("reverse", end.socket().getInetAddress().getHostAddress() + ":" + port);
        notice.put("ticket", ticket);
        host.send(notice);
        // where the host will connect from as the dialer should see it (its site's NAT address): the dialer's
        // reverse port serves that address from its reserve while it waits, however many strangers wait there
        RelayWire.write(end.out(), Map.of("ok", "asked", "source", host.end.socket().getInetAddress().getHostAddress()));
    }

    private boolean accept(Splice.End end, String nonce, Map<String, String> req, ConnectionGuard.Pass pass) throws IOException {
        String hostId = req.get("host");
        // proof first: a stranger learns nothing, not even whether a dial waits under an id
        if (RelayWire.ENGINE.equals(hostId) || !authenticated(end, nonce, req, hostId, pass).valid()) {
            return false;
        }
        Pending p = pending.get(req.getOrDefault("id", ""));
        if (p == null || !p.hostId.equals(hostId)) {
            refuse(end, "no dial waits for this host under that id");
            return false;
        }
        // the dialer's thread answers and splices (or closes) this connection
        return p.accepted.complete(new Accepted(end, req.getOrDefault("splice", "")));
    }

    @Override
    public void close() {
        closed = true;
        Splice.close(server);
        guard.close();
        for (Registration r : hosts.values()) {
            Splice.close(r.end.socket());
        }
        pending.values().forEach(p -> p.accepted.cancel(true));
    }

    private static final class Registration {
        final String hostId;
        final String credential;
        final String site;
        final List<String> addresses;
        final Splice.End end;

        Registration(String hostId, String credential, String site, List<String> addresses, Splice.End end) {
            this.hostId = hostId;
            this.credential = credential;
            this.site = site;
            this.addresses = List.copyOf(addresses);
            this.end = end;
        }

        synchronized void send(Map<String, String> frame) throws IOException {
            RelayWire.write(end.out(), frame);
        }
    }

    private record Pending(String hostId, CompletableFuture<Accepted> accepted) {
    }

    private record Accepted(Splice.End end, String splice) {
    }
}
