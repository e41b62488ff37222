package org.mpfl.engine.e2e;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.mpfl.engine.Engine;
import org.mpfl.testing.Http;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.RunMessages;
import org.mpfl.protocol.RunRequest;
import org.mpfl.engine.HostCalls;

/**
 * A "service host" that is nothing but a tiny HTTP server: it announces itself to the engine like a
 * real host (with a large capacity, so placement prefers it) and then misbehaves in one way — it
 * answers 500 to deployments, or takes deployments and answers 500 to {@code run} (and to everything
 * else), or never answers {@code run}. It records what the engine sent it.
 */
final class RogueHost implements AutoCloseable {
    /** How the rogue misbehaves. */
    enum Mode {
        /** {@code POST mpfl-deploy} → HTTP 500. */
        REFUSE_DEPLOY,
        /** Deployments succeed; every SOAP call → HTTP 500. */
        REFUSE_RUN,
        /** Deployments succeed; {@code run} is never answered (until the rogue is closed). */
        SILENT_RUN
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "rogue-host");
        t.setDaemon(true);
        return t;
    });
    private final CountDownLatch closing = new CountDownLatch(1);
    final String hostId;
    final Mode mode;
    final AtomicInteger deploys = new AtomicInteger();
    /** Every {@code run} request received (answered or not). */
    final List<RunRequest> runs = new CopyOnWriteArrayList<>();

    RogueHost(String hostId, Mode mode) throws IOException {
        this.hostId = hostId;
        this.mode = mode;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        server.createContext("/axis2/services/", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    String soapUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/axis2/services";
    }

    /** Announces the rogue to the engine, offering {@code services} (none: it needs deployments). */
    /** Announces itself with a credential of its own: an enrolled host that misbehaves, not an outsider. */
    void announce(Engine engine, List<String> services) throws Exception {
        Http.Answer a = HostCalls.announce(engine, Map.of("hostId", hostId, "soapUrl", soapUrl(),
                "services", services, "capacity", 64));
        if (a.status() != 201) {
            throw new IllegalStateException("announce refused: " + a.status() + " " + a.body());
        }
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex; InputStream in = ex.getRequestBody()) {
            String body = new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8);
            if (ex.getRequestURI().getPath().endsWith("/mpfl-deploy")) {
                deploys.incrementAndGet();
                answer(ex, mode == Mode.REFUSE_DEPLOY ? 500 : 200, mode == Mode.REFUSE_DEPLOY ? "deployment broken here" : "ok");
                return;
            }
            String contentType = ex.getRequestHeaders().getFirst("Content-Type");
            String action = contentType == null || !contentType.contains("action=\"") ? ""
                    : contentType.substring(contentType.indexOf("action=\"") + 8, contentType.lastIndexOf('"'));
            if ("run".equals(MpiwsNames.operationOfAction(action))) {
                try {
                    runs.add(RunMessages.parseRun(body));
                } catch (javax.xml.stream.XMLStreamException e) {
                    answer(ex, 400, "bad run: " + e.getMessage());
                    return;
                }
                if (mode == Mode.SILENT_RUN) {
                    // hold the call open: the engine's fan-out timeout must give up on it
                    closing.await(120, TimeUnit.SECONDS);
                }
            }
            answer(ex, 500, "not today");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void answer(HttpExchange ex, int status, String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
        threads.shutdownNow();
    }
}
