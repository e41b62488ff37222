package org.mpfl.protocol.relay;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP {@code CONNECT} proxy on this machine's loopback through which {@link java.net.http.HttpClient}
 * reaches relayed hosts ({@link RelayDialer#proxySelector()}): the client's TLS runs end to end
 * inside the tunnel. It tunnels only to addresses the dialer routes through a relay, and only for
 * connections of this process's user ({@link LoopbackPeer}): the tunnels carry this process's identity
 * to the relay, and a loopback port is open to every user of the machine, who would otherwise reach
 * the relayed hosts through it. So it opens no path that the process (or its user) did not have.
 */
final class LocalProxy {
    private static final int MAX_HEAD = 8 * 1024;
    /** Said once per process: a probing user would otherwise fill the log. */
    private static final java.util.concurrent.atomic.AtomicBoolean REFUSED_ANOTHER_USER = new java.util.concurrent.atomic.AtomicBoolean();
    private final RelayDialer dialer;
    private final ServerSocket server;
    private final AtomicLong bytes = new AtomicLong();

    LocalProxy(RelayDialer dialer) throws IOException {
        this.dialer = dialer;
        this.server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::acceptLoop, "mpfl-relay-local-proxy");
        t.setDaemon(true);
        t.start();
    }

    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    private void acceptLoop() {
        while (true) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return;
            }
            Thread t = new Thread(() -> tunnel(s), "mpfl-relay-local-tunnel");
            t.setDaemon(true);
            t.start();
        }
    }

    private void tunnel(Socket client) {
        boolean handedOver = false;
        try {
            if (!LoopbackPeer.isThisUser(client)) {
                if (REFUSED_ANOTHER_USER.compareAndSet(false, true)) {
                    dialer.report("the local relay proxy refused a connection of another user of this machine (from port "
                            + client.getPort() + "); only this process's user may tunnel to relayed hosts");
                }
                return;
            }
            client.setSoTimeout(10_000);
            String head = head(client.getInputStream());
            String[] words = head.substring(0, Math.max(0, head.indexOf('\r'))).split(" ");
            if (words.length < 2 || !"CONNECT".equals(words[0])) {
                answer(client, "405 Method Not Allowed");
                return;
            }
            String target = words[1];
            if (!dialer.relayed(target)) {
                answer(client, "403 Forbidden");
                return;
            }
            String[] hp = RelayWire.hostPort(target);
            SocketChannel far;
            try {
                far = dialer.connect(hp[0], Integer.parseInt(hp[1]), 10_000);
            } catch (IOException e) {
                answer(client, "502 Bad Gateway");
                return;
            }
            answer(client, "200 Connection Established");
            Splice.start("mpfl-relay-local-" + target, Splice.End.of(client), Splice.End.of(far.socket()), bytes, null);
            handedOver = true;
        } catch (IOException | RuntimeException e) {
            // the client gets a closed connection
        } finally {
            if (!handedOver) {
                Splice.close(client);
            }
        }
    }

    private static String head(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            b.write(c);
            if (b.size() > MAX_HEAD) {
                throw new IOException("proxy request head too long");
            }
            byte[] a = b.toByteArray();
            int n = a.length;
            if (n >= 4 && a[n - 4] == '\r' && a[n - 3] == '\n' && a[n - 2] == '\r' && a[n - 1] == '\n') {
                return new String(a, StandardCharsets.US_ASCII);
            }
        }
        throw new IOException("proxy request ended early");
    }

    private static void answer(Socket client, String status) throws IOException {
        client.getOutputStream().write(("HTTP/1.1 " + status + "\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        client.getOutputStream().flush();
    }
}
