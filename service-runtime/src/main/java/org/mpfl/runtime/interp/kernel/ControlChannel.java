package org.mpfl.runtime.interp.kernel;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The control channel to a kernel worker: a Unix socket of its own (never the worker's stdin or
 * stdout), carrying frames of a 4-byte little-endian length and that many bytes of UTF-8 text
 * (docs/kernel-protocol.md).
 *
 * <p>A read waits in {@code epoll} for the socket to become readable, never in a blocking
 * {@code read}: Linux wakes a task blocked in {@code read} on a Unix stream socket every time its peer
 * consumes what the task sent (the write-space notification shares the socket's wait queue), so a
 * blocking read would be woken once for nothing on every call while the worker computes; a poll waits
 * for input only, and a call's round trip is two wake-ups and nothing else (the worker side waits the
 * same way; docs/kernel-protocol.md, "Waiting"). Every wait is still bounded: when the worker process
 * ends, its exit hook shuts the socket down, so a waiting read or write returns even if something else
 * (a child of the kernel) still holds the worker's end; a wait with a deadline is ended the same way
 * by a timer; an interrupt closes the channel.
 */
final class ControlChannel implements AutoCloseable {
    static final int MAX_FRAME_BYTES = 256 << 20;
    /** Frames up to this size (every frame of a call but large {@code object}/{@code string} values) reuse one buffer. */
    private static final int BUFFER_BYTES = 64 << 10;

    private final SocketChannel socket;
    private final Selector selector;
    private final SelectionKey key;
    /** Bytes received and not yet consumed: between position and limit. */
    private final ByteBuffer inbound = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer outbound = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    /** How long the rest of a frame may take once its first bytes came ({@code mpfl.kernel.frameTimeoutMs}). */
    private final long frameTimeoutMs;
    private boolean expired;
    private boolean stalled;

    /**
     * @param workerEnd      completes when the worker process has ended
     * @param frameTimeoutMs how long the rest of a frame may take once its first bytes came
     */
    ControlChannel(SocketChannel socket, CompletableFuture<?> workerEnd, long frameTimeoutMs) throws IOException {
        this.socket = socket;
        this.frameTimeoutMs = frameTimeoutMs;
        socket.configureBlocking(false);
        selector = Selector.open();
        key = socket.register(selector, 0);
        inbound.flip();
        workerEnd.thenRun(this::shutDown);
    }

