package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.mpfl.testing.Http;

/** What a command prints when the engine refuses a request: the engine's own message, else the status and where to look. */
class EngineClientTest {
    private static String refusal(int status, String body) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            exchange.getResponseHeaders().add("Content-Type", body.startsWith("{") ? "application/json" : "text/plain");
            Http.answer(exchange, status, body);
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

    /** A secret file of the engine's own that others may read is warned about (the walk-through's 0644 password file). */
    @Test
    void aSecretFileOthersMayReadIsWarnedAbout(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("db.password"), "pw\n");
        java.nio.file.Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals("WARNING: " + file + " may be read by others (rw-r--r--): a secret file should be mode 0600 (chmod 600 " + file
                + "; change the secret if others may have read it)", EngineClient.exposedSecret(file).orElseThrow());
        java.nio.file.Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        assertEquals(java.util.Optional.empty(), EngineClient.exposedSecret(file));
    }
}
