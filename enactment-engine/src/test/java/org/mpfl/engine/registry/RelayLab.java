package org.mpfl.engine.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.mpfl.engine.Engine;
import org.mpfl.engine.HostCalls;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.relay.RelayCommand;
import org.mpfl.protocol.relay.RelayWire;
import org.mpfl.testing.Await;

/**
 * A real engine's relay as an operator runs it: {@code mpflc relay} ({@link RelayCommand}) in this JVM, reaching the
 * engine over HTTP through a line the test can cut ({@link EngineLine}), and hosts speaking the relay's wire over
 * loopback sockets as a host's link does ({@link Host}) — raw, so that a test sees what the relay sends a host and
 * when it closes the host's connection.
 */
final class RelayLab implements Closeable {
    private static final byte[] MAGIC = "MPFLRLY1".getBytes(StandardCharsets.US_ASCII);
    /** How long a test waits for what the relay must do within a few seconds: wide, for a loaded 2-core machine. */
    static final Duration WAIT = Duration.ofSeconds(20);

    final Engine engine;
    final HostCredential relayCredential;
    final EngineLine line;
    private final Thread relay;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    final int port;
    /** The addresses of the hosts announced through a relay: the engine's process-wide dialer routes them there. */
    private final List<String> routed = new java.util.concurrent.CopyOnWriteArrayList<>();

