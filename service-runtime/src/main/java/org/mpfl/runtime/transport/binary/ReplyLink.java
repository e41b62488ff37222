package org.mpfl.runtime.transport.binary;

import java.io.IOException;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One TCP connection of the {@link BinaryTransport} to a peer host, after its handshake: writers put
 * whole frames into it under their connection's lock, each with the handler of its reply; one reader
 * thread reads the reply bytes, in order, and hands each to the oldest unanswered request (the server
 * answers every frame in the order it reads them). {@link #kill} closes the connection and fails every
 * unanswered request; the transport's watchdog kills a link whose oldest request waited too long.
 */
final class ReplyLink {
    /** Writes one frame into the link's output buffer. */
    @FunctionalInterface
    interface FrameWriter {
        void write(ChannelBuffer out) throws IOException;
    }

    /** What happens with the reply to one request. Called on the reader thread (or the failing writer). */
    interface ReplyHandler {
        void reply(byte b);

        void failed(IOException e);
    }

    static ReplyHandler futureHandler(CompletableFuture<Byte> f) {
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
    static byte awaitReply(CompletableFuture<Byte> f) throws IOException {
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


    private record Pending(long since, ReplyHandler handler) {
    }


    /** The TCP connection: closing it ends the link at once (over TLS too: no close_notify to wait for). */
    final SocketChannel channel;
    final String address;
    final ChannelBuffer out;
    final ChannelBuffer in;
    /** Handlers of the requests written and not yet answered, in writing order. Guarded by itself. */
    final ArrayDeque<Pending> pending = new ArrayDeque<>();
    volatile boolean dead;

    /** @param io what frames go through: {@code channel} itself, or its TLS layer */
    ReplyLink(SocketChannel channel, ByteChannel io, String address) {
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
