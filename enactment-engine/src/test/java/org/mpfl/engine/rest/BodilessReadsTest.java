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

    /**
     * The same attack over HTTP/2, which the engine speaks in clear text (h2c, the JDK's client upgrades to it): there a
     * body comes in DATA frames that need neither {@code Content-Length} nor {@code Transfer-Encoding}, so the check of
     * the headers let a {@code GET /api/engine} with a body through and the engine read all 64 MB pushed before it
     * answered 200. Now a read over HTTP/2 is routed only once its stream ended without data: the first byte of a body
     * gets the 400 and the stream is reset; a read without a body is answered as before.
     */
    @Test
    void anOpenReadWithABodyOverHttp2IsRefused() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir).token("admin-token").invoker(new FakeRanks(r -> { })))) {
            java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_2)
                    .connectTimeout(java.time.Duration.ofSeconds(10)).build();
            URI u = URI.create(engine.url() + "/api/engine");
            java.net.http.HttpResponse<String> plain = http.send(java.net.http.HttpRequest.newBuilder(u).GET().build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, plain.statusCode(), plain.body());
            assertEquals(java.net.http.HttpClient.Version.HTTP_2, plain.version(), "the engine speaks h2c");
            // the body from Vert.x's client (h2c with prior knowledge): the JDK's awaits the end of its body before it
            // reads an answer, so it never sees one that comes earlier
            AtomicLong pushed = new AtomicLong();
            String answer = getWithEndlessBodyOverHttp2(u, pushed);
            assertTrue(pushed.get() < 8L << 20, "GET /api/engine over HTTP/2: the engine read " + (pushed.get() >> 20)
                    + " MB of a body (its answer: " + answer + ")");
            assertTrue(answer.startsWith("400 "), answer);
            java.net.http.HttpResponse<String> after = http.send(java.net.http.HttpRequest.newBuilder(u).GET().build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, after.statusCode(), "a read without a body, after: " + after.body());
        }
    }

    /**
     * Sends {@code GET u} over HTTP/2 with a body of up to {@link #PUSH} bytes in DATA frames (no header announces it) and
     * returns the answer's status and body, or why there was none; {@code pushed} counts what was handed to the stream.
     */
    private static String getWithEndlessBodyOverHttp2(URI u, AtomicLong pushed) throws Exception {
        io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
        try {
            io.vertx.core.http.HttpClient client = vertx.createHttpClient(new io.vertx.core.http.HttpClientOptions()
                    .setProtocolVersion(io.vertx.core.http.HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false));
            CompletableFuture<String> answer = new CompletableFuture<>();
            io.vertx.core.buffer.Buffer data = io.vertx.core.buffer.Buffer.buffer(new byte[16 * 1024]);
            client.request(io.vertx.core.http.HttpMethod.GET, u.getPort(), u.getHost(), u.getPath()).onComplete(made -> {
                if (made.failed()) {
                    answer.complete("(no request: " + made.cause() + ")");
                    return;
                }
                // no Content-Length; over HTTP/2 "chunked" sends no Transfer-Encoding either, only DATA frames
                io.vertx.core.http.HttpClientRequest req = made.result().setChunked(true);
                req.response().compose(r -> r.body().map(b -> r.statusCode() + " " + b))
                        .onComplete(r -> answer.complete(r.succeeded() ? r.result() : "(no answer: " + r.cause() + ")"));
                Runnable[] push = new Runnable[1];
                push[0] = () -> {
                    while (!answer.isDone() && pushed.get() < PUSH && !req.writeQueueFull()) {
                        req.write(data);
                        pushed.addAndGet(data.length());
                    }
                    if (pushed.get() >= PUSH) {
                        req.end();
                    } else if (!answer.isDone()) {
                        req.drainHandler(v -> push[0].run());
                    }
                };
                push[0].run();
            });
            return answer.get(60, TimeUnit.SECONDS);
        } catch (TimeoutException stuck) {
            return "(no answer within 60 s)";
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
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