    void send(String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        ByteBuffer frame = 4 + body.length <= BUFFER_BYTES ? outbound.clear()
                : ByteBuffer.allocate(4 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(body.length).put(body).flip();
        while (frame.hasRemaining()) {
            if (socket.write(frame) == 0) {
                await(SelectionKey.OP_WRITE);
            }
        }
    }

    /**
     * The next frame; waits until {@code deadlineNanos} ({@code Long.MAX_VALUE}: as long as the worker
     * lives). Throws {@link EOFException} when the worker closed its end or ended, {@link TimedOut} at
     * the deadline, an {@link IOException} saying so when a frame begun is not complete within the frame
     * timeout: the wait for a frame's first byte is as long as the worker computes, the rest of it is
     * bounded (a worker that sent a part and hangs, or miscounted its length, must not hold the rank).
     * The frame timer is set only when a frame does not come whole with its first read, so that a call's
     * small answer costs no timer (whose thread a new task wakes).
     */
    String receive(long deadlineNanos) throws IOException {
        ScheduledFuture<?> timer = deadlineNanos == Long.MAX_VALUE ? null
                : Deadlines.TIMER.schedule(this::expire, deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        ScheduledFuture<?> rest = null;
        int length = -1;
        ByteBuffer body = null;
        try {
            fill(1);
            if (inbound.remaining() < 4 || inbound.remaining() < 4 + (long) inbound.getInt(inbound.position())) {
                rest = Deadlines.TIMER.schedule(this::stall, frameTimeoutMs, TimeUnit.MILLISECONDS);
            }
            fill(4);
            length = inbound.getInt();
            if (length < 0 || length > MAX_FRAME_BYTES) {
                throw new IOException("the worker sent a frame of " + Integer.toUnsignedString(length) + " bytes (at most "
                        + MAX_FRAME_BYTES + ")");
            }
            body = ByteBuffer.allocate(length);
            int buffered = Math.min(length, inbound.remaining());
            inbound.get(body.array(), 0, buffered);
            body.position(buffered);
            while (body.hasRemaining()) {
                read(body);
            }
            return new String(body.array(), StandardCharsets.UTF_8);
        } catch (Stalled e) {
            throw new IOException(length < 0
                    ? "the worker sent " + inbound.remaining() + " of a frame's 4 length bytes and no more within " + frameTimeoutMs
                            + " ms (mpfl.kernel.frameTimeoutMs)"
                    : "the worker sent " + body.position() + " of a frame's " + length + " bytes and no more within "
                            + frameTimeoutMs + " ms (mpfl.kernel.frameTimeoutMs)");
        } finally {
            if (timer != null) {
                timer.cancel(false);
            }
            if (rest != null) {
                rest.cancel(false);
            }
        }
    }

    /** Reads until at least {@code bytes} bytes are buffered (a whole small frame usually comes in one read). */
    private void fill(int bytes) throws IOException {
        if (inbound.remaining() >= bytes) {
            return;
        }
        inbound.compact();
        try {
            while (inbound.position() < bytes) {
                read(inbound);
            }
        } finally {
            inbound.flip();
        }
    }

    /** Reads at least one byte into {@code into}, waiting for them as long as it takes (or the channel is shut down). */
    private void read(ByteBuffer into) throws IOException {
        int n;
        while ((n = socket.read(into)) == 0) {
            await(SelectionKey.OP_READ);
        }
        if (n < 0) {
            throw ended();
        }
    }

    /**
     * Waits until the socket is ready for {@code operation}, shut down or closed; an interrupt closes
     * the channel (as NIO's interruptible I/O does) and is kept set.
     */
    private void await(int operation) throws IOException {
        try {
            key.interestOps(operation);
            selector.select();
            selector.selectedKeys().clear();
        } catch (ClosedSelectorException | CancelledKeyException e) {
            throw new ClosedChannelException();
        }
        if (Thread.currentThread().isInterrupted()) {
            close();
            throw interrupted();
        }
    }

    private synchronized IOException ended() {
        return expired ? new TimedOut() : stalled ? new Stalled() : new EOFException("the worker closed the control channel");
    }

    private synchronized void expire() {
        expired = true;
        shutDown();
    }

    private synchronized void stall() {
        stalled = true;
        shutDown();
    }

    /** Wakes a blocked read or write: the worker ended, or the deadline passed. */
    private void shutDown() {
        try {
            socket.shutdownInput();
            socket.shutdownOutput();
        } catch (IOException e) {
            // closed already: nothing is blocked on it
        }
    }

    private static InterruptedIOException interrupted() {
        return new InterruptedIOException("interrupted while waiting for the kernel worker");
    }

    /** The deadline passed. */
    static final class TimedOut extends IOException {
        private static final long serialVersionUID = 1L;

        TimedOut() {
            super("timed out");
        }
    }

    /** A frame begun was not complete within the frame timeout (told with its counts by {@link #receive}). */
    private static final class Stalled extends IOException {
        private static final long serialVersionUID = 1L;
    }

    /** One timer thread for the deadlines of every worker's start and of frames that come in parts. */
    private static final class Deadlines {
        static final ScheduledExecutorService TIMER = timer();

        private static ScheduledExecutorService timer() {
            ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "mpfl-kernel-deadlines");
                t.setDaemon(true);
                return t;
            });
            timer.setRemoveOnCancelPolicy(true);
            return timer;
        }
    }

    @Override
    public void close() {
        try {
            selector.close();
            socket.close();
        } catch (IOException e) {
            // already gone
        }
    }
}
