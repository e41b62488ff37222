package org.mpfl.runtime.interp.kernel;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedByInterruptException;
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
 * <p>Reads and writes block in the kernel (one system call each way per frame, no selector: a
 * call's round trip is two wake-ups and nothing else). Every wait is still bounded: when the worker
 * process ends, its exit hook shuts the socket down, so a blocked read or write returns even if
 * something else (a child of the kernel) still holds the worker's end; a wait with a deadline is
 * ended the same way by a timer; an interrupt closes the channel (NIO's interruptible I/O).
 */
final class ControlChannel implements AutoCloseable {
    static final int MAX_FRAME_BYTES = 256 << 20;
    /** Frames up to this size (every frame of a call but large {@code object}/{@code string} values) reuse one buffer. */
    private static final int BUFFER_BYTES = 64 << 10;

    private final SocketChannel socket;
    /** Bytes received and not yet consumed: between position and limit. */
    private final ByteBuffer inbound = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer outbound = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private boolean expired;

    /**
     * @param workerEnd completes when the worker process has ended
     */
    ControlChannel(SocketChannel socket, CompletableFuture<?> workerEnd) throws IOException {
        this.socket = socket;
        socket.configureBlocking(true);
        inbound.flip();
        workerEnd.thenRun(this::shutDown);
    }

    void send(String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        ByteBuffer frame = 4 + body.length <= BUFFER_BYTES ? outbound.clear()
                : ByteBuffer.allocate(4 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(body.length).put(body).flip();
        try {
            while (frame.hasRemaining()) {
                socket.write(frame);
            }
        } catch (ClosedByInterruptException e) {
            throw interrupted();
        }
    }

    /**
     * The next frame; waits until {@code deadlineNanos} ({@code Long.MAX_VALUE}: as long as the worker
     * lives). Throws {@link EOFException} when the worker closed its end or ended, {@link TimedOut} at
     * the deadline.
     */
    String receive(long deadlineNanos) throws IOException {
        ScheduledFuture<?> timer = deadlineNanos == Long.MAX_VALUE ? null
                : Deadlines.TIMER.schedule(this::expire, deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        try {
            fill(4);
            int length = inbound.getInt();
            if (length < 0 || length > MAX_FRAME_BYTES) {
                throw new IOException("the worker sent a frame of " + Integer.toUnsignedString(length) + " bytes (at most "
                        + MAX_FRAME_BYTES + ")");
            }
            byte[] body = new byte[length];
            int buffered = Math.min(length, inbound.remaining());
            inbound.get(body, 0, buffered);
            if (buffered < length) {
                ByteBuffer rest = ByteBuffer.wrap(body, buffered, length - buffered);
                while (rest.hasRemaining()) {
                    if (socket.read(rest) < 0) {
                        throw ended();
                    }
                }
            }
            return new String(body, StandardCharsets.UTF_8);
        } catch (ClosedByInterruptException e) {
            throw interrupted();
        } finally {
            if (timer != null) {
                timer.cancel(false);
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
                if (socket.read(inbound) < 0) {
                    throw ended();
                }
            }
        } finally {
            inbound.flip();
        }
    }

    private synchronized IOException ended() {
        return expired ? new TimedOut() : new EOFException("the worker closed the control channel");
    }

    private synchronized void expire() {
        expired = true;
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

    /** One timer thread for the deadlines of every worker's start (calls have none). */
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
            socket.close();
        } catch (IOException e) {
            // already gone
        }
    }
}
