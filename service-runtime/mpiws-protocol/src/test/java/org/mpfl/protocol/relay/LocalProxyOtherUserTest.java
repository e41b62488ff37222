package org.mpfl.protocol.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The attack: another user of the engine's machine uses the engine's loopback relay proxy to reach hosts
 * behind a relay, with the engine's identity at the relay. The proxy answers its own user (here: 403 for
 * an address it does not route, which shows the request was read) and closes another user's connection
 * unread. The other user is {@code nobody}, through {@code setpriv} (root, as on CI). Tagged as
 * {@code @StartsProcesses} tags (this module's tests do not depend on mpfl-testing, which depends on it).
 */
@Tag("slow")
@Timeout(60)
class LocalProxyOtherUserTest {

    @Test
    void anotherUsersConnectionIsClosedUnreadAndThisUsersIsServed() throws Exception {
        LocalProxy proxy = new LocalProxy(new RelayDialer());
        InetSocketAddress at = proxy.address();
        assertEquals("HTTP/1.1 403 Forbidden", connectAsThisUser(at), "this user's request is read and answered");
        String script = "import socket\n"
                + "s = socket.create_connection(('127.0.0.1', " + at.getPort() + "), timeout=20)\n"
                + "s.sendall(b'CONNECT 10.91.1.11:34015 HTTP/1.1\\r\\nHost: 10.91.1.11:34015\\r\\n\\r\\n')\n"
                + "print('answer:' + s.recv(100).decode('ascii', 'replace').split('\\r\\n')[0])\n";
        Process nobody = new ProcessBuilder(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "/usr/bin/python3", "-c", script)).redirectErrorStream(true).start();
        String said = new String(nobody.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!nobody.waitFor(30, TimeUnit.SECONDS)) {
            nobody.destroyForcibly();
        }
        assertEquals(0, nobody.exitValue(), "setpriv/python3 ran (needs root and /usr/bin/python3): " + said);
        assertEquals("answer:", said, "closed without an answer");
    }

    private static String connectAsThisUser(InetSocketAddress at) throws Exception {
        try (Socket s = new Socket(at.getAddress(), at.getPort())) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write("CONNECT 10.91.1.11:34015 HTTP/1.1\r\nHost: 10.91.1.11:34015\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int c;
            while ((c = in.read()) >= 0 && c != '\r') {
                line.write(c);
            }
            return line.toString(StandardCharsets.US_ASCII);
        }
    }
}
