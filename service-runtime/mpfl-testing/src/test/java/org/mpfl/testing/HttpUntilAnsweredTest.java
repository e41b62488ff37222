package org.mpfl.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A lab's set-up request (a host's credential) that meets a connection the server closes without a word — as a
 * loaded engine's keep-alive connection closed just as the request went out ("HTTP/1.1 header parser received no
 * bytes", CrossSiteFaultsTest's "service host s2h2 did not start") — is sent again until answered, within its bound.
 */
class HttpUntilAnsweredTest {

    @Test
    void aRequestTheServerClosedWithoutAnAnswerIsSentAgain() throws Exception {
        AtomicInteger seen = new AtomicInteger();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> serve(server, seen, 2), "unanswering-server");
            t.setDaemon(true);
            t.start();
            Http.Answer a = Http.PLAIN.sendUntilAnswered("POST", "http://127.0.0.1:" + server.getLocalPort() + "/x", null,
                    Map.of("k", "v"), Duration.ofSeconds(10), Duration.ofSeconds(30));
            assertEquals(201, a.status(), a.body());
            assertEquals(3, seen.get(), "two connections closed unanswered, then the answer");
        }
    }

    @Test
    void aServerThatNeverAnswersFailsWithinTheBound() throws Exception {
        AtomicInteger seen = new AtomicInteger();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> serve(server, seen, Integer.MAX_VALUE), "unanswering-server");
            t.setDaemon(true);
            t.start();
            IOException e = assertThrows(IOException.class, () -> Http.PLAIN.sendUntilAnswered("POST",
                    "http://127.0.0.1:" + server.getLocalPort() + "/x", null, Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(1)));
            assertEquals(true, e.getMessage().contains("no answer within 1 s"), e.getMessage());
        }
    }

    /** Closes the first {@code unanswered} connections once their request arrived; answers 201 after. */
    private static void serve(ServerSocket server, AtomicInteger seen, int unanswered) {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                InputStream in = s.getInputStream();
                byte[] buf = new byte[8192];
                StringBuilder head = new StringBuilder();
                while (!head.toString().contains("\r\n\r\n")) {
                    int n = in.read(buf);
                    if (n < 0) {
                        break;
                    }
                    head.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
                }
                if (seen.incrementAndGet() <= unanswered) {
                    continue; // closed without a word
                }
                OutputStream out = s.getOutputStream();
                out.write("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (IOException e) {
                return;
            }
        }
    }
}
