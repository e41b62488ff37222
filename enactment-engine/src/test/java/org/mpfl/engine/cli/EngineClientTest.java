package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What a command prints when the engine refuses a request: the engine's own message, else the status and where to look. */
class EngineClientTest {
    private static String refusal(int status, String body) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", body.startsWith("{") ? "application/json" : "text/plain");
            exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        try {
            EngineClient client = new EngineClient("http://127.0.0.1:" + server.getAddress().getPort(), null);
            EngineClient.EngineException e = assertThrows(EngineClient.EngineException.class, () -> client.get("/api/runs"));
            return e.getMessage();
        } finally {
            server.stop(0);
        }
    }

    @Test
    void theEnginesMessageIsShownAsItSaidIt() throws Exception {
        assertEquals("GET /api/runs: no run 'x'", refusal(404, "{\"error\":\"no run 'x'\"}"));
    }

    @Test
    void anAnswerWithoutAMessageSaysItsStatusAndWhereToLook() throws Exception {
        assertEquals("GET /api/runs: HTTP 500 without a message (the engine's log says why)", refusal(500, ""));
        assertEquals("GET /api/runs: HTTP 404 without a message", refusal(404, ""));
    }
}
