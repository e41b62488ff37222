package org.mpfl.protocol.relay;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.RepeatedProblem;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * A host's side of a relay ({@code mpflc host --relay HOST:PORT}): the outbound control connection
 * that registers the host's addresses (and site) and receives the relay's directory and its
 * {@code incoming} notices. For each notice the host opens a connection of its own to the relay,
 * proves the notice's domain ({@link DomainToken#proveRelaySplice}; it answers only for a domain it
 * takes part in) and, once spliced, joins it to its own server at the named address — so the peer's
 * TLS ends in this host's server, as for a direct connection. A server of this process that takes
 * such a connection itself ({@link InProcessServer}: the binary channel) gets the relay's connection
 * as it is; any other is joined through a loopback connection and a copying {@link Splice}, which
 * costs every message two more thread wake-ups and a loopback hop (measured: docs/benchmarks.md,
 * "Across sites").
 *
 * <p>The control connection runs over TLS when the host has a CA ({@code --tls-ca}): the relay must
 * then present a certificate for its address. It is re-established after any loss (every
 * {@link #RETRY_MS} ms), with a ping every {@link #PING_MS} ms so that the relay notices a vanished
 * host, and the host a vanished relay.
 */
public final class RelayLink implements Closeable {
    static final long RETRY_MS = 1000;
    static final long PING_MS = 10_000;
    /** How long an incoming splice waits for its domain to be opened here (the run reaches hosts in any order). */
    static final long DOMAIN_WAIT_MS = 10_000;

    private final String relay;
    private final RelayIdentity identity;
    private final TlsSettings tls;
    private final List<String> addresses;
    private final String site;
    private final Function<String, DomainToken> domainsByTag;
    private final Consumer<String> log;
    private final Map<String, InProcessServer> inProcess;
    private final AtomicLong bytes = new AtomicLong();
    private volatile Socket control;
    private volatile boolean closed;
    private volatile boolean registered;
    /** When the relay last took this host's registration away (its control connection broke; nanoTime), 0: registered or never. */
    private volatile long lostSinceNanos;
    /** Told, with how long it was lost (ms), each time the relay takes this host's registration again after a loss. */
    private volatile java.util.function.LongConsumer registeredAgain = ms -> { };

    /** A server of this process that serves a connection spliced by the relay itself, from its first byte. */
    @FunctionalInterface
    public interface InProcessServer {
        /** Serves {@code ch} (connected, blocking, the peer's bytes next) or closes it. */
        void adopt(SocketChannel ch) throws IOException;
    }

    /**
     * @param addresses    this host's {@code host:port} addresses (SOAP, binary) peers may dial
     * @param domainsByTag a live domain's token by its relay tag ({@link DomainToken#relayTag}), or null
     */
    public RelayLink(String relay, RelayIdentity identity, TlsSettings tls, List<String> addresses, String site,
                     Function<String, DomainToken> domainsByTag, Consumer<String> log) {
        this(relay, identity, tls, addresses, site, domainsByTag, log, Map.of());
    }

    /**
     * @param inProcess the servers among {@code addresses} that take a spliced connection themselves, by address
     */
    public RelayLink(String relay, RelayIdentity identity, TlsSettings tls, List<String> addresses, String site,
                     Function<String, DomainToken> domainsByTag, Consumer<String> log, Map<String, InProcessServer> inProcess) {
        this.inProcess = Map.copyOf(inProcess);
        this.relay = relay;
        this.identity = identity;
        this.tls = tls;
        this.addresses = List.copyOf(addresses);
        this.site = site == null ? "" : site;
        this.domainsByTag = domainsByTag;
        this.log = log;
    }

    /**
     * Tells {@code listener}, on the link's thread, each time the relay takes this host's registration again after it
     * was lost, with how long it was lost (ms). Set before {@link #start}.
     */
    public RelayLink onRegisteredAgain(java.util.function.LongConsumer listener) {
        this.registeredAgain = listener;
        return this;
    }

    /** Starts the control connection (and its reconnection) on a daemon thread. */
    public RelayLink start() {
        Thread t = new Thread(this::run, "mpfl-relay-link");
        t.setDaemon(true);
        t.start();
        return this;
    }

    /** Whether the relay accepted this host's registration on the current control connection. */
    public boolean registered() {
        return registered;
    }

    /**
     * How long this host has been without its registration at the relay, since the control connection that held it
     * broke (ms), or 0 while it is registered or before it first was: meanwhile neither the engine nor the other
     * sites reach this host.
     */
    public long lostForMs() {
        long since = lostSinceNanos;
        return since == 0 ? 0 : Math.max(1, (System.nanoTime() - since) / 1_000_000);
    }

    private void run() {
        RepeatedProblem problem = new RepeatedProblem();
        while (!closed) {
            try {
                session();
                problem.over();
            } catch (IOException | RuntimeException e) {
                String m = failure(relay, e);
                if (problem.isNews(m) && !closed) {
                    log.accept(m);
                }
            } finally {
                if (registered) {
                    lostSinceNanos = System.nanoTime();
                }
                registered = false;
            }
            try {
                Thread.sleep(RETRY_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One control connection: register, then read notices until it breaks. */
    private void session() throws IOException {
        Socket s = open(true);
        control = s;
        try {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            Map<String, String> greeting = RelayWire.read(in);
            Map<String, String> reg = new LinkedHashMap<>();
            reg.put("op", "register");
            reg.put("host", identity.id());
            reg.put("proof", identity.proof("register", relay, greeting.getOrDefault("relay", ""), greeting.getOrDefault("nonce", "")));
            reg.put("site", site);
            reg.put("addresses", String.join(",", addresses));
            RelayWire.write(out, reg);
            Map<String, String> answer = RelayWire.read(in);
            if (!answer.containsKey("ok")) {
                throw new IOException("registration refused: " + answer.getOrDefault("error", "no reason given"));
            }
            long lostMs = lostForMs();
            registered = true;
            lostSinceNanos = 0;
            log.accept("registered at relay " + greeting.get("relay") + " (" + relay + ") for " + addresses);
            if (lostMs > 0) {
                try {
                    registeredAgain.accept(lostMs);
                } catch (RuntimeException e) {
                    log.accept("relay " + relay + ": after registering again: " + e);
                }
            }
            s.setSoTimeout((int) (3 * PING_MS));
            Thread pinger = pinger(out);
            try {
                while (!closed) {
                    Map<String, String> f = RelayWire.read(in);
                    switch (f.getOrDefault("op", "")) {
                        case "directory" -> RelayDialer.shared().directory(parseDirectory(f.getOrDefault("addresses", "")));
                        case "incoming" -> answerIncoming(f);
                        default -> { }
                    }
                }
            } finally {
                pinger.interrupt();
            }
        } finally {
            Splice.close(s);
        }
    }

    private Thread pinger(OutputStream out) {
        Thread t = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(PING_MS);
                    synchronized (out) {
                        RelayWire.write(out, Map.of("op", "ping"));
                    }
                }
            } catch (InterruptedException | IOException e) {
                // the session ends
            }
        }, "mpfl-relay-ping");
        t.setDaemon(true);
        t.start();
        return t;
    }

    static Map<String, String> parseDirectory(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String entry : text.split(",")) {
            int at = entry.lastIndexOf('@');
            if (at > 0) {
                out.put(entry.substring(0, at), entry.substring(at + 1));
            }
        }
        return out;
    }

    private void answerIncoming(Map<String, String> notice) {
        Thread t = new Thread(() -> {
            try {
                accept(notice);
            } catch (IOException | RuntimeException e) {
                log.accept("relay " + relay + ": an incoming connection from " + notice.get("from") + " failed: " + e.getMessage());
            }
        }, "mpfl-relay-accept");
        t.setDaemon(true);
        t.start();
    }

    /** Opens this host's end of a splice and joins it to the local server the dialer named. */
    private void accept(Map<String, String> notice) throws IOException {
        String target = notice.getOrDefault("target", "");
        if (!addresses.contains(target)) {
            throw new IOException("the relay named " + target + ", which is not an address of this host");
        }
        if (notice.containsKey("reverse")) {
            connectBack(notice, target);
            return;
        }
        String splice = "";
        String tag = notice.get("domain");
        if (tag != null) {
            DomainToken token = awaitDomain(tag);
            if (token == null) {
                throw new IOException("no domain of this host matches within " + DOMAIN_WAIT_MS + " ms: not answered");
            }
            splice = RelayWire.b64(token.proveRelaySplice(relayIdOf(notice), notice.getOrDefault("nonce", ""),
                    notice.getOrDefault("from", ""), target));
        } else if (!RelayWire.ENGINE.equals(notice.get("from"))) {
            throw new IOException("a dial from a host without a domain: not answered");
        }
        Socket s = open(false);
        SocketChannel ch = s.getChannel();
        boolean handedOver = false;
        try {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            Map<String, String> greeting = RelayWire.read(in);
            Map<String, String> acc = new LinkedHashMap<>();
            acc.put("op", "accept");
            acc.put("host", identity.id());
            acc.put("proof", identity.proof("accept", relay, greeting.getOrDefault("relay", ""), greeting.getOrDefault("nonce", "")));
            acc.put("id", notice.getOrDefault("id", ""));
            acc.put("splice", splice);
            RelayWire.write(out, acc);
            Map<String, String> answer = RelayWire.read(in);
            if (!answer.containsKey("ok")) {
                throw new IOException(answer.getOrDefault("error", "refused"));
            }
            // the frames were read byte by byte (RelayWire buffers nothing): the peer's bytes come next
            s.setSoTimeout(0);
            InProcessServer server = inProcess.get(target);
            if (server != null) {
                handedOver = true;
                server.adopt(ch);
                return;
            }
            SocketChannel local = localConnection(target);
            Splice.start("mpfl-relay-in-" + target, new Splice.End(s, in, out), Splice.End.of(local.socket()), bytes, null);
            handedOver = true;
        } finally {
            if (!handedOver) {
                Splice.close(s);
            }
        }
    }

    /**
     * A peer that accepts inbound connections asked for a reverse connection ({@link ReverseConnections}):
     * this host connects out to it, proves the notice's domain, and joins the connection to its own
     * server at {@code target} — the peer's TLS ends there as for a direct connection.
     */
    private void connectBack(Map<String, String> notice, String target) throws IOException {
        DomainToken token = awaitDomain(notice.getOrDefault("domain", ""));
        if (token == null) {
            throw new IOException("no domain of this host matches within " + DOMAIN_WAIT_MS + " ms: no reverse connection");
        }
        String asker = notice.getOrDefault("from", "");
        Socket s = ReverseConnections.connectBack(notice.get("reverse"), RelayDialer.PROBE_MS, notice.getOrDefault("ticket", ""),
                challenge -> RelayWire.b64(token.proveRelaySplice(ReverseConnections.PROOF_LABEL, challenge, asker, target)));
        boolean handedOver = false;
        try {
            SocketChannel local = localConnection(target);
            Splice.start("mpfl-reverse-out-" + target, Splice.End.of(s), Splice.End.of(local.socket()), bytes, null);
            handedOver = true;
        } finally {
            if (!handedOver) {
                Splice.close(s);
            }
        }
    }

    private static SocketChannel localConnection(String target) throws IOException {
        String[] hp = RelayWire.hostPort(target);
        SocketChannel local = SocketChannel.open();
        try {
            local.socket().setTcpNoDelay(true);
            local.socket().connect(new InetSocketAddress(hp[0], Integer.parseInt(hp[1])), 5_000);
            return local;
        } catch (IOException e) {
            local.close();
            throw e;
        }
    }

    /** The relay id of a notice: its splice id is {@code RELAYID-N}. */
    private static String relayIdOf(Map<String, String> notice) {
        String id = notice.getOrDefault("id", "");
        int dash = id.lastIndexOf('-');
        return dash > 0 ? id.substring(0, dash) : id;
    }

    private DomainToken awaitDomain(String tag) {
        return RelayDialer.awaitDomain(() -> domainsByTag.apply(tag), DOMAIN_WAIT_MS, () -> closed);
    }

    /** A connection to the relay, past the magic (over TLS for the control connection when this host has a CA). */
    private Socket open(boolean controlConnection) throws IOException {
        SocketChannel ch = connect();
        Socket s = ch.socket();
        try {
            if (controlConnection && tls.enabled()) {
                String[] hp = RelayWire.hostPort(relay);
                s = tls.clientSocket(s, hp[0], Integer.parseInt(hp[1]));
            }
            s.getOutputStream().write(RelayServer.MAGIC);
            return s;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** A plain connection to the relay: a channel, so that a server of this process can adopt a splice as it is. */
    private SocketChannel connect() throws IOException {
        String[] hp = RelayWire.hostPort(relay);
        SocketChannel ch = SocketChannel.open();
        try {
            Socket s = ch.socket();
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(hp[0], Integer.parseInt(hp[1])), 5_000);
            s.setSoTimeout(15_000);
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public void close() {
        closed = true;
        Splice.close(control);
    }

    /** What went wrong with the relay link, and for a TLS failure what to do: the JDK's words name only the failure. */
    static String failure(Object relay, Throwable e) {
        String said = "relay " + relay + ": " + e.getMessage();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof javax.net.ssl.SSLHandshakeException && String.valueOf(t.getMessage()).contains("PKIX")) {
                return said + " (this host does not trust the relay's certificate: give the CA that signed it with --tls-ca)";
            }
            if (t instanceof javax.net.ssl.SSLException) {
                return said + " (TLS with the relay failed: a host with TLS needs a relay with TLS, mpflc relay --tls-cert F"
                        + " --tls-key F)";
            }
        }
        return said;
    }
}
