package org.mpfl.runtime.transport.binary;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.ReceiverBusyException;
import org.mpfl.runtime.transport.StoreCallback;
import org.mpfl.runtime.transport.Transport;
import org.mpfl.runtime.transport.TransportException;

/**
 * The sending end of the binary channel: one persistent TCP connection (TCP_NODELAY) per peer host
 * address, shared by all ranks and domains of this host, reconnected after an error.
 *
 * <p>Replies are read by one reader thread per connection, in order, and matched to the requests
 * in the order their frames were written (the server answers every frame in the order it reads
 * them). So writers never wait for each other's replies: a store can be written and its reply
 * handled later ({@link #storeAsync}, used by the lanes for small standard sends), several frames
 * can be written back to back ({@link #storeAll}), and {@link #store} simply waits for its own
 * reply. Frames are written under the connection's lock, whole. A watchdog closes a connection whose
 * oldest unanswered request is older than {@code ioTimeoutMillis}; every unanswered request then
 * fails (retryable) — the lanes resend them, and the receiver drops what it already stored as
 * duplicates.
 *
 * <p>With TLS ({@link TlsSettings#enabled()}) every connection, probes included, is layered with
 * TLS right after the TCP connect: the peer host must present a certificate from {@code --tls-ca}
 * naming the host of its binary address (as SOAP over https), within the connect time-out, before
 * HELLO is read. Frames, handshake and replies are the same bytes inside TLS.
 */
public final class BinaryTransport implements Transport {
    private static final int CONNECT_TIMEOUT_MS = 2000;
    /** The bound on {@link #reaches}: a peer on a working network says HELLO within milliseconds. */
    private static final long PROBE_TIMEOUT_MS = 1000;

    private final long ioTimeoutMillis;
    /** The token of a domain this host belongs to, by domain ID ({@code null}: none), for handshakes. */
    private final Function<String, DomainToken> credentials;
    private final ConcurrentHashMap<String, Connection> connections = new ConcurrentHashMap<>();
    /** The TLS every connection is layered with, or {@code null}: plaintext. */
    private final TlsSettings tls;
    private volatile boolean closed;
    private final Thread watchdog;

    /**
     * @param ioTimeoutMillis how long a request may stay unanswered before its connection is closed
     * @param credentials     the token of a domain by its ID, as this host knows it ({@code null} if
     *                        it does not): a connection opens with a proof of the token of the domain
     *                        of the message that needs it (see {@link BinaryProtocol})
     */
    public BinaryTransport(long ioTimeoutMillis, Function<String, DomainToken> credentials) {
        this(ioTimeoutMillis, credentials, TlsSettings.NONE);
    }

