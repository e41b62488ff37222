package org.mpfl.runtime.transport.binary;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.mpfl.runtime.transport.Endpoint;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.ReceiverBusyException;
import org.mpfl.runtime.transport.Transport;
import org.mpfl.runtime.transport.TransportException;

/**
 * The sending end of the binary channel: one persistent TCP connection (TCP_NODELAY) per peer host
 * address, shared by all ranks and domains of this host, reconnected after an error. A store writes
 * one frame and waits for its one-byte reply; stores to the same peer host take turns on the
 * connection. The channel is blocking (fewest system calls per message); a watchdog closes a
 * connection whose request takes longer than {@code ioTimeoutMillis}, which fails that store
 * (retryable) instead of letting it hang.
 */
public final class BinaryTransport implements Transport {
    private static final int CONNECT_TIMEOUT_MS = 2000;
    /** How long an unreachable address is remembered before trying again. */
    private static final long UNREACHABLE_MEMORY_NANOS = 5_000_000_000L;

    private final long ioTimeoutMillis;
    private final ConcurrentHashMap<String, Connection> connections = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> unreachableSince = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private final Thread watchdog;

    public BinaryTransport(long ioTimeoutMillis) {
        this.ioTimeoutMillis = ioTimeoutMillis;
        this.watchdog = new Thread(this::watch, "mpfl-binary-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    /** Closes connections stuck in one request for longer than the I/O timeout. */
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
                long since = c.busySince;
                if (since != 0 && now - since > limit) {
                    c.abandon();
                }
            }
        }
    }

    @Override
    public String name() {
        return "binary";
    }

    /** Whether the peer's binary address answers a ping (the set-up negotiation); remembered per address. */
    @Override
    public boolean reaches(Endpoint endpoint) {
        String address = endpoint.binaryAddress();
        if (address == null || closed) {
            return false;
        }
        Long since = unreachableSince.get(address);
        if (since != null && System.nanoTime() - since < UNREACHABLE_MEMORY_NANOS) {
            return false;
        }
        Connection c = connection(address);
        c.lock.lock();
        try {
            if (c.pinged) {
                return true;
            }
            c.request(out -> out.startWrite().put(BinaryProtocol.OP_PING));
            c.pinged = true;
            unreachableSince.remove(address);
            return true;
        } catch (IOException e) {
            c.disconnect();
            unreachableSince.put(address, System.nanoTime());
            return false;
        } finally {
            c.lock.unlock();
        }
    }

    @Override
    public void store(Endpoint endpoint, Envelope e) throws TransportException {
        String address = endpoint.binaryAddress();
        if (address == null) {
            throw new TransportException("rank " + e.to() + " advertises no binary address", true, null);
        }
        byte reply;
        Connection c = connection(address);
        c.lock.lock();
        try {
            byte[] id = e.domainId().getBytes(StandardCharsets.UTF_8);
            byte[] proof = e.proof() == null ? new byte[0] : e.proof();
            long payloadBytes = e.payload().encodedLength();
            boolean rendezvous = payloadBytes > BinaryProtocol.EAGER_MAX_BYTES;
            reply = c.request(out -> {
                ByteBuffer b = out.startWrite();
                b.put(rendezvous ? BinaryProtocol.OP_ASK : BinaryProtocol.OP_STORE).put((byte) e.kind().ordinal())
                        .put((byte) e.payload().type().code)
                        .put((byte) proof.length).putShort((short) id.length)
                        .putInt(e.context()).putInt(e.from()).putInt(e.to()).putInt(e.tag()).putLong(e.seq())
                        .putLong(payloadBytes);
                out.putBytes(id);
                out.putBytes(proof);
                if (!rendezvous) {
                    out.putPayload(e.payload());
                }
            });
            if (rendezvous && reply == BinaryProtocol.REPLY_GO) {
                reply = c.request(out -> {
                    out.startWrite();
                    out.putPayload(e.payload());
                });
            }
        } catch (IOException ex) {
            c.disconnect();
            throw new TransportException("binary channel to " + address + ": " + ex.getMessage(), false, ex);
        } finally {
            c.lock.unlock();
        }
        switch (reply) {
            case BinaryProtocol.REPLY_STORED, BinaryProtocol.REPLY_DUPLICATE -> { }
            case BinaryProtocol.REPLY_BUSY -> throw new ReceiverBusyException("host " + address + " is busy");
            case BinaryProtocol.REPLY_REJECTED -> throw new TransportException("host " + address
                    + " rejected the message (bad token proof, or the domain was aborted)", true, null);
            default -> throw new TransportException("host " + address + " could not decode the message", true, null);
        }
    }

    @Override
    public void abort(Endpoint endpoint, String domainId, byte[] proof) throws TransportException {
        String address = endpoint.binaryAddress();
        Connection c = connection(address);
        c.lock.lock();
        try {
            byte[] id = domainId.getBytes(StandardCharsets.UTF_8);
            c.request(out -> {
                out.startWrite().put(BinaryProtocol.OP_ABORT).put((byte) proof.length).putShort((short) id.length);
                out.putBytes(id);
                out.putBytes(proof);
            });
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

    /** One connection to one peer address; use under {@link #lock}. */
    private final class Connection {
        final String address;
        final ReentrantLock lock = new ReentrantLock();
        volatile SocketChannel channel;
        ChannelBuffer buffer;
        boolean pinged;
        /** When the request in progress started (System.nanoTime), 0 when idle. */
        volatile long busySince;

        Connection(String address) {
            this.address = address;
        }

        /** Writes one request and returns the reply byte. */
        byte request(FrameWriter frame) throws IOException {
            if (closed) {
                throw new IOException("transport closed");
            }
            busySince = System.nanoTime();
            try {
                if (channel == null) {
                    connect();
                }
                frame.write(buffer);
                buffer.flush();
                buffer.startRead();
                return buffer.getByte();
            } finally {
                busySince = 0;
            }
        }

        /** From the watchdog: unblocks the stuck request (it fails with an I/O error and disconnects). */
        void abandon() {
            SocketChannel ch = channel;
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }

        private void connect() throws IOException {
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
                channel = ch;
                buffer = new ChannelBuffer(ch, null, ioTimeoutMillis);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        }

        void disconnect() {
            pinged = false;
            try {
                if (channel != null) {
                    channel.close();
                }
            } catch (IOException ignored) {
                // closing anyway
            }
            channel = null;
            buffer = null;
        }
    }
}
