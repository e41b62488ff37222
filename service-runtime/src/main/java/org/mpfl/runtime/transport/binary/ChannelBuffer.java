package org.mpfl.runtime.transport.binary;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;
import org.mpfl.runtime.transport.Payload;

/**
 * Buffered little-endian reading and writing of one byte channel through one direct buffer, with
 * primitive arrays copied straight between the Java array and the buffer. The channel is a plaintext
 * {@link java.nio.channels.SocketChannel} or a TLS socket's streams ({@link SocketStreams}). Blocking
 * channels block; non-blocking (selectable) ones wait on a selector and fail after
 * {@code ioTimeoutMillis} without progress.
 */
final class ChannelBuffer {
    private final ByteChannel channel;
    private final ByteBuffer buf = ByteBuffer.allocateDirect(BinaryProtocol.BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final Selector selector;
    private final long ioTimeoutMillis;
    private boolean reading;
    /** When bytes last arrived ({@link System#nanoTime()}), for the server's idle and handshake checks. */
    private volatile long lastReadNanos = System.nanoTime();

    /** @param selector {@code null} for a blocking channel; else {@code channel} is a {@link SelectableChannel} registered with it */
    ChannelBuffer(ByteChannel channel, Selector selector, long ioTimeoutMillis) {
        this.channel = channel;
        this.selector = selector;
        this.ioTimeoutMillis = ioTimeoutMillis;
    }

    // ------------------------------------------------------------------ writing

    /** Switches to writing (dropping unread input) and returns the buffer; what is already being written stays. */
    ByteBuffer startWrite() {
        if (reading) {
            reading = false;
            buf.clear();
        }
        return buf;
    }

    /** The buffer being written (after {@link #startWrite()} and {@link #room}). */
    ByteBuffer buffer() {
        return buf;
    }

    /** Makes room for at least {@code n} more bytes. */
    void room(int n) throws IOException {
        if (buf.remaining() < n) {
            flush();
        }
    }

    void putBytes(byte[] b) throws IOException {
        int off = 0;
        while (off < b.length) {
            if (!buf.hasRemaining()) {
                flush();
            }
            int n = Math.min(b.length - off, buf.remaining());
            buf.put(b, off, n);
            off += n;
        }
    }

    void putPayload(Payload p) throws IOException {
        switch (p.type()) {
            case DOUBLE_ARRAY -> {
                double[] a = (double[]) p.value();
                for (int off = 0; off < a.length; ) {
                    room(8);
                    int n = Math.min(a.length - off, buf.remaining() / 8);
                    buf.asDoubleBuffer().put(a, off, n);
                    buf.position(buf.position() + n * 8);
                    off += n;
                }
            }
            case INT_ARRAY -> {
                int[] a = (int[]) p.value();
                for (int off = 0; off < a.length; ) {
                    room(4);
                    int n = Math.min(a.length - off, buf.remaining() / 4);
                    buf.asIntBuffer().put(a, off, n);
                    buf.position(buf.position() + n * 4);
                    off += n;
                }
            }
            case LONG_ARRAY -> {
                long[] a = (long[]) p.value();
                for (int off = 0; off < a.length; ) {
                    room(8);
                    int n = Math.min(a.length - off, buf.remaining() / 8);
                    buf.asLongBuffer().put(a, off, n);
                    buf.position(buf.position() + n * 8);
                    off += n;
                }
            }
            case NULL -> { }
            default -> putBytes(p.encode());
        }
    }

    /** Writes what is buffered if it is more than {@code n} bytes (frames written back to back). */
    void flushIfMoreThan(int n) throws IOException {
        if (buf.position() > n) {
            flush();
        }
    }

    /** Writes everything buffered. */
    void flush() throws IOException {
        buf.flip();
        long lastProgress = System.nanoTime();
        while (buf.hasRemaining()) {
            int n = channel.write(buf);
            if (n > 0) {
                lastProgress = System.nanoTime();
            } else {
                waitFor(SelectionKey.OP_WRITE, lastProgress);
            }
        }
        buf.clear();
    }

    // ------------------------------------------------------------------ reading

    /** Forgets any buffered input (after a reply was read on a request/response channel). */
    void startRead() {
        if (!reading) {
            reading = true;
            buf.clear();
            buf.flip();
        }
    }

    /** Ensures {@code n <= capacity} bytes are buffered for reading. */
    private void need(int n) throws IOException {
        if (buf.remaining() >= n) {
            return;
        }
        buf.compact();
        long lastProgress = System.nanoTime();
        while (buf.position() < n) {
            int r = channel.read(buf);
            if (r < 0) {
                throw new EOFException("connection closed by the peer");
            } else if (r > 0) {
                lastProgress = System.nanoTime();
                lastReadNanos = lastProgress;
            } else {
                waitFor(SelectionKey.OP_READ, lastProgress);
            }
        }
        buf.flip();
    }

    /** When bytes last arrived from the peer. */
    long lastReadNanos() {
        return lastReadNanos;
    }

    /** Reads and drops {@code n} bytes (a refused payload the peer already sent), allocating nothing. */
    void skip(long n) throws IOException {
        long left = n;
        while (left > 0) {
            need(1);
            int k = (int) Math.min(left, buf.remaining());
            buf.position(buf.position() + k);
            left -= k;
        }
    }

    /** Bytes already read from the channel and not yet consumed (reading side). */
    int buffered() {
        return reading ? buf.remaining() : 0;
    }

    byte getByte() throws IOException {
        need(1);
        return buf.get();
    }

    int getUnsignedShort() throws IOException {
        need(2);
        return buf.getShort() & 0xffff;
    }

    int getInt() throws IOException {
        need(4);
        return buf.getInt();
    }

    long getLong() throws IOException {
        need(8);
        return buf.getLong();
    }

    byte[] getBytes(int len) throws IOException {
        byte[] out = new byte[len];
        int off = 0;
        while (off < len) {
            need(1);
            int n = Math.min(len - off, buf.remaining());
            buf.get(out, off, n);
            off += n;
        }
        return out;
    }

    /** Reads a payload of {@code len} bytes of the given type, arrays straight into their elements. */
    Payload getPayload(Payload.Type type, long len) throws IOException {
        switch (type) {
            case DOUBLE_ARRAY: {
                double[] a = new double[elements(len, 8)];
                for (int off = 0; off < a.length; ) {
                    need(8);
                    int n = Math.min(a.length - off, buf.remaining() / 8);
                    buf.asDoubleBuffer().get(a, off, n);
                    buf.position(buf.position() + n * 8);
                    off += n;
                }
                return Payload.of(a);
            }
            case INT_ARRAY: {
                int[] a = new int[elements(len, 4)];
                for (int off = 0; off < a.length; ) {
                    need(4);
                    int n = Math.min(a.length - off, buf.remaining() / 4);
                    buf.asIntBuffer().get(a, off, n);
                    buf.position(buf.position() + n * 4);
                    off += n;
                }
                return Payload.of(a);
            }
            case LONG_ARRAY: {
                long[] a = new long[elements(len, 8)];
                for (int off = 0; off < a.length; ) {
                    need(8);
                    int n = Math.min(a.length - off, buf.remaining() / 8);
                    buf.asLongBuffer().get(a, off, n);
                    buf.position(buf.position() + n * 8);
                    off += n;
                }
                return Payload.of(a);
            }
            default:
                return Payload.decode(type, getBytes((int) len));
        }
    }

    private static int elements(long len, int size) throws IOException {
        if (len % size != 0) {
            throw new IOException("payload of " + len + " bytes is not a whole number of " + size + "-byte elements");
        }
        return (int) (len / size);
    }

    private void waitFor(int op, long lastProgressNanos) throws IOException {
        if (selector == null) {
            return; // blocking channel: read/write never return 0 here
        }
        long left = ioTimeoutMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastProgressNanos);
        if (left <= 0) {
            throw new SocketTimeoutException("no progress on the binary channel for " + ioTimeoutMillis + " ms");
        }
        SelectionKey key = ((SelectableChannel) channel).keyFor(selector);
        key.interestOps(op);
        selector.select(left);
        selector.selectedKeys().clear();
    }
}
