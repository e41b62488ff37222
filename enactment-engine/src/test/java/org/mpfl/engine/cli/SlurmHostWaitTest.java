package org.mpfl.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.protocol.EngineRefusal;

/**
 * How {@code mpflc slurm} waits for its nodes' hosts ({@link SlurmCommand#awaitHosts}), without Slurm: each host is
 * looked up with its own credential. The engine's own refusal of the credential (401 with its
 * {@link EngineRefusal#CREDENTIAL_REFUSED} mark, from a real engine; its 403 marked {@link EngineRefusal#CREDENTIAL_FOREIGN}
 * for another host's credential) ends the wait at once, saying so; a 401 or 403
 * without the mark (a reverse proxy in front of the engine while it reloads, its login page: a small real HTTP
 * server here) is only the last error, and the wait goes on — until the host is listed, or until the timeout, which
 * names that answer.
 */
@Timeout(120)
class SlurmHostWaitTest {
    @TempDir
    Path dir;
    private HttpServer proxy;
    private final StepStandIn srun = new StepStandIn();

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.stop(0);
        }
        srun.destroy();
    }

    /** The srun step, running until destroyed (the wait only asks whether it still runs). */
    private static final class StepStandIn extends Process {
        private final CountDownLatch ended = new CountDownLatch(1);

        @Override
        public OutputStream getOutputStream() {
            return OutputStream.nullOutputStream();
        }

        @Override
        public InputStream getInputStream() {
            return InputStream.nullInputStream();
        }

        @Override
        public InputStream getErrorStream() {
            return InputStream.nullInputStream();
        }

        @Override
        public int waitFor() throws InterruptedException {
            ended.await();
            return 0;
        }

        @Override
        public boolean isAlive() {
            return ended.getCount() > 0;
        }

        @Override
        public int exitValue() {
            if (isAlive()) {
                throw new IllegalThreadStateException("running");
            }
            return 0;
        }

        @Override
        public void destroy() {
            ended.countDown();
        }
    }

    /**
     * A proxy in front of the engine that answers the host's look-up with its own {@code status} page (no mark) the
     * first {@code refusals} times, then as the engine would for an enrolled host.
     */
    private String proxy(int status, int refusals, AtomicInteger requests) throws IOException {
        proxy = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        proxy.createContext("/api/registry/hosts/h1", ex -> {
            try (ex) {
                boolean refuse = requests.incrementAndGet() <= refusals;
                byte[] body = (refuse ? "<html><body><h1>" + status + "</h1><hr>nginx</body></html>"
                        : "{\"hostId\":\"h1\",\"instance\":\"i-2\"}").getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().add("Content-Type", refuse ? "text/html" : "application/json");
                ex.sendResponseHeaders(refuse ? status : 200, body.length);
                ex.getResponseBody().write(body);
            }
        });
        proxy.start();
        return "http://127.0.0.1:" + proxy.getAddress().getPort();
    }

    @Test
    void theEnginesMarkedRefusalOfTheCredentialEndsTheWaitAtOnce() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir))) {
            EngineClient asHost = new EngineClient(engine.url(), "unknown-id.not-a-secret");
            long t0 = System.nanoTime();
            IOException e = assertThrows(IOException.class, () -> SlurmCommand.awaitHosts(Map.of("h1", asHost), Map.of(), srun, dir,
                    Duration.ofSeconds(60)));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(e.getMessage().startsWith("the engine refuses the credential of host h1"), e.getMessage());
            assertTrue(ms < 20_000, "refused after " + ms + " ms of a 60 s wait");
        }
    }

    /**
     * A node's credential file whose hostId is not the one the engine issued it for (edited, or put together from two
     * credentials): the engine's marked 403 ("this credential speaks for host …") ends the wait at once, saying so.
     */
    @Test
    void theEnginesMarkedRefusalOfAnotherHostsCredentialEndsTheWaitAtOnce() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).dataDir(dir))) {
            org.mpfl.protocol.HostCredential other = engine.issueHostCredential("n2");
            EngineClient asHost = new EngineClient(engine.url(), other.id() + "." + other.secret());
            long t0 = System.nanoTime();
            IOException e = assertThrows(IOException.class, () -> SlurmCommand.awaitHosts(Map.of("n1", asHost), Map.of(), srun, dir,
                    Duration.ofSeconds(60)));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(e.getMessage().startsWith("the engine refuses the credential of host n1"), e.getMessage());
            assertTrue(e.getMessage().contains("speaks for host 'n2'") && e.getMessage().contains("issued it for another host"),
                    e.getMessage());
            assertTrue(ms < 20_000, "refused after " + ms + " ms of a 60 s wait");
        }
    }

    @Test
    void aProxysUnmarked401sAreWaitedOutUntilTheHostIsListed() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        String url = proxy(401, 3, requests);
        SlurmCommand.awaitHosts(Map.of("h1", new EngineClient(url, "h1-id.secret")), Map.of(), srun, dir, Duration.ofSeconds(60));
        assertEquals(4, requests.get(), "looked up again until listed");
    }

    @Test
    void aProxysUnmarked403UntilTheTimeoutIsNamedWhenTheWaitGivesUp() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        String url = proxy(403, Integer.MAX_VALUE, requests);
        IOException e = assertThrows(IOException.class, () -> SlurmCommand.awaitHosts(Map.of("h1", new EngineClient(url,
                "h1-id.secret")), Map.of(), srun, dir, Duration.ofSeconds(2)));
        assertTrue(e.getMessage().startsWith("hosts [h1] did not enroll with the engine within 2 s"), e.getMessage());
        assertTrue(e.getMessage().contains("403") && e.getMessage().contains("without the engine's " + EngineRefusal.HEADER + " mark"),
                e.getMessage());
        assertTrue(requests.get() > 1, "looked up again: " + requests.get());
    }
}
