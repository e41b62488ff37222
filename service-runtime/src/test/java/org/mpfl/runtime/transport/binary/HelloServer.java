package org.mpfl.runtime.transport.binary;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.SecureRandom;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * A stand-in for a host's binary channel, as a probe sees it: says a well-formed HELLO to every
 * connection (after {@code answerDelayMs}, and over TLS when given a serving {@link TlsSettings}), then
 * waits for the peer to leave. A delay stands for a loaded machine: the connection is taken at once
 * by the kernel, the answer waits for CPU.
 */
final class HelloServer implements AutoCloseable {
    private final ServerSocket server;
    private final long answerDelayMs;
    private final TlsSettings tls;

    /** Answers at once, in plaintext. */
    HelloServer() throws IOException {
        this(0, TlsSettings.NONE);
    }

    HelloServer(long answerDelayMs, TlsSettings tls) throws IOException {
        this.answerDelayMs = answerDelayMs;
        this.tls = tls;
        server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::serve, "hello-" + server.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    String address() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    private void serve() {
        while (true) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException closed) {
                return;
            }
            Thread t = new Thread(() -> answer(s));
            t.setDaemon(true);
            t.start();
        }
    }

    private void answer(Socket accepted) {
        try (accepted) {
            Thread.sleep(answerDelayMs);
            Socket s = tls.serves() ? tls.serverSocket(accepted) : accepted;
            OutputStream out = s.getOutputStream();
            out.write(hello());
            out.flush();
            s.getInputStream().transferTo(OutputStream.nullOutputStream());
        } catch (IOException gone) {
            // the probe left
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static byte[] hello() {
        byte[] challenge = new byte[BinaryProtocol.CHALLENGE_BYTES];
        new SecureRandom().nextBytes(challenge);
        return BinaryProtocol.hello(challenge);
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
