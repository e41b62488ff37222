package org.mpfl.engine.multihost;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.mpfl.engine.json.Json;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunMessages;

/**
 * A rogue "service host" run inside the attacker's namespace ({@code java CapturingHost ADDRESS DIR [PORT]}):
 * a tiny HTTP server on {@code ADDRESS} (on {@code PORT}, else on any free port) that writes every request it receives (method, path,
 * {@code Authorization}, {@code Content-Type}, body) as {@code DIR/N.json}, answers {@code run} as a
 * real host does ("running", so the engine thinks the rank runs here and the rogue learns the domain),
 * and everything else with HTTP 500. Prints {@value #READY}{@code PORT} once listening.
 */
public final class CapturingHost {
    /** The line printed once the server listens, followed by its port. */
    public static final String READY = "capturing-host ready on port ";

    private CapturingHost() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Files.createDirectories(Path.of(args[1]));
        AtomicInteger n = new AtomicInteger();
        int port = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        HttpServer server = HttpServer.create(new InetSocketAddress(args[0], port), 50);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/", ex -> handle(ex, dir, n.getAndIncrement()));
        server.start();
        System.out.println(READY + server.getAddress().getPort());
        System.out.flush();
    }

    private static void handle(HttpExchange ex, Path dir, int n) throws IOException {
        try (ex; InputStream in = ex.getRequestBody()) {
            byte[] body = in.readNBytes(1 << 20);
            String contentType = ex.getRequestHeaders().getFirst("Content-Type");
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("method", ex.getRequestMethod());
            c.put("path", ex.getRequestURI().toString());
            c.put("authorization", ex.getRequestHeaders().getFirst("Authorization"));
            c.put("contentType", contentType);
            c.put("body", Base64.getEncoder().encodeToString(body));
            // written then renamed: the test never reads half a capture
            Path tmp = dir.resolve(n + ".tmp");
            Files.writeString(tmp, Json.write(c));
            Files.move(tmp, dir.resolve(n + ".json"));
            boolean run = contentType != null && contentType.contains(MpiwsNames.action(MpiwsNames.OP_RUN));
            // its rank looks alive to the engine's status polls: a rogue that failed them would be removed as a
            // lost host and the victim's domain aborted mid-test, a race the test would lose on a loaded machine
            boolean status = contentType != null && contentType.contains(MpiwsNames.action(MpiwsNames.OP_STATUS));
            String element = run ? "<m:runResponse xmlns:m=\"" + MpiwsNames.NS + "\"><m:state>running</m:state></m:runResponse>"
                    : status ? RunMessages.statusResponseXml(new RankStatus("running", Double.NaN, Double.NaN, null, Map.of(), null, null))
                    : null;
            String answer = element == null ? "no" : "<?xml version=\"1.0\" encoding=\"UTF-8\"?><s:Envelope xmlns:s=\""
                    + MpiwsNames.SOAP12_NS + "\"><s:Body>" + element + "</s:Body></s:Envelope>";
            byte[] b = answer.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", element != null ? "application/soap+xml; charset=UTF-8" : "text/plain");
            ex.sendResponseHeaders(element != null ? 200 : 500, b.length);
            ex.getResponseBody().write(b);
        }
    }
}
