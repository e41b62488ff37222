package org.mpfl.engine.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.RankEvent;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * A run's event stream under a viewer that does not behave, and a run resumed at once: the stream of a run resumed
 * within the end's grace goes on; one caller holds a bounded number of streams; a viewer that does not read its
 * live events is dropped with {@code event: dropped} and its connection closed, not kept with every event in memory.
 */
@Timeout(120)
class EventStreamBoundsTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    Engine engine;
    private final List<Socket> sockets = new ArrayList<>();

    private void start(FakeRanks.Behaviour behaviour) throws Exception {
        engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir)
                .invoker(new FakeRanks(behaviour)));
        HostCalls.announce(engine, Map.of("hostId", "h", "soapUrl", "http://127.0.0.1:1/s", "services", List.of("ring")));
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (engine != null) {
            engine.close();
        }
    }

    private String startRun() throws Exception {
        return Http.post(engine.url() + "/api/runs", engine.token(),
                Map.of("plan", Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "ranks", 1))))).json().get("id").asText();
    }

    private void awaitState(String id, String state) throws Exception {
        Await.runIn(WAIT, state, () -> Http.get(engine.url() + "/api/runs/" + id).json());
    }

    /**
     * Cancelled, then resumed before the end's grace passed: the stream went on delivering the new attempt's events
     * up to its own end. Before, the first attempt's end timer fired 2 s after the cancel and ended the stream of a
     * run that was running again.
     */
    @Test
    void aRunResumedWithinTheGraceKeepsItsStream() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        start(r -> {
            if (attempts.incrementAndGet() == 1) {
                r.awaitAbort(90_000);
                return;
            }
            release.await(90, TimeUnit.SECONDS);
            r.event(RankEvent.Type.PROGRESS, null, null, null, null, null, Map.of("value", 2, "total", 2));
            r.state("DONE");
        });
        String id = startRun();
        awaitState(id, "RUNNING");
        Socket s = openStream(id, engine.token());
        StreamReader stream = new StreamReader(s.getInputStream());
        stream.start();
        Await.until(WAIT, "the stream's snapshot of the running run", () -> stream.text().contains("event: snapshot"));
        assertTrue(stream.text().contains("\"state\":\"RUNNING\""), stream.text());
        assertEquals(200, Http.post(engine.url() + "/api/runs/" + id + "/cancel", engine.token(), null).status());
        Await.until(WAIT, "the stream tells the run was cancelled", () -> stream.text().contains("\"state\":\"CANCELLED\""));
        long cancelSeen = System.nanoTime();
        Http.Answer resumed = Http.post(engine.url() + "/api/runs/" + id + "/resume", engine.token(), null);
        assertTrue(resumed.status() / 100 == 2, resumed.body());
        long resumedAfterMs = (System.nanoTime() - cancelSeen) / 1_000_000;
        Assumptions.assumeTrue(resumedAfterMs < EventStream.END_GRACE_MS / 2,
                "the resume took " + resumedAfterMs + " ms; this test needs it within the grace (machine overloaded)");
        // the moment the cancelled attempt's end would have come, and then some
        Await.until(WAIT, "the cancelled attempt's grace has passed",
                () -> System.nanoTime() - cancelSeen > (EventStream.END_GRACE_MS + 1_000) * 1_000_000);
        release.countDown();
        Await.until(WAIT, "the stream ends", () -> stream.ended());
        String text = stream.text();
        int succeeded = text.indexOf("\"state\":\"SUCCEEDED\"");
        assertTrue(succeeded > 0, "the resumed attempt's end reached the stream before it ended: " + tail(text));
        assertTrue(text.indexOf("event: end") > succeeded, tail(text));
        assertEquals(1, count(text, "event: end"), tail(text));
    }

    /** One caller opens as many streams as it likes, and reads none: beyond the bound it is refused (429). */
    @Test
    void aCallerHoldsABoundedNumberOfStreams() throws Exception {
        start(r -> r.awaitAbort(90_000));
        String id = startRun();
        awaitState(id, "RUNNING");
        for (int i = 0; i < EventStream.MAX_STREAMS_PER_CALLER; i++) {
            assertEquals("HTTP/1.1 200 OK", statusLine(openStream(id, engine.token())), "stream " + (i + 1));
        }
        Socket refused = openStream(id, engine.token());
        assertEquals("HTTP/1.1 429 Too Many Requests", statusLine(refused));
        sockets.remove(0).close();
        Await.until(WAIT, "a closed stream makes room", () -> {
            Socket s = openStream(id, engine.token());
            boolean ok = statusLine(s).equals("HTTP/1.1 200 OK");
            if (!ok) {
                sockets.remove(s);
                s.close();
            }
            return ok;
        });
    }

    /**
     * A viewer that reads nothing while the run sends ~10 MB of log events: it is dropped (its connection ends with
     * {@code event: dropped}) once its unread events pass the bound. Before, the engine kept every event for it as long
     * as the run went on.
     */
    @Test
    void aViewerThatDoesNotReadIsDropped() throws Exception {
        CountDownLatch produce = new CountDownLatch(1);
        CountDownLatch produced = new CountDownLatch(1);
        String line = "x".repeat(RankEvent.MAX_MESSAGE_CHARS - 100);
        start(r -> {
            produce.await(90, TimeUnit.SECONDS);
            for (int i = 0; i < 160; i++) {
                r.event(RankEvent.Type.LOG, null, null, null, i + " " + line, null, null);
            }
            produced.countDown();
            r.awaitAbort(90_000);
        });
        String id = startRun();
        awaitState(id, "RUNNING");
        Socket slow = new Socket();
        sockets.add(slow);
        slow.setReceiveBufferSize(4096); // before connecting: the window it offers stays small
        URI url = URI.create(engine.url());
        slow.connect(new InetSocketAddress(url.getHost(), url.getPort()), 10_000);
        request(slow, id, engine.token());
        assertEquals("HTTP/1.1 200 OK", statusLine(slow));
        produce.countDown();
        assertTrue(produced.await(90, TimeUnit.SECONDS), "the rank posted its events");
        // now read what the engine kept sending, to the end of the connection (keep-alive comments keep a stream that
        // was never dropped going: bounded by a deadline, not by the socket's timeout)
        slow.setSoTimeout(30_000);
        String text = readToEnd(slow.getInputStream(), System.nanoTime() + WAIT.toNanos());
        assertTrue(text.contains("event: dropped") && text.contains("Last-Event-ID"), "dropped, saying why: " + tail(text));
        assertTrue(text.length() < 160 * line.length(), "not every event was kept for it: " + text.length() + " chars");
        assertEquals("RUNNING", Http.get(engine.url() + "/api/runs/" + id).json().get("state").asText(), "the run goes on");
    }

    /** Opens a stream on a connection of its own (closed after the test). */
    private Socket openStream(String id, String token) throws IOException {
        URI url = URI.create(engine.url());
        Socket s = new Socket(url.getHost(), url.getPort());
        sockets.add(s);
        s.setSoTimeout(30_000);
        request(s, id, token);
        return s;
    }

    private void request(Socket s, String id, String token) throws IOException {
        URI url = URI.create(engine.url());
        OutputStream out = s.getOutputStream();
        out.write(("GET /api/runs/" + id + "/events HTTP/1.1\r\nHost: " + url.getAuthority() + "\r\nAuthorization: Bearer " + token
                + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static String statusLine(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        StringBuilder sb = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\r'; c = in.read()) {
            sb.append((char) c);
        }
        return sb.toString();
    }

    /** What a connection sends until it closes; an assertion error when it is still open at {@code deadline}. */
    private static String readToEnd(InputStream in, long deadline) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] b = new byte[65536];
        for (int n = in.read(b); n >= 0; n = in.read(b)) {
            all.write(b, 0, n);
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the stream is still open after " + all.size() + " bytes: "
                        + tail(all.toString(StandardCharsets.UTF_8)));
            }
        }
        return all.toString(StandardCharsets.UTF_8);
    }

    private static String tail(String text) {
        return text.length() <= 2000 ? text : "…" + text.substring(text.length() - 2000);
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    /** Reads a stream's bytes as they come, until the connection's response ends (the chunked body's last chunk). */
    private static final class StreamReader extends Thread {
        private final InputStream in;
        private final StringBuffer text = new StringBuffer();
        private volatile boolean ended;

        StreamReader(InputStream in) {
            this.in = in;
            setDaemon(true);
        }

        @Override
        public void run() {
            byte[] b = new byte[8192];
            try {
                for (int n = in.read(b); n >= 0; n = in.read(b)) {
                    text.append(new String(b, 0, n, StandardCharsets.UTF_8));
                    if (text.indexOf("\r\n0\r\n\r\n") >= 0) {
                        break;
                    }
                }
            } catch (IOException e) {
                // the test closes the socket
            }
            ended = true;
        }

        String text() {
            return text.toString();
        }

        boolean ended() {
            return ended;
        }
    }
}
