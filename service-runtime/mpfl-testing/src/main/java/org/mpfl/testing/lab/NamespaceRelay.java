package org.mpfl.testing.lab;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The far end of a {@link NetworkLab} node's forwarding: a tiny process started inside the node's
 * network namespace ({@code ip netns exec NS java … NamespaceRelay SOCKET PREFIX}). It listens on a
 * Unix-domain socket (a file, so the test JVM in the machine's own namespace can reach it) and, for
 * each connection, reads one header line {@code ADDRESS PORT}, opens a TCP connection to that
 * address from inside the namespace and copies bytes both ways. So a test speaks to the lab as that
 * node would — the engine and the hosts see the node's address as the source — without the machine's
 * own interfaces being part of the lab.
 *
 * <p>Only IPv4 addresses starting with {@code PREFIX} (the lab's subnet) are accepted: the relay can
 * never send traffic anywhere but the lab. It exits when its standard input closes (the test JVM is
 * gone).
 */
public final class NamespaceRelay {
    /** What the relay prints on stdout once it accepts connections. */
    static final String READY = "mpfl-relay ready";
    private static final Pattern HEADER = Pattern.compile("(\\d{1,3}(?:\\.\\d{1,3}){3}) (\\d{1,5})");
    private static final int CONNECT_TIMEOUT_MS = 5_000;

    private NamespaceRelay() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: NamespaceRelay SOCKET ADDRESS-PREFIX");
            System.exit(2);
        }
        Path socket = Path.of(args[0]);
        String prefix = args[1];
        Files.deleteIfExists(socket);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Thread watcher = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // the launcher never writes; EOF means it is gone
                }
            } catch (IOException e) {
                // same: the launcher is gone
            }
            System.exit(0);
        }, "relay-parent-watch");
        watcher.setDaemon(true);
        watcher.start();
        System.out.println(READY);
        System.out.flush();
        for (;;) {
            SocketChannel client = server.accept();
            daemon(() -> serve(client, prefix), "relay-conn").start();
        }
    }

    private static void serve(SocketChannel client, String prefix) {
        try {
            String header = readLine(client);
            Matcher m = HEADER.matcher(header);
            if (!m.matches() || !m.group(1).startsWith(prefix)) {
                System.err.println("relay: refused target '" + header + "' (only " + prefix + "* is in the lab)");
                client.close();
                return;
            }
            SocketChannel target = SocketChannel.open();
            try {
                target.socket().connect(new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2))), CONNECT_TIMEOUT_MS);
            } catch (IOException e) {
                target.close();
                client.close();
                return;
            }
            splice(client, target);
        } catch (IOException e) {
            closeQuietly(client);
        }
    }

    /** One header line, at most 64 bytes, read byte by byte so that nothing after it is consumed. */
    private static String readLine(SocketChannel ch) throws IOException {
        ByteBuffer one = ByteBuffer.allocate(1);
        StringBuilder line = new StringBuilder();
        while (line.length() < 64) {
            one.clear();
            if (ch.read(one) < 0) {
                throw new IOException("connection closed before the header ended");
            }
            char c = (char) one.get(0);
            if (c == '\n') {
                return line.toString();
            }
            line.append(c);
        }
        throw new IOException("header too long");
    }

    /** Writes the header that asks a relay for {@code address:port}. */
    static void writeHeader(SocketChannel relay, String address, int port) throws IOException {
        ByteBuffer b = ByteBuffer.wrap((address + " " + port + "\n").getBytes(StandardCharsets.US_ASCII));
        while (b.hasRemaining()) {
            relay.write(b);
        }
    }

    /**
     * Copies bytes both ways between two connected channels on two daemon threads; an end of stream
     * on one side half-closes the other (so request/response protocols see the peer's close), and both
     * are closed once both directions ended or either failed.
     */
    static void splice(SocketChannel a, SocketChannel b) {
        AtomicInteger ended = new AtomicInteger();
        daemon(() -> copy(a, b, ended), "splice").start();
        daemon(() -> copy(b, a, ended), "splice").start();
    }

    private static void copy(SocketChannel from, SocketChannel to, AtomicInteger ended) {
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        try {
            while (from.read(buf) >= 0) {
                buf.flip();
                while (buf.hasRemaining()) {
                    to.write(buf);
                }
                buf.clear();
            }
            to.shutdownOutput();
            if (ended.incrementAndGet() == 2) {
                closeQuietly(from);
                closeQuietly(to);
            }
        } catch (IOException e) {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
