package org.mpfl.engine.deploy;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.engine.registry.HostInfo;

/**
 * Deployments to hosts that misbehave on the wire (a raw socket plays the host): an endless refusal
 * and a refusal whose body never ends are cut short, within the timeout, with a short reason — a
 * rogue host can neither fill the engine's memory nor hold up a run's start.
 */
@Timeout(30)
class HttpArchiveDeployerTest {
    private ServerSocket server;
    private final CountDownLatch stop = new CountDownLatch(1);

    @AfterEach
    void close() throws IOException {
        stop.countDown();
        if (server != null) {
            server.close();
        }
    }

    /** Serves one connection: reads the request head, then writes {@code head} and calls {@code body}. */
    private HostInfo host(String head, BodyWriter body) throws IOException {
        server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            try (Socket s = server.accept()) {
                InputStream in = s.getInputStream();
                byte[] buf = new byte[8192];
                in.read(buf); // the request head (and perhaps some of the archive): enough to answer
                OutputStream out = s.getOutputStream();
                out.write(head.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                body.write(out);
            } catch (IOException | InterruptedException e) {
                // the engine hung up: what it should do
            }
        }, "rogue-deploy-host");
        t.setDaemon(true);
        t.start();
        String base = "http://127.0.0.1:" + server.getLocalPort() + "/axis2/services";
        return new HostInfo("rogue", base, null, Set.of(), 64, 0, false, null);
    }

    @FunctionalInterface
    interface BodyWriter {
        void write(OutputStream out) throws IOException, InterruptedException;
    }

    @Test
    void anEndlessRefusalIsReadOnlyUpToItsLimit() throws Exception {
        HostInfo h = host("HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n",
                out -> {
                    byte[] chunk = ("1000\r\n" + "x".repeat(4096) + "\r\n").getBytes(StandardCharsets.US_ASCII);
                    for (long sent = 0; sent < 4L << 30 && stop.getCount() > 0; sent += 4096) {
                        out.write(chunk); // 4 GB if nobody stops reading
                    }
                });
        long t0 = System.nanoTime();
        IOException e = assertThrows(IOException.class,
                () -> new HttpArchiveDeployer(Duration.ofSeconds(5), hostId -> "Bearer t").deploy(h, "ring", new byte[] {1, 2, 3}));
        assertTrue(e.getMessage().contains("refused service 'ring'") && e.getMessage().contains("HTTP 500 xxxx"), e.getMessage());
        assertTrue(e.getMessage().length() < HttpArchiveDeployer.MAX_ANSWER_BYTES + 300, "reason length " + e.getMessage().length());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "cut short, not read to the end");
    }

    @Test
    void aRefusalWhoseBodyNeverEndsFailsWithinTheTimeout() throws Exception {
        HostInfo h = host("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 1000000\r\n\r\nsome", out -> stop.await(60, TimeUnit.SECONDS));
        long t0 = System.nanoTime();
        IOException e = assertThrows(IOException.class,
                () -> new HttpArchiveDeployer(Duration.ofSeconds(2), hostId -> "Bearer t").deploy(h, "ring", new byte[] {1, 2, 3}));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(e.getMessage().contains("did not answer the deployment of service 'ring'"), e.getMessage());
        // the point: the 2 s timeout ends it, not the host's 60 s; the upper 20 s holds on a loaded 2-core machine
        assertTrue(ms >= 1_900 && ms < 20_000, "bounded by the 2 s timeout: " + ms + " ms");
    }
}
