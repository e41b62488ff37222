package org.mpfl.runtime.interp.kernel;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * The control channel to a kernel worker: a Unix socket of its own (never the worker's stdin or
 * stdout), carrying frames of a 4-byte little-endian length and that many bytes of UTF-8 text
 * (docs/kernel-protocol.md). Every wait is bounded by a deadline or by the worker's life: reads
 * look at the worker every {@value #LOOK_MS} ms, so a dead worker is noticed even if something else
 * still holds its end of the socket.
 */
final class ControlChannel implements AutoCloseable {
    static final int MAX_FRAME_BYTES = 256 << 20;
    private static final long LOOK_MS = 100;

    private final SocketChannel socket;
    private final Selector selector;

    ControlChannel(SocketChannel socket) throws IOException {
        this.socket = socket;
        socket.configureBlocking(false);
        this.selector = Selector.open();
    }

    void send(String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        ByteBuffer frame = ByteBuffer.allocate(4 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(body.length).put(body).flip();
        SelectionKey key = socket.register(selector, SelectionKey.OP_WRITE);
        try {
            while (frame.hasRemaining()) {
                if (socket.write(frame) == 0) {
                    selector.select(LOOK_MS);
                    interruptedCheck();
                }
            }
        } finally {
            key.interestOps(0);
        }
    }

    /**
     * The next frame; waits until {@code deadlineNanos} ({@code Long.MAX_VALUE}: as long as
     * {@code alive} holds). Throws {@link EOFException} when the worker closed its end,
     * {@link java.util.concurrent.TimeoutException}-like {@link IOException} at the deadline.
     */
    String receive(long deadlineNanos, BooleanSupplier alive) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        fill(header, deadlineNanos, alive);
        int length = header.flip().getInt();
        if (length < 0 || length > MAX_FRAME_BYTES) {
            throw new IOException("the worker sent a frame of " + Integer.toUnsignedString(length) + " bytes (at most "
                    + MAX_FRAME_BYTES + ")");
        }
        ByteBuffer body = ByteBuffer.allocate(length);
        fill(body, deadlineNanos, alive);
        return new String(body.array(), StandardCharsets.UTF_8);
    }

    private void fill(ByteBuffer buffer, long deadlineNanos, BooleanSupplier alive) throws IOException {
        SelectionKey key = socket.register(selector, SelectionKey.OP_READ);
        try {
            while (buffer.hasRemaining()) {
                int n = socket.read(buffer);
                if (n < 0) {
                    throw new EOFException("the worker closed the control channel");
                }
                if (n > 0) {
                    continue;
                }
                long left = deadlineNanos == Long.MAX_VALUE ? LOOK_MS : (deadlineNanos - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    throw new TimedOut();
                }
                selector.select(Math.min(left, LOOK_MS));
                selector.selectedKeys().clear();
                interruptedCheck();
                if (!alive.getAsBoolean() && socket.read(buffer) <= 0) {
                    throw new EOFException("the worker ended");
                }
            }
        } finally {
            if (key.isValid()) {
                key.interestOps(0);
            }
        }
    }

    private static void interruptedCheck() throws InterruptedIOException {
        if (Thread.currentThread().isInterrupted()) {
            throw new InterruptedIOException("interrupted while waiting for the kernel worker");
        }
    }

    /** The deadline passed. */
    static final class TimedOut extends IOException {
        private static final long serialVersionUID = 1L;

        TimedOut() {
            super("timed out");
        }
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException e) {
            // nothing registered that outlives the socket
        }
        try {
            socket.close();
        } catch (IOException e) {
            // already gone
        }
    }
}
