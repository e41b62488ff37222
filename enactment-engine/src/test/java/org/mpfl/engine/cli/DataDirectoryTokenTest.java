package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.ir.cli.Commands;

/**
 * The admin token that {@code mpflc up} leaves in its default data directory ({@code ~/.mpfl/engine}) goes only to
 * the engine that directory records: a command pointed at another URL ({@code --engine http://elsewhere}, a typo, a
 * hostile name) must not hand the token over. The attack: a server standing in for "another engine" records every
 * header it is sent. {@code --data DIR} given with the URL pairs them on purpose (a tunnel or forwarded port reaches
 * an engine under another URL) and is honoured.
 */
class DataDirectoryTokenTest {
    static final String TOKEN = "the-admin-token-of-the-engine-at-8080";

    @TempDir
    Path home;
    Path data;
    private String realHome;

    @BeforeEach
    void defaultDataDirectoryHere() throws Exception {
        realHome = System.setProperty("user.home", home.toString());
        data = Files.createDirectories(home.resolve(".mpfl").resolve("engine"));
    }

    @AfterEach
    void restoreHome() {
        System.setProperty("user.home", realHome);
    }

    @Test
    void anotherUrlNeverReceivesTheDataDirectorysToken() throws Exception {
        record(data, "http://127.0.0.1:8080");
        List<String> authorizations = new CopyOnWriteArrayList<>();
        HttpServer elsewhere = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        elsewhere.createContext("/", exchange -> {
            authorizations.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            byte[] body = "{\"error\":\"missing engine token\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(401, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        elsewhere.start();
        try {
            String url = "http://127.0.0.1:" + elsewhere.getAddress().getPort();
            for (List<String> command : List.of(List.of("runs"), List.of("hosts"), List.of("host-token", "--list"),
                    List.of("cancel", "r1"))) {
                ByteArrayOutputStream err = new ByteArrayOutputStream();
                List<String> args = new java.util.ArrayList<>(command);
                args.addAll(List.of("--engine", url));
                int exit = Commands.run(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
                String said = err.toString(StandardCharsets.UTF_8);
                assertTrue(exit != 0, command + ": " + said);
                assertTrue(said.contains("the admin token in " + data + " is the engine's at http://127.0.0.1:8080, so it was not"
                        + " sent to " + url), command + ": " + said);
            }
            assertFalse(authorizations.stream().anyMatch(a -> a.contains(TOKEN)), "the token reached another engine: " + authorizations);
        } finally {
            elsewhere.stop(0);
        }
    }

    @Test
    void theRecordedEngineGetsItUnderAnyOfItsLoopbackNames() throws Exception {
        record(data, "http://127.0.0.1:8080");
        for (String same : List.of("http://127.0.0.1:8080", "http://localhost:8080/", "HTTP://127.0.0.1:8080", "http://[::1]:8080")) {
            assertEquals(TOKEN, EngineClient.resolveToken(null, null, same), same);
        }
        for (String other : List.of("https://127.0.0.1:8080", "http://127.0.0.1:8081", "http://10.0.0.1:8080", "http://evil:8080")) {
            assertNull(EngineClient.resolveToken(null, null, other), other);
            // named with --data, the directory is paired with the URL on purpose (a tunnel, a forwarded port)
            assertEquals(TOKEN, EngineClient.resolveToken(null, data.toString(), other), other);
        }
    }

    @Test
    void aDirectoryThatRecordsNoEngineGivesItsTokenToNone() throws Exception {
        Files.writeString(data.resolve(Engine.TOKEN_FILE), TOKEN + "\n");
        assertNull(EngineClient.resolveToken(null, null, "http://127.0.0.1:8080"));
        assertTrue(EngineClient.withheldToken("http://127.0.0.1:8080", null).contains("an engine whose URL it does not record"));
    }

    /**
     * host-token right after {@code mpflc up … &} (docs/deployment.md, Tomcat by hand): the engine still starting had
     * recorded no URL yet, and the command said its data directory's token was "of an engine whose URL it does not
     * record", sending the user after tokens. Nothing answered at the URL at all, which it now says first.
     */
    @Test
    void hostTokenToAnEngineThatDoesNotAnswerSaysSoRatherThanWithholdingTheToken() throws Exception {
        Files.writeString(data.resolve(Engine.TOKEN_FILE), TOKEN + "\n");
        int free;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            free = s.getLocalPort();
        }
        String url = "http://127.0.0.1:" + free;
        for (boolean recordsAnother : List.of(false, true)) {
            if (recordsAnother) {
                record(data, "http://127.0.0.1:8080");
            }
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = Commands.run(List.of("host-token", "--engine", url, "--host-id", "t7", "-o", home.resolve("t7.credential").toString()),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            String said = err.toString(StandardCharsets.UTF_8);
            assertEquals(1, exit, said);
            assertTrue(said.contains("cannot reach the engine at " + url + ": connection refused"), said);
            assertFalse(said.contains("admin token"), said);
            assertFalse(Files.exists(home.resolve("t7.credential")));
        }
    }

    /**
     * The command host-token prints for the host: for an engine on https it named no TLS flag, and a host started as
     * printed trusted only the JDK's public CAs, failing the handshake with a lab CA's engine (docs/deployment.md).
     */
    @Test
    void theHostCommandPrintedForAnHttpsEngineCarriesTheTlsFlags() {
        assertEquals("mpflc host --credential-file n2.credential --bind ADDR --tls-cert CERT.pem --tls-key KEY.pem --tls-ca CA.pem"
                + " (in a site behind NAT: --site NAME --relay HOST:PORT)", HostTokenCommand.hostCommand("n2.credential", "https://10.0.0.1:8080"));
        assertEquals("mpflc host --credential-file n2.credential --bind ADDR (in a site behind NAT: --site NAME --relay HOST:PORT)",
                HostTokenCommand.hostCommand("n2.credential", "http://127.0.0.1:8080"));
    }

    private static void record(Path data, String url) throws Exception {
        Files.writeString(data.resolve(Engine.TOKEN_FILE), TOKEN + "\n");
        Files.writeString(data.resolve(Engine.URL_FILE), url + "\n");
    }
}
