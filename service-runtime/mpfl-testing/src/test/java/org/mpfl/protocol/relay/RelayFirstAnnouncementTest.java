package org.mpfl.protocol.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.EngineRefusal;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.testing.Await;
import org.mpfl.testing.Ports;

/**
 * A relay's first announcement to the engine: an engine that is not up yet is waited for (a relay started
 * beside it must not exit for coming first), an engine that refuses is not asked again, and an engine that
 * never comes ends the wait with a message naming it.
 */
class RelayFirstAnnouncementTest {

    @Test
    void anEngineThatComesUpLateTakesTheAnnouncement() throws Exception {
        // the relay dials this port while nothing listens there: outside the ephemeral range, no dial can connect to
        // itself and hold the port the engine is started at below
        int port = Ports.outsideEphemeralRange();
        String engine = "http://127.0.0.1:" + port;
        RelayCommand.EngineCalls calls = calls(engine);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CompletableFuture<Boolean> announced = CompletableFuture.supplyAsync(() -> {
            try {
                return RelayCommand.announceFirst(calls, "relay.example:7070", Duration.ofSeconds(60),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        awaitText(err, "trying again");
        AtomicInteger announcements = new AtomicInteger();
        HttpServer server = engineAnswering(port, 201, announcements);
        try {
            assertTrue(announced.get(60, TimeUnit.SECONDS), "announced once the engine is up");
            assertEquals(1, announcements.get(), "the engine got exactly one announcement");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void anEngineThatRefusesIsNotAskedAgain() throws Exception {
        int port = Ports.outsideEphemeralRange();
        AtomicInteger announcements = new AtomicInteger();
        HttpServer server = engineAnswering(port, 403, announcements);
        try {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            boolean announced = RelayCommand.announceFirst(calls("http://127.0.0.1:" + port), "relay.example:7070",
                    Duration.ofSeconds(60), new PrintStream(err, true, StandardCharsets.UTF_8));
            assertFalse(announced);
            assertEquals(1, announcements.get(), "a refusal is final");
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("refused this relay's announcement: HTTP 403"), err.toString(StandardCharsets.UTF_8));
        } finally {
            server.stop(0);
        }
    }

    /**
     * The engine's refusal of the first announcement (here: 409, a second relay with one credential) is one line in its
     * own words — who refused what, the status, the engine's reason with what to do, and that the relay stops — not the
     * path and the raw JSON of its answer.
     */
    @Test
    void anEnginesRefusalIsSaidInOneLineInItsWords() throws Exception {
        int port = Ports.outsideEphemeralRange();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.createContext("/api/registry/relays", exchange -> {
            // as the engine refuses a second relay announcing itself with one credential (no mark: not the credential's kind)
            byte[] body = "{\"error\":\"relay 'relay-1' still answers at 10.1.0.2:7070: each relay needs a credential of its own\"}\n"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(409, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            String engine = "http://127.0.0.1:" + port;
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertFalse(RelayCommand.announceFirst(calls(engine), "relay.example:7070", Duration.ofSeconds(60),
                    new PrintStream(err, true, StandardCharsets.UTF_8)));
            assertEquals("mpflc relay: the engine at " + engine + " refused this relay's announcement: HTTP 409: relay"
                    + " 'relay-1' still answers at 10.1.0.2:7070: each relay needs a credential of its own; stopping"
                    + System.lineSeparator(),
                    err.toString(StandardCharsets.UTF_8));
        } finally {
            server.stop(0);
        }
    }

    /** TLS that fails (here: https named, plain HTTP answering) is configuration, not an engine still starting: no wait. */
    @Test
    void aTlsFailureEndsTheWaitAtOnce() throws Exception {
        // a plain-HTTP peer that answers at once, as a server without TLS answers a TLS client's hello
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        int port = server.getLocalPort();
        Thread answering = new Thread(() -> {
            while (!server.isClosed()) {
                try (java.net.Socket s = server.accept()) {
                    s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                } catch (java.io.IOException e) {
                    return;
                }
            }
        }, "plain-http");
        answering.setDaemon(true);
        answering.start();
        try {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            long t0 = System.nanoTime();
            boolean announced = RelayCommand.announceFirst(calls("https://127.0.0.1:" + port), "relay.example:7070",
                    Duration.ofSeconds(60), new PrintStream(err, true, StandardCharsets.UTF_8));
            assertFalse(announced);
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(30), "it did not wait out the 60 s");
            String said = err.toString(StandardCharsets.UTF_8);
            assertFalse(said.contains("trying again"), said);
            assertTrue(said.contains("cannot reach the engine at https://127.0.0.1:" + port), said);
        } finally {
            server.close();
        }
    }

    @Test
    void anEngineThatNeverComesEndsTheWaitNamingIt() throws Exception {
        String engine = "http://127.0.0.1:" + Ports.outsideEphemeralRange();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        boolean announced = RelayCommand.announceFirst(calls(engine), "relay.example:7070", Duration.ofSeconds(2),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertFalse(announced);
        String said = err.toString(StandardCharsets.UTF_8);
        assertTrue(said.contains("the engine " + engine + " could not be reached within 2 s"), said);
    }

    /**
     * Later announcements: an engine in trouble (503) is asked again, and so is a 401 without the engine's
     * {@link EngineRefusal} mark (a proxy in front of it wrote it); the engine's refusal of the credential (401 with
     * the mark) ends them, saying why.
     */
    @Test
    void aRelayWhoseCredentialIsRefusedStopsAnnouncingAndSaysWhy() throws Exception {
        int port = Ports.outsideEphemeralRange();
        AtomicInteger announcements = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.createContext("/api/registry/relays", exchange -> {
            int n = announcements.incrementAndGet();
            int status = n == 1 ? 503 : 401;
            if (n >= 3) {
                exchange.getResponseHeaders().add(EngineRefusal.HEADER, EngineRefusal.CREDENTIAL_REFUSED.value());
            }
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        server.start();
        try {
            String engine = "http://127.0.0.1:" + port;
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            String why = CompletableFuture.supplyAsync(() -> {
                try {
                    return RelayCommand.keepAnnouncing(calls(engine), "relay.example:7070", Duration.ofMillis(20),
                            new PrintStream(err, true, StandardCharsets.UTF_8));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }).get(60, TimeUnit.SECONDS);
            assertEquals("the engine at " + engine + " refuses this relay's credential (unknown, revoked or a wrong secret; a new one:"
                    + " mpflc host-token --relay --host-id relay-1 on the engine's machine)", why);
            assertEquals(3, announcements.get(), "asked again after the 503 and the unmarked 401, not after the engine's 401");
            String said = err.toString(StandardCharsets.UTF_8);
            // the engine's trouble in words, not the route's path
            assertTrue(said.contains("mpflc relay: the engine at " + engine + " answered HTTP 503 to this relay's announcement;"
                    + " announcing again in 0 s" + System.lineSeparator()), said);
            assertTrue(said.contains("HTTP 401 to /api/registry/relays without the engine's X-MPFL-Refusal mark: something between"
                    + " this relay and " + engine + " answered"), said);
        } finally {
            server.stop(0);
        }
    }

    private static RelayCommand.EngineCalls calls(String engine) {
        return new RelayCommand.EngineCalls(engine, HostCredential.generate(engine, "relay-1"), TlsSettings.NONE);
    }

    private static HttpServer engineAnswering(int port, int status, AtomicInteger announcements) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.createContext("/api/registry/relays", exchange -> {
            announcements.incrementAndGet();
            byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        return server;
    }

    /** Waits (bounded: 60 s, a hang guard) until the relay has said {@code text}. */
    private static void awaitText(ByteArrayOutputStream err, String text) throws Exception {
        Await.until(Duration.ofSeconds(60), "the relay says '" + text + "'", () -> err.toString(StandardCharsets.UTF_8),
                said -> said.contains(text));
    }
}
