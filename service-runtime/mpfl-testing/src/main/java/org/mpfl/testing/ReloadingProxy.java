package org.mpfl.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.mpfl.protocol.CheckpointUpload;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.RankEventPost;

/**
 * A reverse proxy in front of an engine, on loopback, that is reloading at first: it answers the first
 * {@code refusals} requests with its own 404 page (or another status: HTML, no {@link EngineRefusal} mark, as nginx would), then
 * forwards each request to the engine (same path and query; the body, the content type and the headers of a
 * rank's post, {@link RankEventPost} and {@link CheckpointUpload}) and hands back the engine's answer: its status, content type, mark and
 * body. How a test shows that a host tells a proxy's 404 from the engine's refusal.
 */
public final class ReloadingProxy implements AutoCloseable {
    /** The request headers forwarded to the engine. */
    private static final List<String> FORWARDED = List.of("Content-Type", RankEventPost.DOMAIN_HEADER, RankEventPost.SHA256_HEADER,
            RankEventPost.PROOF_HEADER, CheckpointUpload.RANK_HEADER, CheckpointUpload.CHECKPOINT_HEADER);

    private final HttpServer server;
    private final String engineUrl;
    private final int refusals;
    private final int status;
    private final byte[] page;
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger forwarded = new AtomicInteger();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * Starts the proxy on a free loopback port.
     *
     * @param engineUrl where requests go once the proxy is up ({@code http://host:port}, no path)
     * @param refusals  how many requests the proxy answers with its own 404 first
     */
    public ReloadingProxy(String engineUrl, int refusals) throws IOException {
        this(engineUrl, refusals, 404);
    }

    /**
     * Starts the proxy on a free loopback port, answering the first {@code refusals} requests with its own page and
     * {@code status} (405 as under a wrong path prefix, 413 as a body limit, 401 as a login …).
     *
     * @param engineUrl where requests go once the proxy is up ({@code http://host:port}, no path)
     * @param refusals  how many requests the proxy answers with its own page first
     * @param status    the HTTP status of its page
     */
    public ReloadingProxy(String engineUrl, int refusals, int status) throws IOException {
        this.status = status;
        this.page = ("<html><body><h1>" + status + "</h1><hr>nginx</body></html>").getBytes(StandardCharsets.UTF_8);
        this.engineUrl = engineUrl.endsWith("/") ? engineUrl.substring(0, engineUrl.length() - 1) : engineUrl;
        this.refusals = refusals;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The proxy's base URL, {@code http://127.0.0.1:port}: a callback address under it goes through the proxy. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Requests the proxy received so far. */
    public int requests() {
        return requests.get();
    }

    /** Requests the engine answered through the proxy so far. */
    public int forwarded() {
        return forwarded.get();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] body = ex.getRequestBody().readAllBytes();
            if (requests.incrementAndGet() <= refusals) {
                ex.getResponseHeaders().add("Content-Type", "text/html");
                ex.sendResponseHeaders(status, page.length);
                ex.getResponseBody().write(page);
                return;
            }
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(engineUrl + ex.getRequestURI())).timeout(Duration.ofSeconds(10))
                    .method(ex.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
            for (String h : FORWARDED) {
                String v = ex.getRequestHeaders().getFirst(h);
                if (v != null) {
                    b.header(h, v);
                }
            }
            HttpResponse<byte[]> r;
            try {
                r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ex.sendResponseHeaders(502, -1);
                return;
            } catch (IOException e) {
                ex.sendResponseHeaders(502, -1);
                return;
            }
            forwarded.incrementAndGet();
            for (String h : List.of("Content-Type", EngineRefusal.HEADER)) {
                r.headers().firstValue(h).ifPresent(v -> ex.getResponseHeaders().add(h, v));
            }
            ex.sendResponseHeaders(r.statusCode(), r.body().length == 0 ? -1 : r.body().length);
            if (r.body().length > 0) {
                ex.getResponseBody().write(r.body());
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