    RelayLab(Engine engine, Path dir) throws Exception {
        this.engine = engine;
        this.relayCredential = engine.issueRelayCredential("r1");
        Path file = dir.resolve("r1.credential");
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, relayCredential.text());
        this.line = new EngineLine(engine.url());
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        relay = new Thread(() -> {
            try {
                new RelayCommand().run(List.of("--credential-file", file.toString(), "--engine", line.url(), "--bind", "127.0.0.1",
                        "--port", "0"), o, e);
            } catch (InterruptedException stopped) {
                // the test's end
            } catch (Exception ex) {
                ex.printStackTrace(e);
            }
        }, "mpflc-relay");
        relay.setDaemon(true);
        relay.start();
        String ready = Await.until(WAIT, () -> "the relay's ready line; its errors: " + err(), this::out,
                s -> s.contains(" listening on "));
        port = Integer.parseInt(ready.substring(ready.lastIndexOf(':') + 1).strip());
        Await.until(WAIT, "r1 announced to the engine", () -> engine.registry().relays().isRelay("r1"));
    }

    String out() {
        synchronized (out) {
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    /** What the relay said on its standard error (its drops and its outages). */
    String err() {
        synchronized (err) {
            return err.toString(StandardCharsets.UTF_8);
        }
    }

    /**
     * Announces {@code hostId} at the engine with a SOAP address on {@code port}, reached through this relay (the only
     * relay where the engine lets it register); its address, {@code 127.0.0.1:port}.
     */
    String announce(String hostId, int soapPort) throws Exception {
        return announce(hostId, soapPort, address());
    }

    /** As {@link #announce(String, int)}, reached through the relay at {@code relay} instead. */
    String announce(String hostId, int soapPort, String relay) throws Exception {
        routed.add("127.0.0.1:" + soapPort);
        assertEquals(201, HostCalls.announce(engine, Map.of("hostId", hostId, "soapUrl", "http://127.0.0.1:" + soapPort
                + "/axis2/services", "services", List.of("x"), "relay", relay)).status());
        return "127.0.0.1:" + soapPort;
    }

    /** Where this relay listens, as it announced itself to the engine. */
    String address() {
        return "127.0.0.1:" + port;
    }

    /** A connection to the relay: its greeting read, {@code request} sent with the host's proof over the nonce. */
    Host connect(HostCredential as, Map<String, String> request) throws IOException {
        Host h = new Host(new Socket(InetAddress.getLoopbackAddress(), port));
        Map<String, String> greeting = RelayWire.read(h.in);
        Map<String, String> r = new LinkedHashMap<>(request);
        r.put("proof", RelayWire.hostProof(as.engineKey(), r.getOrDefault("op", ""), greeting.get("relay"), greeting.get("nonce"),
                as.hostId()));
        RelayWire.write(h.out, r);
        return h;
    }

    /** {@code as} registers {@code address}; the relay's answer is the connection's {@link Host#answer}. */
    Host register(HostCredential as, String address) throws IOException {
        Host h = connect(as, Map.of("op", "register", "host", as.hostId(), "addresses", address, "site", "s1"));
        h.answer = RelayWire.read(h.in);
        return h;
    }

    /** {@code as} dials {@code target} for a domain (the relay compares the splice proofs; "p" at both ends). */
    Host dial(HostCredential as, String target) throws IOException {
        return connect(as, Map.of("op", "dial", "from", as.hostId(), "target", target, "domain", "d1", "splice", "p"));
    }

    @Override
    public void close() {
        // the dialer is the process's: the routes the hosts' announcements made go with the lab
        routed.forEach(a -> org.mpfl.protocol.relay.RelayDialer.shared().routeVia(a, null, null));
        relay.interrupt();
        try {
            relay.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        line.close();
    }

    /** One connection to the relay, as a host holds it. */
    static final class Host implements Closeable {
        final Socket socket;
        final InputStream in;
        final OutputStream out;
        Map<String, String> answer;

        Host(Socket socket) throws IOException {
            this.socket = socket;
            socket.setSoTimeout((int) WAIT.toMillis());
            this.in = socket.getInputStream();
            this.out = socket.getOutputStream();
            socket.getOutputStream().write(MAGIC);
        }

        /** The next frame whose {@code op} is {@code op} (directories and pongs between are passed over). */
        Map<String, String> next(String op) throws IOException {
            while (true) {
                Map<String, String> f = RelayWire.read(in);
                if (op.equals(f.get("op"))) {
                    return f;
                }
            }
        }

        /** Whether the relay still answers this control connection: a ping gets its pong. */
        boolean answersPing() {
            try {
                RelayWire.write(out, Map.of("op", "ping"));
                next("pong");
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        /**
         * Reads until the relay closes this connection, failing when it stays open {@link #WAIT} (well below the 45 s
         * a silent control connection is kept, so only the relay's own decision closes it); the frames read before.
         */
        List<Map<String, String>> awaitClosed() throws IOException {
            List<Map<String, String>> frames = new java.util.ArrayList<>();
            try {
                while (true) {
                    frames.add(RelayWire.read(in));
                }
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the relay kept the connection open " + WAIT.toSeconds() + " s; it sent " + frames);
            } catch (EOFException e) {
                return frames;
            } catch (IOException e) {
                return frames; // reset
            }
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closed
            }
        }
    }

    /**
     * The relay's way to the engine: a TCP forwarder that {@link #cut} makes an unreachable engine (every connection
     * closed, new ones closed unread and counted) until {@link #restore}.
     */
    static final class EngineLine implements Closeable {
        private final ServerSocket server;
        private final int enginePort;
        private final Set<Socket> open = ConcurrentHashMap.newKeySet();
        private final AtomicInteger refused = new AtomicInteger();
        private volatile boolean cut;

        EngineLine(String engineUrl) throws IOException {
            this.enginePort = java.net.URI.create(engineUrl).getPort();
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread t = new Thread(this::acceptLoop, "engine-line");
            t.setDaemon(true);
            t.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getLocalPort();
        }

        /** Connections refused while cut. */
        int refused() {
            return refused.get();
        }

        void cut() {
            cut = true;
            open.forEach(EngineLine::closeQuietly);
            open.clear();
        }

        void restore() {
            cut = false;
        }

        private void acceptLoop() {
            while (!server.isClosed()) {
                try {
                    Socket relaySide = server.accept();
                    if (cut) {
                        refused.incrementAndGet();
                        closeQuietly(relaySide);
                        continue;
                    }
                    Socket engineSide = new Socket(InetAddress.getLoopbackAddress(), enginePort);
                    open.add(relaySide);
                    open.add(engineSide);
                    pipe(relaySide, engineSide);
                    pipe(engineSide, relaySide);
                } catch (IOException e) {
                    // closed, or the engine is gone
                }
            }
        }

        private void pipe(Socket from, Socket to) {
            Thread t = new Thread(() -> {
                try {
                    from.getInputStream().transferTo(to.getOutputStream());
                } catch (IOException e) {
                    // either side closed
                } finally {
                    closeQuietly(from);
                    closeQuietly(to);
                    open.remove(from);
                    open.remove(to);
                }
            }, "engine-line-pipe");
            t.setDaemon(true);
            t.start();
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException e) {
                // closed
            }
        }

        @Override
        public void close() {
            cut();
            try {
                server.close();
            } catch (IOException e) {
                // closed
            }
        }
    }
}
