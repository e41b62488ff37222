package org.mpfl.protocol.relay;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.UnaryOperator;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.guard.ConnectionGuard;

/**
 * Reverse connections: a host that accepts inbound connections (it holds no relay connection) wants
 * a connection to a host of another site that accepts none; instead of a splice through the relay,
 * it asks that host, through the host's relay, to connect out to it. This is the host's listener for
 * such connections (one port, bound lazily on the host's address) and the far host's side of them
 * ({@link #connectBack}).
 *
 * <p>The far host opens the TCP connection, sends {@link #MAGIC}, receives a fresh challenge and
 * answers with the ticket of the request and a proof of the domain's token over the challenge
 * ({@link DomainToken#proveRelaySplice} with the relay id {@value #PROOF_LABEL}): only a host of the
 * domain can answer, and no answer can be replayed. The asking host then uses the connection as if
 * it had opened it — TLS first where its transport uses TLS, ending in the far host's own server.
 *
 * <p>Admission before allocation, as at every other listener: a connection is closed at once while no
 * request waits; then the listeners' shared {@link ConnectionGuard} ({@link #LIMITS}): a stranger's
 * connections per source address, their rate, strangers in all, and the proof deadline within which
 * the whole handshake (magic, challenge, answer) must be done, else the socket is closed under it — a
 * stranger trickling a byte every few seconds holds its place no longer than that. The far host's
 * address as its relay sees it ({@link #expectFrom}: its site's NAT address) is known while a request
 * waits, and so is an address that proved the domain here: their connections use the reserve. At
 * most {@link #MAX_HANDSHAKES} handshakes run at a time, each read bounded by {@link #HANDSHAKE_MS},
 * each frame by {@link RelayWire#MAX_FRAME}.
 */
public final class ReverseConnections implements Closeable {
    /** What the connecting host sends first. */
    static final byte[] MAGIC = "MPFLREV1".getBytes(StandardCharsets.US_ASCII);
    /** The "relay id" under which reverse connections prove the domain token. */
    static final String PROOF_LABEL = "reverse";
    static final int HANDSHAKE_MS = 5_000;
    /** Handshakes at a time, strangers' and known peers' together (the strangers' share is {@link #LIMITS}). */
    static final int MAX_HANDSHAKES = 64;
    /**
     * The reverse port's admission: 5 s for the whole handshake (two frames of a few hundred bytes; the
     * far host connects out within {@link RelayDialer#PROBE_MS} and answers at once), 8 open strangers'
     * connections per source address (and 8 a second), 32 in all — half of {@link #MAX_HANDSHAKES},
     * the rest is the reserve of expected and proven peers — and an address that proved the domain is
     * known for 30 minutes, as at a host's other listeners.
     */
    public static final ConnectionGuard.Limits LIMITS = new ConnectionGuard.Limits(Duration.ofMillis(HANDSHAKE_MS), 8, 32,
            Duration.ofMinutes(30));

    /** One awaited reverse connection: who asked for it, to which address, with which domain's token. */
    private record Expected(String asker, String target, DomainToken token, CompletableFuture<SocketChannel> channel) {
    }

    private final ServerSocketChannel server;
    private final Map<String, Expected> expected = new ConcurrentHashMap<>();
    private final Semaphore handshakes = new Semaphore(MAX_HANDSHAKES);
    private final ConnectionGuard guard;
    private volatile boolean closed;

    /** Listens on {@code bindAddress} (any free port) for reverse connections, admitted under {@link #LIMITS}. */
    ReverseConnections(String bindAddress) throws IOException {
        this(bindAddress, LIMITS);
    }

    ReverseConnections(String bindAddress, ConnectionGuard.Limits limits) throws IOException {
        guard = new ConnectionGuard("reverse", limits);
        server = ServerSocketChannel.open();
        try {
            server.bind(new InetSocketAddress(bindAddress, 0), 64);
        } catch (IOException e) {
            server.close();
            guard.close();
            throw e;
        }
        Thread t = new Thread(this::acceptLoop, "mpfl-reverse-accept");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.socket().getLocalPort();
    }

    /** Where this listener is: {@code address:port}. */
    String address() {
        return server.socket().getInetAddress().getHostAddress() + ":" + port();
    }

