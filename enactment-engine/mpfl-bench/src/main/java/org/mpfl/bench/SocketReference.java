package org.mpfl.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;

/**
 * The plain-Java-sockets reference: the same PingPong and Ping*Pong as {@link PingPongProgram},
 * between two processes over one TCP connection (blocking {@link SocketChannel}s, no Nagle), doubles
 * converted to and from little-endian raw bytes through a direct {@link ByteBuffer} on both sides
 * (what any Java message passing has to do at least). {@link #main} is the echo server (a child process of the benchmark); {@link Client} runs
 * in the benchmark process.
 *
 * <p>Protocol per size: the client sends {@code [mode, n, rounds]} (three ints; mode 0 = PingPong,
 * 1 = Ping*Pong), then each round moves the messages; mode -1 ends the session.
 */
public final class SocketReference {
    /** Prefix of the server's ready line. */
    static final String READY = "MPFL socket echo on port ";

    private SocketReference() {
    }

    /** Echo server: {@code SocketReference [bindAddress]}; prints the ready line, serves one client at a time. */
    public static void main(String[] args) throws IOException {
        String bind = args.length > 0 ? args[0] : "127.0.0.1";
        try (ServerSocketChannel ss = ServerSocketChannel.open()) {
            ss.bind(new InetSocketAddress(InetAddress.getByName(bind), 0));
            System.out.println(READY + ss.socket().getLocalPort());
            System.out.flush();
            Thread watcher = new Thread(() -> {
                try {
                    while (System.in.read() >= 0) {
                        // EOF: the benchmark process is gone
                    }
                } catch (IOException ignored) {
                    // treated as EOF
                }
                System.exit(0);
            });
            watcher.setDaemon(true);
            watcher.start();
            for (;;) {
                try (SocketChannel s = ss.accept()) {
                    serve(s);
                } catch (IOException e) {
                    System.err.println("socket echo: " + e);
                }
            }
        }
    }

    private static void serve(SocketChannel s) throws IOException {
        s.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ReadableByteChannel in = s;
        WritableByteChannel out = s;
        ByteBuffer hdr = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
        for (;;) {
            hdr.clear();
            if (!readFully(in, hdr)) {
                return;
            }
            hdr.flip();
            int mode = hdr.getInt();
            int n = hdr.getInt();
            int rounds = hdr.getInt();
            if (mode < 0) {
                return;
            }
            Wire wire = new Wire(n);
            double[] mine = new double[n * n];
            java.util.Arrays.fill(mine, 2.0);
            for (int r = 0; r < rounds; r++) {
                if (mode == 0) {
                    double[] got = wire.receive(in);
                    wire.send(out, got);
                } else {
                    for (int k = 0; k < PingPongProgram.K; k++) {
                        wire.receive(in);
                    }
                    wire.send(out, mine);
                }
            }
        }
    }

    static boolean readFully(ReadableByteChannel in, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (in.read(b) < 0) {
                if (b.position() == 0) {
                    return false;
                }
                throw new IOException("connection closed inside a message");
            }
        }
        return true;
    }

    /** One matrix size's send and receive: raw little-endian doubles through a reusable buffer. */
    static final class Wire {
        private final ByteBuffer buf;
        private final int count;
        /** Received into one reusable array, as an MPI receive fills the caller's buffer: the best case. */
        private final double[] received;

        Wire(int n) {
            count = n * n;
            buf = ByteBuffer.allocateDirect(8 * count).order(ByteOrder.LITTLE_ENDIAN);
            received = new double[count];
        }

        void send(WritableByteChannel out, double[] a) throws IOException {
            buf.clear();
            buf.asDoubleBuffer().put(a);
            buf.limit(8 * count);
            while (buf.hasRemaining()) {
                out.write(buf);
            }
        }

        double[] receive(ReadableByteChannel in) throws IOException {
            buf.clear();
            buf.limit(8 * count);
            if (!readFully(in, buf)) {
                throw new IOException("connection closed");
            }
            buf.flip();
            buf.asDoubleBuffer().get(received);
            return received;
        }
    }

    /** The measuring side. */
    static final class Client implements AutoCloseable {
        private final SocketChannel socket;
        private final ReadableByteChannel in;
        private final WritableByteChannel out;

        private final java.util.Timer watchdog = new java.util.Timer("socket-reference-watchdog", true);

        Client(String host, int port) throws IOException {
            socket = SocketChannel.open();
            socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
            socket.socket().connect(new InetSocketAddress(host, port), 5_000);
            in = socket;
            out = socket;
        }

        /**
         * Bounds the next measurement: channel reads have no timeout, so a watchdog closes the
         * channel (which ends a blocked read with an exception) if it runs past {@code limitMs}.
         */
        java.util.TimerTask bound(long limitMs) {
            java.util.TimerTask t = new java.util.TimerTask() {
                @Override
                public void run() {
                    try {
                        socket.close();
                    } catch (IOException ignored) {
                        // closing to unblock
                    }
                }
            };
            watchdog.schedule(t, limitMs);
            return t;
        }

        private void header(int mode, int n, int rounds) throws IOException {
            ByteBuffer h = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
            h.putInt(mode).putInt(n).putInt(rounds).flip();
            while (h.hasRemaining()) {
                out.write(h);
            }
        }

        /** Median PingPong round trip in µs. */
        double pingPong(int n, int iters, int warm) throws IOException {
            return measure(0, 1, 1.0, n, iters, warm);
        }

        /** Median Ping*Pong total (11 messages) in µs. */
        double pingStarPong(int n, int iters, int warm) throws IOException {
            return measure(1, PingPongProgram.K, 2.0, n, iters, warm);
        }

        /** One measurement may take at most this long (then the reference fails instead of hanging). */
        private static final long LIMIT_MS = 10 * 60_000;

        /**
         * Median time in µs of {@code sends} messages out and the server's one back, in the server's
         * {@code mode}, whose reply must hold {@code expect}; bounded by {@link #LIMIT_MS}.
         */
        private double measure(int mode, int sends, double expect, int n, int iters, int warm) throws IOException {
            java.util.TimerTask limit = bound(LIMIT_MS);
            try {
                header(mode, n, iters + warm);
                Wire wire = new Wire(n);
                double[] mine = new double[n * n];
                java.util.Arrays.fill(mine, 1.0);
                double[] t = new double[iters];
                double[] last = null;
                for (int i = -warm; i < iters; i++) {
                    long t0 = System.nanoTime();
                    for (int k = 0; k < sends; k++) {
                        wire.send(out, mine);
                    }
                    last = wire.receive(in);
                    long t1 = System.nanoTime();
                    if (i >= 0) {
                        t[i] = (t1 - t0) / 1e3;
                    }
                }
                check(last, expect);
                return PingPongProgram.median(t);
            } finally {
                limit.cancel();
            }
        }

        private static void check(double[] got, double expect) throws IOException {
            if (got == null || got.length == 0 || got[0] != expect) {
                throw new IOException("socket reference: wrong payload came back");
            }
        }

        @Override
        public void close() throws IOException {
            watchdog.cancel();
            try {
                if (socket.isOpen()) {
                    header(-1, 0, 0);
                }
            } finally {
                socket.close();
            }
        }
    }
}
