package org.mpfl.runtime.transport.binary;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Inbox;
import org.mpfl.runtime.transport.Payload;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving end of the binary channel: accepts connections from other MPFL service hosts and
 * hands every stored envelope to the {@link Inbox}, answering with its outcome. One thread per
 * connection reads frames in order, so per-connection order is kept; the inbox never blocks, so a
 * connection is never held up by a rank's program.
 */
public final class BinaryServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BinaryServer.class);

    private final Inbox inbox;
    private final ServerSocketChannel server;
    private final Set<SocketChannel> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionCount = new AtomicInteger();
    private final String advertisedHost;
    private volatile boolean closed;

    /**
     * Listens on {@code bindHost:port} ({@code port} 0: any free port).
     *
     * @param advertisedHost the host name other hosts use to reach this one (e.g. 127.0.0.1)
     */
    public BinaryServer(Inbox inbox, String bindHost, int port, String advertisedHost) throws IOException {
        this.inbox = inbox;
        this.advertisedHost = advertisedHost;
        this.server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(bindHost, port), 64);
        Thread acceptor = new Thread(this::acceptLoop, "mpfl-binary-accept-" + port());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return ((InetSocketAddress) server.socket().getLocalSocketAddress()).getPort();
    }

    /** {@code host:port} to advertise as {@code Endpoint.binaryAddress}. */
    public String address() {
        return advertisedHost + ":" + port();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                SocketChannel ch = server.accept();
                if (connections.size() >= BinaryProtocol.MAX_CONNECTIONS) {
                    LOG.warn("binary channel: {} connections open, refusing one more", connections.size());
                    ch.close();
                    continue;
                }
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                connections.add(ch);
                Thread t = new Thread(() -> serve(ch), "mpfl-binary-conn-" + connectionCount.incrementAndGet());
                t.setDaemon(true);
                t.start();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("binary channel: accept failed: {}", e.toString());
                }
            }
        }
    }

    private void serve(SocketChannel ch) {
        ChannelBuffer in = new ChannelBuffer(ch, null, 0);
        // replies are collected while further frames are already buffered (a pipelining client) and
        // written together: one system call for a run of frames instead of one per frame
        ByteBuffer reply = ByteBuffer.allocateDirect(4096);
        in.startRead();
        try {
            while (!closed) {
                byte op;
                try {
                    op = in.getByte();
                } catch (java.io.EOFException eof) {
                    return;
                }
                byte outcome = switch (op) {
                    case BinaryProtocol.OP_STORE -> store(in, ch, reply, false);
                    case BinaryProtocol.OP_ASK -> store(in, ch, reply, true);
                    case BinaryProtocol.OP_ABORT -> abort(in);
                    case BinaryProtocol.OP_PING -> BinaryProtocol.REPLY_STORED;
                    default -> throw new IOException("unknown binary-channel op " + op);
                };
                reply.put(outcome);
                if (in.buffered() == 0 || !reply.hasRemaining()) {
                    flushReplies(ch, reply);
                }
            }
        } catch (IOException e) {
            if (!closed) {
                LOG.debug("binary channel: connection ended: {}", e.toString());
            }
        } finally {
            connections.remove(ch);
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    /** Writes the collected replies. */
    private static void flushReplies(SocketChannel ch, ByteBuffer reply) throws IOException {
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

    /** STORE, or ASK (rendezvous: probe the inbox, answer GO before the payload is read). */
    private byte store(ChannelBuffer in, SocketChannel ch, ByteBuffer reply, boolean ask) throws IOException {
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
        if (ask) {
            Inbox.Outcome probe = inbox.probe(new Envelope(domainId, context, from, to, tag, seq, kind, proof, null),
                    payloadLen);
            if (probe != Inbox.Outcome.STORED) {
                return code(probe); // no payload follows
            }
            reply.put(BinaryProtocol.REPLY_GO);
            flushReplies(ch, reply); // the client waits for GO before it sends the payload
        }
        Payload payload;
        try {
            Payload.Type type = Payload.Type.ofCode(typeCode);
            if (type == Payload.Type.OBJECT) {
                // never deserialise an object sent by someone who cannot prove the domain token
                byte[] raw = in.getBytes((int) payloadLen);
                Envelope header = new Envelope(domainId, context, from, to, tag, seq, kind, proof, null);
                if (inbox.probe(header, payloadLen) == Inbox.Outcome.REJECTED) {
                    return BinaryProtocol.REPLY_REJECTED;
                }
                payload = Payload.decode(type, raw);
            } else {
                payload = in.getPayload(type, payloadLen);
            }
        } catch (IllegalArgumentException e) {
            // the bytes were consumed; the frame is answered, the connection stays usable
            LOG.warn("binary channel: undecodable payload for domain {}: {}", domainId, e.getMessage());
            return BinaryProtocol.REPLY_MALFORMED;
        }
        return code(inbox.store(new Envelope(domainId, context, from, to, tag, seq, kind, proof, payload)));
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
        for (SocketChannel ch : connections) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