    /**
     * The far host of a request will connect from {@code source} (its relay saw its control connection
     * from there: its own or its site's NAT address): connections from it use the reserve, not the
     * strangers' share (for {@link ConnectionGuard.Limits#trustFor}, as a proven address).
     */
    void expectFrom(InetAddress source) {
        guard.remember(source);
    }

    /** The admission of this port (its counters: refused, expired). */
    ConnectionGuard guard() {
        return guard;
    }

    /** Expects the connection for {@code ticket}: from a host of the domain of {@code token}, to {@code target}. */
    CompletableFuture<SocketChannel> expect(String ticket, String asker, String target, DomainToken token) {
        CompletableFuture<SocketChannel> f = new CompletableFuture<>();
        expected.put(ticket, new Expected(asker, target, token, f));
        return f;
    }

    /** No longer waits for {@code ticket}'s connection; unless {@code taken}, one that arrived anyway is closed. */
    void done(String ticket, boolean taken) {
        Expected e = expected.remove(ticket);
        if (e != null && !taken && !e.channel().cancel(false)) {
            SocketChannel late = e.channel().getNow(null);
            if (late != null) {
                closeQuietly(late);
            }
        }
    }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            if (expected.isEmpty()) {
                closeQuietly(ch);
                continue;
            }
            InetAddress source = ch.socket().getInetAddress();
            Optional<ConnectionGuard.Pass> pass = source == null ? Optional.empty()
                    : guard.admit(source, () -> closeQuietly(ch));
            if (pass.isEmpty() || !handshakes.tryAcquire()) {
                // over a stranger's share (or all handshakes busy): nothing read, no thread
                pass.ifPresent(ConnectionGuard.Pass::close);
                closeQuietly(ch);
                continue;
            }
            Thread t = new Thread(() -> {
                try {
                    handshake(ch, pass.get());
                } finally {
                    handshakes.release();
                    pass.get().close();
                }
            }, "mpfl-reverse-handshake");
            t.setDaemon(true);
            t.start();
        }
    }

    private void handshake(SocketChannel ch, ConnectionGuard.Pass pass) {
        boolean handedOver = false;
        try {
            Socket s = ch.socket();
            s.setSoTimeout(HANDSHAKE_MS);
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            if (!Arrays.equals(in.readNBytes(MAGIC.length), MAGIC)) {
                return;
            }
            String challenge = RelayWire.nonce();
            RelayWire.write(s.getOutputStream(), Map.of("nonce", challenge));
            Map<String, String> answer = RelayWire.read(in);
            Expected e = expected.get(answer.getOrDefault("ticket", ""));
            String proof = e == null ? null
                    : RelayWire.b64(e.token().proveRelaySplice(PROOF_LABEL, challenge, e.asker(), e.target()));
            if (e == null || !RelayWire.same(proof, answer.get("proof"))) {
                RelayWire.write(s.getOutputStream(), Map.of("error", "no reverse connection of this domain is expected"));
                return;
            }
            // proved: the guard's deadline no longer applies (it would close the connection handed over)
            pass.prove();
            RelayWire.write(s.getOutputStream(), Map.of("ok", "reversed"));
            s.setSoTimeout(0);
            handedOver = e.channel().complete(ch);
        } catch (IOException | RuntimeException e) {
            // a stranger, a slow or a broken peer: closed below
        } finally {
            if (!handedOver) {
                closeQuietly(ch);
            }
        }
    }

    /**
     * The far host's side: connects out to {@code address} (the asking host's listener), proves the
     * domain with {@code proofOver} (challenge → proof) and returns the connection, ready to be joined
     * to this host's own server.
     */
    static Socket connectBack(String address, int timeoutMs, String ticket, UnaryOperator<String> proofOver)
            throws IOException {
        String[] hp = RelayWire.hostPort(address);
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(hp[0], Integer.parseInt(hp[1])), timeoutMs);
            s.setSoTimeout(HANDSHAKE_MS);
            s.getOutputStream().write(MAGIC);
            Map<String, String> challenge = RelayWire.read(s.getInputStream());
            RelayWire.write(s.getOutputStream(), Map.of("ticket", ticket, "proof", proofOver.apply(challenge.getOrDefault("nonce", ""))));
            Map<String, String> answer = RelayWire.read(s.getInputStream());
            if (!answer.containsKey("ok")) {
                throw new IOException(address + " refused the reverse connection: " + answer.getOrDefault("error", "no reason given"));
            }
            return s;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        guard.close();
        expected.values().forEach(e -> e.channel().cancel(false));
    }
}
