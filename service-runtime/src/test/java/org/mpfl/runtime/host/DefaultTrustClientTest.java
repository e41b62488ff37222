package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.testing.LabPki;
import org.mpfl.testing.StartsProcesses;

/**
 * The HTTP clients of a component without {@code --tls-ca} read the JDK's trust store only when an
 * {@code https} connection needs it: plain {@code http} works as before, and an {@code https} server whose
 * certificate the JDK does not trust is still refused (the lab CA is in no JDK trust store), while a client
 * given the lab CA accepts it.
 */
@StartsProcesses // keytool makes the lab CA
@Timeout(120)
class DefaultTrustClientTest {
    @TempDir
    static Path dir;

    @Test
    void withoutTlsOptionsPlainHttpWorksAndAnUntrustedHttpsServerIsRefused() throws Exception {
        LabPki.Machine machine = LabPki.create(dir.resolve("lab"), "lab").issue("server", "127.0.0.1");
        TlsSettings serverTls = machine.settings();
        try (OneAnswerServer plain = new OneAnswerServer(TlsSettings.NONE);
             OneAnswerServer tls = new OneAnswerServer(serverTls)) {
            HttpClient client = TlsSettings.NONE.httpClient().connectTimeout(Duration.ofSeconds(5)).build();
            assertEquals("ok", get(client, "http://127.0.0.1:" + plain.port() + "/"));

            IOException refused = assertThrows(IOException.class, () -> get(client, "https://127.0.0.1:" + tls.port() + "/"));
            assertInstanceOf(SSLHandshakeException.class, refused, "a trust failure, not another error: " + refused);

            HttpClient trusting = serverTls.httpClient().connectTimeout(Duration.ofSeconds(5)).build();
            assertEquals("ok", get(trusting, "https://127.0.0.1:" + tls.port() + "/"));
        }
    }

    private static String get(HttpClient client, String url) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Answers every connection with {@code 200 ok} (over TLS when the settings serve it). */
    private static final class OneAnswerServer implements AutoCloseable {
        private final ServerSocket socket;
        private final Thread acceptor;

        OneAnswerServer(TlsSettings tls) throws IOException {
            socket = tls.newServerSocket();
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            acceptor = new Thread(() -> {
                while (!socket.isClosed()) {
                    try (Socket s = socket.accept()) {
                        s.setSoTimeout(10_000);
                        answer(s);
                    } catch (IOException e) {
                        // a refused handshake, or the server closed: next connection
                    }
                }
            }, "one-answer-server");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private static void answer(Socket s) throws IOException {
            InputStream in = s.getInputStream();
            int last4 = 0;
            for (int b; (b = in.read()) >= 0; ) {
                last4 = (last4 << 8) | b;
                if (last4 == 0x0d0a0d0a) {
                    break;
                }
            }
            OutputStream out = s.getOutputStream();
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }

        int port() {
            return socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            socket.close();
            try {
                acceptor.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
