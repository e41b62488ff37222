package org.mpfl.runtime.transport.binary;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.relay.RelayDialer;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.runtime.transport.DomainTransports;
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

    private final long ioTimeoutMillis;
    /** The token of a domain this host belongs to, by domain ID ({@code null}: none), for handshakes. */
    private final Function<String, DomainToken> credentials;
    private final ConcurrentHashMap<String, Connection> connections = new ConcurrentHashMap<>();
    /** The TLS every connection is layered with, or {@code null}: plaintext. */
    private final TlsSettings tls;
    private final ReachabilityProbe probe;
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
        this.probe = new ReachabilityProbe(this.tls);
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
            // a domain's own connection (through a relay) goes with the domain
            connections.entrySet().removeIf(en -> {
                Connection c = en.getValue();
                if (c.domainId == null || credentials.apply(c.domainId) != null) {
                    return false;
                }
                c.disconnect();
                return true;
            });
            for (Connection c : connections.values()) {
                ReplyLink l = c.link;
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

    /** Whether the peer's binary address says HELLO now, within the set-up probe's bounds (a fresh probe). */
    @Override
    public boolean reaches(Endpoint endpoint) {
        return endpoint.binaryAddress() != null && !reachable(List.of(endpoint), DomainTransports.PROBE_TIMEOUT_MS).isEmpty();
    }

    /**
     * The probe of domain set-up ({@link ReachabilityProbe}): a fresh connection to each peer's binary
     * address, all at once; reachable are those whose server says a well-formed HELLO in time.
     */
    @Override
    public Set<Endpoint> reachable(Collection<Endpoint> peers, long timeoutMillis) {
        return closed ? new HashSet<>() : probe.reachable(peers, timeoutMillis);
    }

    /** As {@link #reachable(Collection, long)}, a relayed or reverse probe admitted as domain {@code domainId}. */
    @Override
    public Set<Endpoint> reachable(String domainId, Collection<Endpoint> peers, long timeoutMillis) {
        return closed ? new HashSet<>() : probe.reachable(domainId, peers, timeoutMillis);
    }

    @Override
    public void store(Endpoint endpoint, Envelope e) throws TransportException {
        String address = address(endpoint, e);
        byte reply;
        Connection c = connection(address, e.domainId());
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
        Connection c = connection(address, e.domainId());
        ReplyLink l;
        c.lock.lock();
        try {
            l = c.link(e.domainId());
            l.send(out -> {
                out.startWrite();
                writeStoreFrame(out, e, BinaryProtocol.OP_STORE, payloadBytes, true);
            }, true, new ReplyLink.ReplyHandler() {
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
        // a batch is one lane's: one domain's messages to one peer
        Connection c = connection(address, envelopes.isEmpty() ? null : envelopes.get(0).domainId());
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
                ReplyLink l = c.link(envelopes.get(i).domainId());
                for (int k = i; k < end; k++) {
                    Envelope e = envelopes.get(k);
                    CompletableFuture<Byte> f = new CompletableFuture<>();
                    replies.add(f);
                    l.send(o -> {
                        o.startWrite();
                        writeStoreFrame(o, e, BinaryProtocol.OP_STORE, e.payload().encodedLength(), true);
                    }, k == end - 1, ReplyLink.futureHandler(f));
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
                    check(ReplyLink.awaitReply(replies.get(k)), address);
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
        Connection c = connection(address, domainId);
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

    /**
     * The connection to {@code address} for messages of domain {@code domainId}: one per address, shared by
     * every domain, when the peer is reached directly; one per domain and address when it is reached through
     * a relay or by a reverse connection ({@link RelayDialer}), since the relay admits such a connection
     * for one domain (proven with that domain's token): another domain's messages on it would ride on a
     * run that may end (its connections are then closed) or never have admitted them.
     */
    private Connection connection(String address, String domainId) {
        Connection shared = connections.get(address);
        if (shared != null || domainId == null) {
            return shared != null ? shared : connections.computeIfAbsent(address, a -> new Connection(a, null));
        }
        Connection own = connections.get(domainKey(domainId, address));
        if (own != null) {
            return own;
        }
        // decided once per address and domain (the dialer's choice is kept per address): not on every message
        return indirect(address) ? connections.computeIfAbsent(domainKey(domainId, address), k -> new Connection(address, domainId))
                : connections.computeIfAbsent(address, a -> new Connection(a, null));
    }

    private static String domainKey(String domainId, String address) {
        return domainId + " " + address;
    }

    /** Whether this host reaches {@code address} through a relay or by a reverse connection (as decided now). */
    private static boolean indirect(String address) {
        int colon = address.lastIndexOf(':');
        try {
            return colon > 0 && RelayDialer.shared().indirectWaitMs(null, address.substring(0, colon),
                    Integer.parseInt(address.substring(colon + 1))).isPresent();
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** How many connections this transport holds now, and to which keys ({@code address}, or {@code domain address}). */
    Set<String> connectionKeys() {
        return new java.util.TreeSet<>(connections.keySet());
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

    /** One connection to one peer address: its current link; frames are written under {@link #lock}. */
    private final class Connection {
        final String address;
        /** The domain this connection is admitted for at a relay, or {@code null}: a direct one, any domain's. */
        final String domainId;
        final ReentrantLock lock = new ReentrantLock();
        volatile ReplyLink link;

        Connection(String address, String domainId) {
            this.address = address;
            this.domainId = domainId;
        }

        /**
         * The live link, connecting first if there is none — with the handshake for
         * {@code domainId} (a link, once open, carries messages of every domain). Under the lock.
         *
         * @throws HandshakeRefused if the server answered the handshake with anything but STORED
         */
        ReplyLink link(String domainId) throws IOException {
            if (closed) {
                throw new IOException("transport closed");
            }
            ReplyLink l = link;
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
                l = new ReplyLink(ch, io, address);
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
            byte[] challenge = BinaryProtocol.helloChallenge(readWithTimeout(s, BinaryProtocol.HELLO_BYTES));
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
        byte request(String domainId, ReplyLink.FrameWriter frame) throws IOException {
            CompletableFuture<Byte> f = new CompletableFuture<>();
            link(domainId).send(frame, true, ReplyLink.futureHandler(f));
            return ReplyLink.awaitReply(f);
        }

        SocketChannel connect() throws IOException {
            int colon = address.lastIndexOf(':');
            if (colon < 0) {
                throw new IOException("binary address '" + address + "' is not host:port");
            }
            String host = address.substring(0, colon);
            int port = Integer.parseInt(address.substring(colon + 1));
            // direct, or spliced through a relay when this host reaches that address only so
            return RelayDialer.shared().connect(domainId, null, host, port, CONNECT_TIMEOUT_MS);
        }

        void disconnect() {
            ReplyLink l = link;
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

}