    /**
     * Like {@link #BinaryTransport(long, Function)}, connecting with TLS when {@code tls} is on (the
     * peers' certificates verified against its CA and their binary addresses).
     */
    public BinaryTransport(long ioTimeoutMillis, Function<String, DomainToken> credentials, TlsSettings tls) {
        this.tls = tls.enabled() ? tls : null;
        this.ioTimeoutMillis = ioTimeoutMillis;
        this.credentials = credentials;
        this.watchdog = new Thread(this::watch, "mpfl-binary-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    /** Closes connections whose oldest unanswered request is older than the I/O timeout. */
    private void watch() {
        long limit = ioTimeoutMillis * 1_000_000L;
        while (!closed) {
            try {
                Thread.sleep(Math.min(500, Math.max(10, ioTimeoutMillis / 4)));
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (Connection c : connections.values()) {
                Link l = c.link;
                if (l != null) {
                    long since = l.oldestPendingSince();
                    if (since != 0 && now - since > limit) {
                        l.kill(new SocketTimeoutException("no reply on the binary channel to " + c.address
                                + " for " + ioTimeoutMillis + " ms"));
                    }
                }
            }
        }
    }

    @Override
    public String name() {
        return "binary";
    }

    /** Whether the peer's binary address says HELLO now, within {@link #PROBE_TIMEOUT_MS} (a fresh probe). */
    @Override
    public boolean reaches(Endpoint endpoint) {
        return endpoint.binaryAddress() != null && !reachable(List.of(endpoint), PROBE_TIMEOUT_MS).isEmpty();
    }

    /**
     * The probe of domain set-up: opens a fresh connection to each peer's binary address, all at
     * once, and keeps those whose server sends a well-formed HELLO within {@code timeoutMillis}
     * (then closes them: no AUTH, so the server allocates nothing). An open connection of an
     * earlier domain proves nothing — a firewall may have closed the port since without either end
     * noticing — so it is not consulted. A refused connect fails at once; a silently dropped one
     * (firewall) or a port that never says HELLO costs the whole timeout, once per domain.
     */
    @Override
    public Set<Endpoint> reachable(Collection<Endpoint> peers, long timeoutMillis) {
        Set<Endpoint> ok = new HashSet<>();
        if (closed || peers.isEmpty()) {
            return ok;
        }
        if (tls != null) {
            return reachableTls(peers, timeoutMillis);
        }
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        try (Selector sel = Selector.open()) {
            List<SocketChannel> open = new ArrayList<>();
            int outstanding = 0;
            try {
                for (Endpoint peer : peers) {
                    InetSocketAddress target = socketAddress(peer.binaryAddress());
                    if (target == null) {
                        continue;
                    }
                    SocketChannel ch = SocketChannel.open();
                    open.add(ch);
                    ch.configureBlocking(false);
                    ByteBuffer hello = ByteBuffer.allocate(BinaryProtocol.HELLO_BYTES);
                    try {
                        if (ch.connect(target)) {
                            ch.register(sel, SelectionKey.OP_READ, new Probe(peer, hello));
                        } else {
                            ch.register(sel, SelectionKey.OP_CONNECT, new Probe(peer, hello));
                        }
                        outstanding++;
                    } catch (IOException refused) {
                        ch.close();
                    }
                }
                // cancelled keys stay in keys() until the next select: count the probes still running
                while (outstanding > 0) {
                    long left = (deadline - System.nanoTime()) / 1_000_000L;
                    if (left <= 0) {
                        break;
                    }
                    sel.select(left);
                    for (SelectionKey k : sel.selectedKeys()) {
                        if (stepProbe(k, ok)) {
                            outstanding--;
                        }
                    }
                    sel.selectedKeys().clear();
                }
            } finally {
                for (SocketChannel ch : open) {
                    try {
                        ch.close();
                    } catch (IOException ignored) {
                        // a probe: nothing to keep
                    }
                }
            }
        } catch (IOException e) {
            // no selector: nothing could be probed, so nothing is known to answer
        }
        return ok;
    }

    /**
     * The probe over TLS: the same question (does a well-formed HELLO arrive within the time-out?),
     * asked after a TLS handshake that verifies the peer's certificate — a port that answers TLS
     * with the wrong certificate is not reachable. One short-lived thread per peer, all at once;
     * each one's connect, handshake and read are bounded by the common deadline, and this waits for
     * them no longer than that.
     */
    private Set<Endpoint> reachableTls(Collection<Endpoint> peers, long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        ConcurrentLinkedQueue<Endpoint> ok = new ConcurrentLinkedQueue<>();
        List<Thread> probes = new ArrayList<>();
        for (Endpoint peer : peers) {
            String address = peer.binaryAddress();
            InetSocketAddress target = socketAddress(address);
            if (target == null) {
                continue;
            }
            Thread t = new Thread(() -> {
                if (probeTls(address.substring(0, address.lastIndexOf(':')), target, deadline)) {
                    ok.add(peer);
                }
            }, "mpfl-binary-probe-" + address);
            t.setDaemon(true);
            t.start();
            probes.add(t);
        }
        try {
            for (Thread t : probes) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left > 0) {
                    t.join(left);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new HashSet<>(ok);
    }

    /** One TLS probe: connect, TLS handshake, a valid HELLO, all before {@code deadline}; then leave. */
    private boolean probeTls(String host, InetSocketAddress target, long deadline) {
        try (Socket s = new Socket()) {
            s.connect(target, remainingMillis(deadline));
            s.setSoTimeout(remainingMillis(deadline));
            try (Socket ssl = tls.clientSocket(s, host, target.getPort())) {
                ssl.setSoTimeout(remainingMillis(deadline));
                helloChallenge(ssl.getInputStream().readNBytes(BinaryProtocol.HELLO_BYTES));
                return true;
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Milliseconds left until {@code deadline} ({@link System#nanoTime()}), at least 1 (0 means no time-out). */
    private static int remainingMillis(long deadline) throws SocketTimeoutException {
        long left = (deadline - System.nanoTime()) / 1_000_000L;
        if (left <= 0) {
            throw new SocketTimeoutException("probe deadline passed");
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }

    /** One probe in flight: whose address, and the HELLO read so far. */
    private record Probe(Endpoint peer, ByteBuffer hello) {
    }

    /**
     * Advances one probe: finishes its connect, or reads HELLO bytes (a complete, valid one:
     * reachable). Returns whether the probe has ended (answered or failed).
     */
    private static boolean stepProbe(SelectionKey k, Set<Endpoint> ok) {
        SocketChannel ch = (SocketChannel) k.channel();
        Probe p = (Probe) k.attachment();
        try {
            if (k.isConnectable()) {
                if (ch.finishConnect()) {
                    k.interestOps(SelectionKey.OP_READ);
                }
                return false;
            }
            if (ch.read(p.hello()) < 0) {
                throw new IOException("closed before HELLO");
            }
            if (!p.hello().hasRemaining()) {
                k.cancel();
                helloChallenge(p.hello().array()); // throws (probe failed) unless a well-formed HELLO
                ok.add(p.peer());
                ch.close();
                return true;
            }
            return false;
        } catch (IOException e) {
            k.cancel();
            try {
                ch.close();
            } catch (IOException ignored) {
                // failed probe
            }
            return true;
        }
    }

    /** {@code host:port} as a socket address, or {@code null} if it is not one. */
    private static InetSocketAddress socketAddress(String address) {
        if (address == null) {
            return null;
        }
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            return null;
        }
        try {
            InetSocketAddress a = new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
            return a.isUnresolved() ? null : a;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    @Override
    public void store(Endpoint endpoint, Envelope e) throws TransportException {
        String address = address(endpoint, e);
        byte reply;
        Connection c = connection(address);
        c.lock.lock();
        try {
            long payloadBytes = e.payload().encodedLength();
            boolean rendezvous = payloadBytes > BinaryProtocol.EAGER_MAX_BYTES;
            reply = c.request(e.domainId(), out -> {
                out.startWrite();
                writeStoreFrame(out, e, rendezvous ? BinaryProtocol.OP_ASK : BinaryProtocol.OP_STORE, payloadBytes,
                        !rendezvous);
            });
            if (rendezvous && reply == BinaryProtocol.REPLY_GO) {
                // still under the lock: the payload must be the next bytes on the connection
                reply = c.request(e.domainId(), out -> {
                    out.startWrite();
                    out.putPayload(e.payload());
                });
            }
        } catch (HandshakeRefused refused) {
            reply = refused.reply;
        } catch (IOException ex) {
            c.disconnect();
            throw new TransportException("binary channel to " + address + ": " + ex.getMessage(), false, ex);
        } finally {
            c.lock.unlock();
        }
        check(reply, address);
    }

    /**
     * Writes an eager store and returns; {@code done} gets its outcome later, on the connection's
     * reader thread ({@code null}: stored or duplicate), or at once on this thread if it could not
     * be written. Payloads above {@link BinaryProtocol#EAGER_MAX_BYTES} are not taken (false).
     */
    @Override
    public boolean answersAsynchronously() {
        return true;
    }

    @Override
    public boolean storeAsync(Endpoint endpoint, Envelope e, StoreCallback done) {
        String address = endpoint.binaryAddress();
        long payloadBytes = e.payload().encodedLength();
        if (address == null || payloadBytes > BinaryProtocol.EAGER_MAX_BYTES) {
            return false;
        }
        Connection c = connection(address);
        Link l;
        c.lock.lock();
        try {
            l = c.link(e.domainId());
            l.send(out -> {
                out.startWrite();
                writeStoreFrame(out, e, BinaryProtocol.OP_STORE, payloadBytes, true);
            }, true, new ReplyHandler() {
                @Override
                public void reply(byte b) {
                    TransportException failure = null;
                    try {
                        check(b, address);
                    } catch (TransportException ex) {
                        failure = ex;
                    }
                    done.done(failure);
                }

                @Override
                public void failed(IOException ex) {
                    done.done(new TransportException("binary channel to " + address + ": " + ex.getMessage(), false, ex));
                }
            });
        } catch (HandshakeRefused refused) {
            c.lock.unlock();
            TransportException failure = null;
            try {
                check(refused.reply, address);
            } catch (TransportException ex) {
                failure = ex;
            }
            done.done(failure);
            return true;
        } catch (IOException ex) {
            // could not connect: nothing was registered
            c.lock.unlock();
            done.done(new TransportException("binary channel to " + address + ": " + ex.getMessage(), false, ex));
            return true;
        }
        c.lock.unlock();
        return true;
    }

    /**
     * Pipelined stores: the eager frames of a run of envelopes are written back to back and their
     * one-byte replies awaited afterwards, so a run of small messages costs one round trip instead of
     * one each. A payload above {@link BinaryProtocol#EAGER_MAX_BYTES} goes alone, with its
     * rendezvous. A broken connection fails the unanswered rest (the lane resends them; whatever the
     * receiver already stored is then dropped there as a duplicate).
     */
    @Override
    public TransportException[] storeAll(Endpoint endpoint, List<Envelope> envelopes) {
        TransportException[] out = new TransportException[envelopes.size()];
        String address = endpoint.binaryAddress();
        if (address == null) {
            Arrays.fill(out, new TransportException("advertises no binary address", true, null));
            return out;
        }
        Connection c = connection(address);
        int i = 0;
        while (i < out.length) {
            Envelope first = envelopes.get(i);
            if (first.payload().encodedLength() > BinaryProtocol.EAGER_MAX_BYTES) {
                try {
                    store(endpoint, first);
                } catch (ReceiverBusyException busy) {
                    out[i] = busy;
                } catch (TransportException ex) {
                    Arrays.fill(out, i, out.length, ex);
                    return out;
                }
                i++;
                continue;
            }
            int end = i;
            long bytes = 0;
            while (end < out.length && bytes < BinaryProtocol.EAGER_MAX_BYTES) {
                long len = envelopes.get(end).payload().encodedLength();
                if (len > BinaryProtocol.EAGER_MAX_BYTES) {
                    break;
                }
                bytes += len;
                end++;
            }
            List<CompletableFuture<Byte>> replies = new ArrayList<>(end - i);
            c.lock.lock();
            try {
                Link l = c.link(envelopes.get(i).domainId());
                for (int k = i; k < end; k++) {
                    Envelope e = envelopes.get(k);
                    CompletableFuture<Byte> f = new CompletableFuture<>();
                    replies.add(f);
                    l.send(o -> {
                        o.startWrite();
                        writeStoreFrame(o, e, BinaryProtocol.OP_STORE, e.payload().encodedLength(), true);
                    }, k == end - 1, futureHandler(f));
                }
            } catch (HandshakeRefused refused) {
                // the lane's envelopes share one domain: the handshake's answer is theirs
                TransportException failure = null;
                try {
                    check(refused.reply, address);
                } catch (TransportException ex) {
                    failure = ex;
                }
                Arrays.fill(out, i, out.length, failure);
                return out;
            } catch (IOException ex) {
                c.disconnect();
                Arrays.fill(out, i, out.length,
                        new TransportException("binary channel to " + address + ": " + ex.getMessage(), false, ex));
                return out;
            } finally {
                c.lock.unlock();
            }
            for (int k = 0; k < replies.size(); k++) {
                try {
                    check(awaitReply(replies.get(k)), address);
                } catch (IOException ex) {
                    Arrays.fill(out, i + k, out.length,
                            new TransportException("binary channel to " + address + ": " + ex.getMessage(), false, ex));
                    return out;
                } catch (TransportException ex) {
                    out[i + k] = ex;
                }
            }
            i = end;
        }
        return out;
    }

    private static String address(Endpoint endpoint, Envelope e) throws TransportException {
        String address = endpoint.binaryAddress();
        if (address == null) {
            throw new TransportException("rank " + e.to() + " advertises no binary address", true, null);
        }
        return address;
    }

    private static void check(byte reply, String address) throws TransportException {
        switch (reply) {
            case BinaryProtocol.REPLY_STORED, BinaryProtocol.REPLY_DUPLICATE -> { }
            case BinaryProtocol.REPLY_BUSY -> throw new ReceiverBusyException("host " + address + " is busy");
            case BinaryProtocol.REPLY_REJECTED -> throw new TransportException("host " + address
                    + " rejected the message (bad token proof, or the domain was aborted)", true, null);
            case BinaryProtocol.REPLY_TOO_LARGE -> throw new TransportException("host " + address
                    + " refused the message: its payload is over that host's per-message limit", true, null);
            default -> throw new TransportException("host " + address + " could not decode the message", true, null);
        }
    }

    private static void writeStoreFrame(ChannelBuffer out, Envelope e, byte op, long payloadBytes, boolean withPayload)
            throws IOException {
        byte[] id = e.domainId().getBytes(StandardCharsets.UTF_8);
        byte[] proof = e.proof() == null ? new byte[0] : e.proof();
        out.room(BinaryProtocol.STORE_FIXED + 1);
        out.buffer().put(op).put((byte) e.kind().ordinal())
                .put((byte) e.payload().type().code)
                .put((byte) proof.length).putShort((short) id.length)
                .putInt(e.context()).putInt(e.from()).putInt(e.to()).putInt(e.tag()).putLong(e.seq())
                .putLong(payloadBytes);
        out.putBytes(id);
        out.putBytes(proof);
        if (withPayload) {
            out.putPayload(e.payload());
        }
    }

    @Override
    public void abort(Endpoint endpoint, String domainId, byte[] proof) throws TransportException {
        String address = endpoint.binaryAddress();
        Connection c = connection(address);
        c.lock.lock();
        try {
            byte[] id = domainId.getBytes(StandardCharsets.UTF_8);
            c.request(domainId, out -> {
                out.startWrite().put(BinaryProtocol.OP_ABORT).put((byte) proof.length).putShort((short) id.length);
                out.putBytes(id);
                out.putBytes(proof);
            });
        } catch (HandshakeRefused refused) {
            throw new TransportException("abort over binary channel to " + address + ": the connection was refused ("
                    + refused.getMessage() + ")", refused.reply != BinaryProtocol.REPLY_BUSY, refused);
        } catch (IOException ex) {
            c.disconnect();
            throw new TransportException("abort over binary channel to " + address + ": " + ex.getMessage(), false, ex);
        } finally {
            c.lock.unlock();
        }
    }

    private Connection connection(String address) {
        return connections.computeIfAbsent(address, Connection::new);
    }

    @Override
    public void close() {
        closed = true;
        watchdog.interrupt();
        for (Connection c : connections.values()) {
            c.disconnect();
        }
        connections.clear();
    }

    @FunctionalInterface
    private interface FrameWriter {
        void write(ChannelBuffer out) throws IOException;
    }

    /** What happens with the reply to one request. Called on the reader thread (or the failing writer). */
    private interface ReplyHandler {
        void reply(byte b);

        void failed(IOException e);
    }

    private static ReplyHandler futureHandler(CompletableFuture<Byte> f) {
        return new ReplyHandler() {
            @Override
            public void reply(byte b) {
                f.complete(b);
            }

            @Override
            public void failed(IOException e) {
                f.completeExceptionally(e);
            }
        };
    }

    /** Waits for a reply; bounded because the watchdog fails every request unanswered for too long. */
    private static byte awaitReply(CompletableFuture<Byte> f) throws IOException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    throw cause instanceof IOException io ? io : new IOException(String.valueOf(cause), cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One connection to one peer address: its current link; frames are written under {@link #lock}. */
    private final class Connection {
        final String address;
        final ReentrantLock lock = new ReentrantLock();
        volatile Link link;

        Connection(String address) {
            this.address = address;
        }

        /**
         * The live link, connecting first if there is none — with the handshake for
         * {@code domainId} (a link, once open, carries messages of every domain). Under the lock.
         *
         * @throws HandshakeRefused if the server answered the handshake with anything but STORED
         */
        Link link(String domainId) throws IOException {
            if (closed) {
                throw new IOException("transport closed");
            }
            Link l = link;
            if (l == null || l.dead) {
                SocketChannel ch = connect();
                ByteChannel io = ch;
                try {
                    Socket s = ch.socket();
                    if (tls != null) {
                        // the TLS handshake is bounded like HELLO/AUTH; frames are then read without a
                        // time-out (as the plaintext channel): the watchdog bounds unanswered requests
                        s.setSoTimeout(CONNECT_TIMEOUT_MS);
                        s = tls.clientSocket(s, address.substring(0, address.lastIndexOf(':')), ch.socket().getPort());
                        io = new SocketStreams(s);
                    }
                    handshake(s, io, domainId);
                    s.setSoTimeout(0);
                } catch (IOException | RuntimeException e) {
                    ch.close();
                    throw e;
                }
                l = new Link(ch, io, address);
                link = l;
                l.startReader();
            }
            return l;
        }

        /** Reads HELLO and answers it with AUTH for {@code domainId}; bounded by the connect timeout. */
        private void handshake(Socket s, ByteChannel io, String domainId) throws IOException {
            DomainToken token = credentials.apply(domainId);
            if (token == null) {
                throw new HandshakeRefused(BinaryProtocol.REPLY_REJECTED, "this host holds no token of domain "
                        + domainId);
            }
            byte[] challenge = helloChallenge(readWithTimeout(s, BinaryProtocol.HELLO_BYTES));
            byte[] id = domainId.getBytes(StandardCharsets.UTF_8);
            byte[] proof = token.proveChannel(challenge, domainId);
            ByteBuffer auth = ByteBuffer.allocate(1 + 2 + 1 + id.length + proof.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            auth.put(BinaryProtocol.OP_AUTH).putShort((short) id.length).put((byte) proof.length).put(id).put(proof).flip();
            while (auth.hasRemaining()) {
                io.write(auth);
            }
            byte reply = readWithTimeout(s, 1)[0];
            if (reply != BinaryProtocol.REPLY_STORED) {
                throw new HandshakeRefused(reply, "handshake for domain answered " + reply);
            }
        }

        /** Writes one request and waits for its reply byte. Under the lock. */
        byte request(String domainId, FrameWriter frame) throws IOException {
            CompletableFuture<Byte> f = new CompletableFuture<>();
            link(domainId).send(frame, true, futureHandler(f));
            return awaitReply(f);
        }

        SocketChannel connect() throws IOException {
            int colon = address.lastIndexOf(':');
            if (colon < 0) {
                throw new IOException("binary address '" + address + "' is not host:port");
            }
            String host = address.substring(0, colon);
            int port = Integer.parseInt(address.substring(colon + 1));
            SocketChannel ch = SocketChannel.open();
            try {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.socket().connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
                return ch;
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        }

        void disconnect() {
            Link l = link;
            if (l != null) {
                l.kill(new IOException("disconnected"));
            }
        }
    }

    /** The server answered the handshake with {@link #reply} instead of opening the connection. */
    private static final class HandshakeRefused extends IOException {
        private static final long serialVersionUID = 1L;
        final byte reply;

        HandshakeRefused(byte reply, String message) {
            super(message);
            this.reply = reply;
        }
    }

    /** Checks the server's HELLO ({@link BinaryProtocol#HELLO_BYTES} bytes) and returns its challenge. */
    private static byte[] helloChallenge(byte[] hello) throws IOException {
        if (hello.length < BinaryProtocol.HELLO_BYTES) {
            throw new java.io.EOFException("binary channel closed before HELLO");
        }
        for (int i = 0; i < BinaryProtocol.HELLO_MAGIC.length; i++) {
            if (hello[i] != BinaryProtocol.HELLO_MAGIC[i]) {
                throw new IOException("not an MPFL binary channel (no HELLO)");
            }
        }
        if (hello[BinaryProtocol.HELLO_MAGIC.length] != BinaryProtocol.VERSION) {
            throw new IOException("binary channel version " + hello[BinaryProtocol.HELLO_MAGIC.length] + " not spoken here");
        }
        return Arrays.copyOfRange(hello, BinaryProtocol.HELLO_MAGIC.length + 1, BinaryProtocol.HELLO_BYTES);
    }

    /**
     * Reads exactly {@code n} bytes within {@link #CONNECT_TIMEOUT_MS} from a blocking channel's
     * socket adaptor, or from its TLS layer.
     */
    private static byte[] readWithTimeout(Socket s, int n) throws IOException {
        int before = s.getSoTimeout();
        s.setSoTimeout(CONNECT_TIMEOUT_MS);
        try {
            // the socket adaptor's stream honours SO_TIMEOUT (a channel read does not); exactly n bytes, no read-ahead
            // (over TLS the socket's one input stream keeps what it decrypted ahead for the link's reads)
            byte[] b = s.getInputStream().readNBytes(n);
            if (b.length < n) {
                throw new java.io.EOFException("binary channel closed during the handshake");
            }
            return b;
        } finally {
            s.setSoTimeout(before);
        }
    }

    private record Pending(long since, ReplyHandler handler) {
    }

    /** One TCP connection: written by writers under the connection's lock, read by its reader thread. */
    private static final class Link {
        /** The TCP connection: closing it ends the link at once (over TLS too: no close_notify to wait for). */
        final SocketChannel channel;
        final String address;
        final ChannelBuffer out;
        final ChannelBuffer in;
        /** Handlers of the requests written and not yet answered, in writing order. Guarded by itself. */
        final ArrayDeque<Pending> pending = new ArrayDeque<>();
        volatile boolean dead;

        /** @param io what frames go through: {@code channel} itself, or its TLS layer */
        Link(SocketChannel channel, ByteChannel io, String address) {
            this.channel = channel;
            this.address = address;
            this.out = new ChannelBuffer(io, null, 0);
            this.in = new ChannelBuffer(io, null, 0);
        }

        void startReader() {
            Thread t = new Thread(this::readLoop, "mpfl-binary-replies-" + address);
            t.setDaemon(true);
            t.start();
        }

        /**
         * Registers the handler, then writes the frame (and flushes it if {@code flush}). A failure
         * kills the link, which fails every unanswered request, this one included.
         */
        void send(FrameWriter frame, boolean flush, ReplyHandler handler) {
            synchronized (pending) {
                if (dead) {
                    handler.failed(new IOException("connection to " + address + " closed"));
                    return;
                }
                pending.addLast(new Pending(System.nanoTime(), handler));
            }
            try {
                frame.write(out);
                if (flush) {
                    out.flush();
                } else {
                    out.flushIfMoreThan(BinaryProtocol.BUFFER_BYTES / 2);
                }
            } catch (IOException | RuntimeException e) {
                kill(e instanceof IOException io ? io : new IOException(e.toString(), e));
            }
        }

        long oldestPendingSince() {
            synchronized (pending) {
                Pending p = pending.peekFirst();
                return p == null ? 0 : p.since();
            }
        }

        private void readLoop() {
            in.startRead();
            try {
                while (true) {
                    byte b = in.getByte();
                    Pending p;
                    synchronized (pending) {
                        p = pending.pollFirst();
                    }
                    if (p == null) {
                        throw new IOException("unexpected reply byte from " + address);
                    }
                    p.handler().reply(b);
                }
            } catch (IOException | RuntimeException e) {
                kill(e instanceof IOException io ? io : new IOException(e.toString(), e));
            }
        }

        /** Closes the connection and fails every unanswered request. */
        void kill(IOException why) {
            ArrayList<Pending> failed;
            synchronized (pending) {
                dead = true;
                failed = new ArrayList<>(pending);
                pending.clear();
            }
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            for (Pending p : failed) {
                p.handler().failed(why);
            }
        }
    }
}
