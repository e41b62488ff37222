package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.launch.HostProcess;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.StartsProcesses;

/**
 * The service-host process as launchers see it: the ready line, the engine announcement and
 * heartbeats with the host's credential (taken from the environment, never the command line),
 * deployment needing the engine's key for this host (not its secret, not another host's key), and that closing the testkit leaves no process behind.
 */
@StartsProcesses
class HostProcessTest {
    /** A trivial program for the {@code --service} option. */
    public static final class Nothing implements org.mpfl.runtime.api.RankProgram {
        @Override
        public void run(org.mpfl.runtime.api.RankContext context) {
            context.output("ran", true);
        }
    }

    private static HttpResponse<String> deploy(HostProcess h, String authorization) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(h.baseUrl() + ServiceHost.DEPLOY_PATH + "?service=Evil"))
                .timeout(Duration.ofSeconds(20)).header("Authorization", authorization)
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {1, 2, 3})).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A deploy refused before its body is read, whose body arrives after the answer, followed at once by the next
     * request on the same connection (a client that reuses its keep-alive connection): the host closes the
     * connection with its answer. Kept open, the body's tail and the next request came in one read, and
     * Axis2's connection dropped that request with its read buffer: the caller waited for an answer that
     * never came (found as a 20-s time-out in HostCredentialsAttackTest).
     */
    private static void aRefusedDeploymentEndsItsConnection(HostProcess h) throws Exception {
        URI base = URI.create(h.baseUrl());
        String head = "POST " + ServiceHost.DEPLOY_PATH + "?service=Evil HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\n"
                + "Content-Type: application/octet-stream\r\nContent-Length: 1\r\n\r\n";
        try (Socket s = new Socket(base.getHost(), base.getPort())) {
            s.setSoTimeout(20_000);
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] first = new byte[4096];
            int n = in.read(first);
            String answer = new String(first, 0, Math.max(n, 0), StandardCharsets.US_ASCII);
            assertTrue(answer.startsWith("HTTP/1.1 403"), answer);
            assertTrue(answer.toLowerCase(Locale.ROOT).contains("connection: close"), answer);
            try {
                out.write(("x" + head + "x").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (IOException closedAlready) {
                // the host closed first: what this checks
            }
            // the rest of the first answer, then the end of the stream: never a wait for an answer that does not come
            try {
                while (in.read(first) >= 0) {
                    // the first answer's tail
                }
            } catch (SocketException reset) {
                // closed with the request unread: also an end
            }
        }
    }

    @Test
    void hostAnnouncesItselfBeatsAndRefusesForeignDeployments() throws Exception {
        List<String> announcements = new CopyOnWriteArrayList<>();
        List<String> beats = new CopyOnWriteArrayList<>();
        HttpServer engine = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        engine.createContext("/api/registry/hosts", ex -> {
            String path = ex.getRequestURI().getPath();
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            byte[] answer = "{\"heartbeatIntervalMs\":500}".getBytes(StandardCharsets.UTF_8);
            if (path.endsWith("/heartbeat")) {
                beats.add(path + " " + ex.getRequestHeaders().getFirst("Authorization"));
                ex.sendResponseHeaders(204, -1);
            } else {
                announcements.add(body);
                ex.sendResponseHeaders(201, answer.length);
                ex.getResponseBody().write(answer);
            }
            ex.close();
        });
        engine.start();
        HostCredential credential = HostCredential.generate(null, "h-test");
        HostProcesses hosts = HostProcesses.builder().count(1).service("Nothing", Nothing.class)
                .environmentOf(i -> Map.of(HostCredential.ENV, credential.text()))
                .hostArg("--engine").hostArg("http://127.0.0.1:" + engine.getAddress().getPort())
                .hostArg("--capacity").hostArg("3").start();
        HostProcess h = hosts.get(0);
        try {
            assertTrue(h.baseUrl().startsWith("http://127.0.0.1:"), h.baseUrl());
            assertNotNull(h.binaryAddress());
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (beats.size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertFalse(announcements.isEmpty(), "no announcement");
            JsonNode a = new ObjectMapper().readTree(announcements.get(0));
            assertEquals(h.hostId(), a.get("hostId").asText());
            assertEquals(h.servicesBaseUrl(), a.get("soapUrl").asText());
            assertEquals(h.binaryAddress(), a.get("binaryAddress").asText());
            assertEquals("Nothing", a.get("services").get(0).asText());
            assertEquals(3, a.get("capacity").asInt());
            assertTrue(beats.size() >= 2, "heartbeats: " + beats);
            assertEquals("h-test", h.hostId(), "the host id is the credential's");
            assertTrue(beats.get(0).equals("/api/registry/hosts/h-test/heartbeat " + credential.authorization()), beats.get(0));
            String cmdline = Files.readString(Path.of("/proc/" + h.process().pid() + "/cmdline"), StandardCharsets.UTF_8);
            assertFalse(cmdline.contains(credential.secret()) || cmdline.contains(credential.engineKey()),
                    "a secret on the command line: " + cmdline.replace('\0', ' '));
            assertTrue(cmdline.contains("\0-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir") + "\0"),
                    "the host keeps its temporary files where its launcher does: " + cmdline.replace('\0', ' '));

            assertEquals(403, deploy(h, "Bearer wrong").statusCode());
            assertEquals(403, deploy(h, credential.authorization()).statusCode(), "the host's own secret is not the engine's key");
            HostCredential other = HostCredential.generate(null, "h-other");
            assertEquals(403, deploy(h, HostCredential.engineAuthorization(other.engineKey())).statusCode(),
                    "another host's key");
            aRefusedDeploymentEndsItsConnection(h);
            HttpResponse<String> accepted = deploy(h, HostCredential.engineAuthorization(credential.engineKey()));
            assertEquals(400, accepted.statusCode(), "past authorisation, the bytes are no archive: " + accepted.body());

            engine.stop(0); // an engine that went away: the host keeps serving
            Thread.sleep(1500);
            assertTrue(h.isAlive());
        } finally {
            hosts.close();
            engine.stop(0);
        }
        assertFalse(h.isAlive(), "host process still running after close()");
    }
}
