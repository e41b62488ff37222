package org.mpfl.runtime.transport.binary;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLSocket;
import org.mpfl.protocol.guard.ConnectionGuard;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.runtime.settings.HostGuardLimits;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Inbox;
import org.mpfl.runtime.transport.Payload;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving end of the binary channel: accepts connections from other MPFL service hosts and
 * hands every stored envelope to the {@link Inbox}, answering with its outcome. One thread per
 * connection reads frames in order, so per-connection order is kept; the inbox never blocks, so a
 * connection is never held up by a rank's program. Connections are bounded
 * ({@link BinaryProtocol#MAX_CONNECTIONS}), authenticated by their handshake before anything is
 * read for a message, and closed when the handshake is slow or the connection idle (a reaper
 * thread; see {@link BinaryProtocol}).
 *
 * <p>Every accepted connection is first {@linkplain ConnectionGuard#admit admitted} by the channel's
 * {@link ConnectionGuard} (the host's limits, {@link HostGuardLimits}), before its TLS layer, its
 * thread and its buffer exist: a stranger over the per-source or overall limits, or their rates, is
 * closed at once, nothing read. A connection whose AUTH proves a domain token
 * {@linkplain ConnectionGuard.Pass#prove proves} its source, so the peers of a run are served from the
 * reserve however many strangers are throttled (docs/security.md, "Slow and flooding clients").
 *
 * <p>With TLS ({@link TlsSettings#serves()}) every accepted connection is layered with TLS before
 * anything else: the TLS handshake, then HELLO/AUTH inside it, all within the same handshake
 * time-out. A client that does not speak TLS, or does not trust this host's certificate, never gets
 * to HELLO. The accepted plaintext channel stays what the reaper closes, so closing never waits for
 * TLS (no close_notify to a peer that does not read).
 */
public final class BinaryServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BinaryServer.class);

    private final Inbox inbox;
    private final ServerSocketChannel server;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Map<SocketChannel, Conn> connections = new ConcurrentHashMap<>();
    private final AtomicInteger connectionCount = new AtomicInteger();
    private final String advertisedHost;
    /** The TLS of every accepted connection, or {@code null}: plaintext. */
    private final TlsSettings tls;
    private final ConnectionGuard guard;
    private volatile boolean closed;

    /**
     * Listens on {@code bindHost:port} ({@code port} 0: any free port).
     *
     * @param advertisedHost the host name other hosts use to reach this one (e.g. 127.0.0.1)
     */
    public BinaryServer(Inbox inbox, String bindHost, int port, String advertisedHost) throws IOException {
        this(inbox, bindHost, port, advertisedHost, TlsSettings.NONE);
    }

    /**
     * Listens on {@code bindHost:port}, with TLS when {@code tls} serves it (this host's certificate
     * and key), else in plaintext.
     *
     * @throws IOException if {@code tls} is on without a certificate and key to serve with
     */
    public BinaryServer(Inbox inbox, String bindHost, int port, String advertisedHost, TlsSettings tls) throws IOException {
        if (tls.enabled() && !tls.serves()) {
            throw new IOException("TLS: the binary channel needs this host's certificate and key, not only --tls-ca");
        }
        this.inbox = inbox;
        this.advertisedHost = advertisedHost;
        this.tls = tls.serves() ? tls : null;
        this.server = ServerSocketChannel.open();
        // a fixed port (mpflc host --binary-port) must be free again at once when a host restarts with
        // its old connections in TIME_WAIT; it still cannot be bound while another socket listens on it
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        server.bind(new InetSocketAddress(bindHost, port), 64);
        this.guard = new ConnectionGuard("binary-" + port(), HostGuardLimits.fromSettings());
        Thread acceptor = new Thread(this::acceptLoop, "mpfl-binary-accept-" + port());
        acceptor.setDaemon(true);
        acceptor.start();
        Thread reaper = new Thread(this::reapLoop, "mpfl-binary-reaper-" + port());
        reaper.setDaemon(true);
        reaper.start();
    }

    public int port() {
        return ((InetSocketAddress) server.socket().getLocalSocketAddress()).getPort();
    }

    /** What strangers' connections may cost here (the host tells it which sources are known). */
    public ConnectionGuard guard() {
        return guard;
    }

    /** {@code host:port} to advertise as {@code Endpoint.binaryAddress}. */
    public String address() {
        return advertisedHost + ":" + port();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                SocketChannel ch = server.accept();
                java.util.Optional<ConnectionGuard.Pass> pass = admit(ch);
                if (pass.isEmpty()) {
                    ch.close(); // nothing read, no thread, no TLS handshake
                    continue;
                }
                take(ch, pass.get());
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("binary channel: accept failed: {}", e.toString());
                }
            }
        }
    }

    /** The guard's verdict on a connection just accepted; its expiry closes the channel under any TLS handshake. */
    private java.util.Optional<ConnectionGuard.Pass> admit(SocketChannel ch) throws IOException {
        if (!(ch.getRemoteAddress() instanceof InetSocketAddress remote) || remote.getAddress() == null) {
            return java.util.Optional.empty();
        }
        return guard.admit(remote.getAddress(), () -> {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        });
    }

    /**
     * Serves a connection this host did not accept on its port but was handed, already connected:
     * a relay's splice ({@code RelayLink}), whose bytes would otherwise be copied once more through
     * a loopback connection to this server. The same bound, TLS and handshake as an accepted one.
     */
    public void adopt(SocketChannel ch) throws IOException {
        ch.configureBlocking(true);
        // not a stranger's: the relay spliced it only after both ends proved the domain's token, and it
        // reaches this host over the host's own link to its relay (the guard would count every splice
        // against the relay's one address)
        take(ch, null);
    }

    /**
     * One connection, accepted (with the guard's {@code pass}) or adopted ({@code null}): bounded,
     * layered with TLS, then served on a thread of its own.
     */
    private void take(SocketChannel ch, ConnectionGuard.Pass pass) throws IOException {
        if (connections.size() >= BinaryProtocol.MAX_CONNECTIONS) {
            LOG.warn("binary channel: {} connections open, refusing one more", connections.size());
            if (pass != null) {
                pass.close();
            }
            ch.close();
            return;
        }
        Conn conn;
        try {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            conn = new Conn(ch, tls, pass);
        } catch (IOException | RuntimeException e) {
            if (pass != null) {
                pass.close();
            }
            ch.close();
            LOG.warn("binary channel: cannot set up an accepted connection: {}", e.toString());
            return;
        }
        connections.put(ch, conn);
        Thread t = new Thread(() -> serve(conn), "mpfl-binary-conn-" + connectionCount.incrementAndGet());
        t.setDaemon(true);
        t.start();
    }

    /**
     * One accepted connection: the accepted channel (what is closed), what frames are read from and
     * written to (the channel itself, or its TLS layer), when it was accepted, whether its handshake
     * is done.
     */
    private static final class Conn {
        final SocketChannel channel;
        /** The TLS layer over {@link #channel}, or {@code null}: plaintext. */
        final SSLSocket ssl;
        final ByteChannel io;
        final ChannelBuffer in;
        final long acceptedNanos = System.nanoTime();
        /** The guard's pass of an accepted connection; {@code null} for an adopted one. */
        final ConnectionGuard.Pass pass;
        volatile boolean authenticated;

        Conn(SocketChannel channel, TlsSettings tls, ConnectionGuard.Pass pass) throws IOException {
            this.channel = channel;
            this.pass = pass;
            if (tls == null) {
                this.ssl = null;
                this.io = channel;
            } else {
                this.ssl = tls.serverSocket(channel.socket()); // no I/O yet: the handshake runs in serve()
                this.io = new SocketStreams(ssl);
            }
            this.in = new ChannelBuffer(io, null, 0);
        }

        void close() {
            if (pass != null) {
                pass.close();
            }
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    /** Closes connections whose handshake is too slow and connections idle for too long. */
    private void reapLoop() {
        long handshake = BinaryProtocol.HANDSHAKE_MILLIS * 1_000_000L;
        long idle = BinaryProtocol.IDLE_MILLIS * 1_000_000L;
        while (!closed) {
            try {
                Thread.sleep(Math.max(20, Math.min(250, BinaryProtocol.HANDSHAKE_MILLIS / 4)));
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (Conn c : connections.values()) {
                if (!c.authenticated && now - c.acceptedNanos > handshake) {
                    LOG.info("binary channel: dropped a connection from {} without a handshake within {} ms",
                            remote(c.channel), BinaryProtocol.HANDSHAKE_MILLIS);
                    c.close();
                } else if (now - c.in.lastReadNanos() > idle) {
                    LOG.debug("binary channel: closed a connection idle for {} ms", BinaryProtocol.IDLE_MILLIS);
                    c.close();
                }
            }
        }
    }

    private static String remote(SocketChannel ch) {
        try {
            return String.valueOf(ch.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    private void serve(Conn conn) {
        SocketChannel ch = conn.channel;
        ByteChannel io = conn.io;
        ChannelBuffer in = conn.in;
        try {
            if (conn.ssl != null && !tlsHandshake(conn)) {
                return;
            }
            if (!handshake(conn)) {
                return;
            }
            // replies are collected while further frames are already buffered (a pipelining client) and
            // written together: one system call for a run of frames instead of one per frame
            ByteBuffer reply = ByteBuffer.allocateDirect(4096);
            while (!closed) {
                byte op;
                try {
                    op = in.getByte();
                } catch (java.io.EOFException eof) {
                    return;
                }
                byte outcome = switch (op) {
                    case BinaryProtocol.OP_STORE -> store(in, io, reply, false);
                    case BinaryProtocol.OP_ASK -> store(in, io, reply, true);
                    case BinaryProtocol.OP_ABORT -> abort(in);
                    case BinaryProtocol.OP_PING -> BinaryProtocol.REPLY_STORED;
                    default -> throw new IOException("unknown binary-channel op " + op);
                };
                reply.put(outcome);
                if (in.buffered() == 0 || !reply.hasRemaining()) {
                    flushReplies(io, reply);
                }
            }
        } catch (IOException e) {
            if (!closed) {
                LOG.debug("binary channel: connection ended: {}", e.toString());
            }
        } finally {
            connections.remove(ch);
            conn.close();
        }
    }

    /**
     * The TLS handshake of an accepted connection, bounded by the handshake time-out (the socket's
     * read time-out here; the reaper closes the connection at the same bound in any case). Says
     * whether it succeeded: a plaintext client, or one that does not trust this host's certificate,
     * is dropped here, before HELLO.
     */
    private boolean tlsHandshake(Conn conn) {
        try {
            conn.ssl.setSoTimeout((int) BinaryProtocol.HANDSHAKE_MILLIS);
            conn.ssl.startHandshake();
            // frames are read without a time-out, as in plaintext: the reaper closes idle connections
            conn.ssl.setSoTimeout(0);
            return true;
        } catch (IOException e) {
            if (!closed) {
                LOG.info("binary channel: dropped a connection from {}: TLS handshake failed: {}", remote(conn.channel),
                        e.toString());
            }
            return false;
        }
    }

    /**
     * Sends HELLO with a fresh challenge and checks the peer's AUTH frame; answers it and says
     * whether the connection is open. Reads at most a few hundred bytes, into the connection's
     * existing buffer, before the peer has proved a domain token.
     */
    private boolean handshake(Conn conn) throws IOException {
        byte[] challenge = new byte[BinaryProtocol.CHALLENGE_BYTES];
        RANDOM.nextBytes(challenge);
        ByteBuffer hello = ByteBuffer.wrap(BinaryProtocol.hello(challenge));
        while (hello.hasRemaining()) {
            conn.io.write(hello);
        }
        ChannelBuffer in = conn.in;
        in.startRead();
        byte op;
        try {
            op = in.getByte();
        } catch (java.io.EOFException eof) {
            return false; // a reachability probe: connected, read HELLO, left
        }
        if (op != BinaryProtocol.OP_AUTH) {
            LOG.info("binary channel: dropped a connection from {}: first frame is not AUTH", remote(conn.channel));
            return false;
        }
        int idLen = in.getUnsignedShort();
        int proofLen = in.getByte() & 0xff;
        if (idLen == 0 || idLen > BinaryProtocol.MAX_DOMAIN_ID) {
            LOG.info("binary channel: dropped a connection from {}: bad AUTH frame", remote(conn.channel));
            return false;
        }
        String domainId = new String(in.getBytes(idLen), StandardCharsets.UTF_8);
        byte[] proof = in.getBytes(proofLen);
        Inbox.Outcome outcome = inbox.authenticateChannel(domainId, challenge, proof);
        ByteBuffer answer = ByteBuffer.allocate(1).put(code(outcome)).flip();
        while (answer.hasRemaining()) {
            conn.io.write(answer);
        }
        if (outcome != Inbox.Outcome.STORED) {
            LOG.info("binary channel: refused a connection from {}: {}", remote(conn.channel), outcome);
            return false;
        }
        conn.authenticated = true;
        if (conn.pass != null) {
            conn.pass.prove();
        }
        return true;
    }

    /** Writes the collected replies. */
    private static void flushReplies(ByteChannel ch, ByteBuffer reply) throws IOException {
        reply.flip();
        while (reply.hasRemaining()) {
            ch.write(reply);
        }
        reply.clear();
    }

    private static byte code(Inbox.Outcome outcome) {
        return switch (outcome) {
            case STORED -> BinaryProtocol.REPLY_STORED;
            case DUPLICATE -> BinaryProtocol.REPLY_DUPLICATE;
            case BUSY -> BinaryProtocol.REPLY_BUSY;
            case REJECTED -> BinaryProtocol.REPLY_REJECTED;
        };
    }

    /**
     * STORE, or ASK (rendezvous: the payload follows only after GO). Admission before allocation:
     * the length against the host's per-message limit, then the inbox's {@link Inbox#admit} (domain,
     * proof, rank, buffer bound, host budget) — all from the header. A refused STORE's payload (at
     * most {@link BinaryProtocol#EAGER_MAX_BYTES}, already on its way) is skipped, never allocated.
     */
    private byte store(ChannelBuffer in, ByteChannel ch, ByteBuffer reply, boolean ask) throws IOException {
        int kindOrdinal = in.getByte() & 0xff;
        int typeCode = in.getByte() & 0xff;
        int proofLen = in.getByte() & 0xff;
        int idLen = in.getUnsignedShort();
        int context = in.getInt();
        int from = in.getInt();
        int to = in.getInt();
        int tag = in.getInt();
        long seq = in.getLong();
        long payloadLen = in.getLong();
        long maxPayload = ask ? BinaryProtocol.MAX_PAYLOAD : BinaryProtocol.EAGER_MAX_BYTES;
        if (idLen > BinaryProtocol.MAX_DOMAIN_ID || payloadLen < 0 || payloadLen > maxPayload
                || kindOrdinal >= Envelope.Kind.values().length) {
            throw new IOException("malformed store frame (domain id " + idLen + " bytes, payload " + payloadLen
                    + " bytes, kind " + kindOrdinal + ")");
        }
        String domainId = new String(in.getBytes(idLen), StandardCharsets.UTF_8);
        byte[] proof = in.getBytes(proofLen);
        Envelope.Kind kind = Envelope.Kind.values()[kindOrdinal];
        Envelope header = new Envelope(domainId, context, from, to, tag, seq, kind, proof, null);
        byte refusal;
        Inbox.Admission admission = null;
        if (payloadLen > inbox.maxMessageBytes()) {
            refusal = BinaryProtocol.REPLY_TOO_LARGE;
        } else {
            admission = inbox.admit(header, payloadLen);
            refusal = admission.outcome() == Inbox.Outcome.STORED ? -1 : code(admission.outcome());
        }
        try {
            if (refusal >= 0) {
                if (!ask) {
                    in.skip(payloadLen); // an eager payload is on its way: drop it
                }
                return refusal; // after ASK no payload follows
            }
            if (ask) {
                reply.put(BinaryProtocol.REPLY_GO);
                flushReplies(ch, reply); // the client waits for GO before it sends the payload
            }
            Payload payload;
            try {
                Payload.Type type = Payload.Type.ofCode(typeCode);
                if (type == Payload.Type.OBJECT) {
                    // decoded only now that the sender has proved the domain token (admission above)
                    payload = Payload.decode(type, in.getBytes((int) payloadLen));
                } else {
                    payload = in.getPayload(type, payloadLen);
                }
            } catch (IllegalArgumentException e) {
                // the bytes were consumed; the frame is answered, the connection stays usable
                LOG.warn("binary channel: undecodable payload for domain {}: {}", domainId, e.getMessage());
                return BinaryProtocol.REPLY_MALFORMED;
            }
            return code(inbox.store(new Envelope(domainId, context, from, to, tag, seq, kind, proof, payload),
                    admission.reservation()));
        } finally {
            if (admission != null) {
                admission.release();
            }
        }
    }

    private byte abort(ChannelBuffer in) throws IOException {
        int proofLen = in.getByte() & 0xff;
        int idLen = in.getUnsignedShort();
        if (idLen > BinaryProtocol.MAX_DOMAIN_ID) {
            throw new IOException("malformed abort frame");
        }
        String domainId = new String(in.getBytes(idLen), StandardCharsets.UTF_8);
        byte[] proof = in.getBytes(proofLen);
        return inbox.abort(domainId, proof) ? BinaryProtocol.REPLY_STORED : BinaryProtocol.REPLY_REJECTED;
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Conn c : connections.values()) {
            c.close();
        }
        guard.close();
    }
}
