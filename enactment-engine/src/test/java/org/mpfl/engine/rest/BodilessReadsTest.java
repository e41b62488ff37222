package org.mpfl.engine.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.testing.Http;

/**
 * The attack: a read the engine admits without a credential — {@code /api/engine} and {@code /api/auth} on every
 * engine, the console's files, every read on a local one — sent with an endless chunked body. The platform's body
 * handler buffered a route's whole body (up to 256 MB) before the route ran, so the engine held whatever a stranger
 * sent (200 MB pushed: the engine's heap grew by 197 MB and no answer came); from a known address without any
 * deadline, from a stranger's for 10 s per connection. Now a read that announces a body is refused (400) and its
 * connection closed before a byte of the body is read; reads without a body are answered as before.
 */
@Timeout(300)
class BodilessReadsTest {
    /** What the attacker pushes at most; far more than the sockets' buffers. */
    private static final long PUSH = 64L << 20;

    @TempDir
    Path dir;

    @Test
    void anOpenReadWithAnEndlessBodyIsRefusedUnread() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).token("admin-token").invoker(new FakeRanks(r -> { })))) {
            for (String path : List.of("/api/engine", "/api/auth", "/api/runs", "/")) {
                URI u = URI.create(engine.url());
                AtomicLong pushed = new AtomicLong();
                String answer;
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(u.getHost(), u.getPort()), 10_000);
                    s.setSoTimeout(20_000);
                    OutputStream out = s.getOutputStream();
                    out.write(("GET " + path + " HTTP/1.1\r\nHost: " + u.getHost() + ":" + u.getPort()
                            + "\r\nTransfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    byte[] data = new byte[64 * 1024];
                    Arrays.fill(data, (byte) 'a');
                    byte[] c = Http.chunk(data);
                    // pushed from a thread of its own: an engine that neither reads nor closes would block the write forever
                    CompletableFuture<Void> push = CompletableFuture.runAsync(() -> {
                        try {
                            while (pushed.get() < PUSH) {
                                out.write(c);
                                pushed.addAndGet(c.length);
                            }
                        } catch (IOException closedByTheEngine) {
                            // what must happen: the engine read no more and closed the connection
                        }
                    });
                    try {
                        push.get(60, TimeUnit.SECONDS);
                        answer = firstLine(s.getInputStream());
                    } catch (TimeoutException stuck) {
                        answer = "(neither read nor closed within 60 s)";
                    }
                }
                assertTrue(pushed.get() < PUSH / 2 && !answer.startsWith("(neither"), "GET " + path + ": the engine read " + (pushed.get() >> 20) + " MB of a body without "
                        + "closing the connection (its answer: " + answer + ")");
                assertTrue(answer.startsWith("HTTP/1.1 400") || answer.equals("(closed)"), path + ": " + answer);
            }
            assertEquals(200, Http.send("GET", engine.url() + "/api/engine", null, null).status(), "a read without a body");
        }
    }

    /** The answer's status line; {@code (closed)} when the connection was reset before it could be read. */
    private static String firstLine(InputStream in) {
        try {
            byte[] b = new byte[256];
            int n = in.read(b);
            return n < 0 ? "(closed)" : new String(b, 0, n, StandardCharsets.ISO_8859_1).split("\r\n")[0];
        } catch (IOException reset) {
            return "(closed)";
        }
    }
}
