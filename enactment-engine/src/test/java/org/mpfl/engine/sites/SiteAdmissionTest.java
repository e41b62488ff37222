package org.mpfl.engine.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.relay.RelayServer;
import org.mpfl.protocol.relay.RelayWire;
import org.mpfl.protocol.relay.ReverseConnections;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.lab.LabNode;
import org.mpfl.testing.lab.NetworkLab;

/**
 * Across sites, admission and the paths that are not a plain splice: two sites of one host each behind
 * NAT, a relay, the engine and an attacker on the WAN, over TLS. A pair through the relay keeps the
 * binary channel on a loaded machine (its set-up probe waits as long as a relayed connection may take);
 * a host on the WAN reaches site 1 by reverse connections while the attacker trickles at its reverse
 * port — each stranger the port let into its handshake is closed at the shared guard's proof deadline,
 * and the awaited reverse connections still arrive (no fallback to the relay); strangers stalling at
 * the relay itself are closed at the same deadline while a run across the sites succeeds. One lab for
 * the three (they were two classes with a lab each, the same lab: its start is the larger part of
 * their CPU).
 */
@Timeout(900)
@StartsProcesses
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SiteAdmissionTest {
    static NetworkLab lab;

    @BeforeAll
    static void start() throws Exception {
        lab = NetworkLab.builder().sites(2, 1).capacity(1).tls().start();
    }

    @AfterAll
    static void stop() {
        if (lab != null) {
            lab.close();
        }
    }

    /**
     * A ring across the two sites while this JVM keeps every core busy: both hosts probe each other's
     * binary channel through the relay and keep it. With the probe's former 1 s bound such a pair
     * went to SOAP on a loaded machine (the sites benchmark had to raise it to 8 s by hand).
     */
    @Test
    @Order(1)
    void aRelayedPairUnderLoadKeepsTheBinaryChannel() throws Exception {
        lab.assertSitesIsolated();
        AtomicBoolean busy = new AtomicBoolean(true);
        List<Thread> burners = new ArrayList<>();
        for (int i = 0; i < 2 * Runtime.getRuntime().availableProcessors(); i++) {
            Thread t = new Thread(() -> {
                long x = 0;
                while (busy.get()) {
                    x += System.nanoTime() % 7;
                }
                if (x == 42) {
                    System.out.print("");
                }
            }, "load-" + i);
            t.setDaemon(true);
            t.start();
            burners.add(t);
        }
        JsonNode r;
        try {
            r = lab.runDocument(Path.of("..", "samples", "ring", "ring.mpfl.xml"), "ranks=2");
        } finally {
            busy.set(false);
        }
        for (Thread t : burners) {
            t.join(10_000);
        }
        assertEquals("SUCCEEDED", r.path("state").asText(), r + "\n" + lab.logs());
        String id = r.path("run").asText();
        assertEquals(Set.of("s1h1", "s2h1"), lab.placement(id));
        JsonNode connections = lab.run(id).path("connections");
        assertEquals(2, connections.size(), connections.toString());
        for (JsonNode c : connections) {
            assertEquals("relay", c.path("method").asText(), c.toString());
        }
        // the transport each host settled on for the other (not only the method the engine expected)
        for (String[] pair : List.of(new String[] {"s1h1", "s2h1"}, new String[] {"s2h1", "s1h1"})) {
            String log = Files.readString(lab.host(pair[0]).process().log());
            String far = lab.host(pair[1]).process().binaryAddress();
            assertTrue(log.contains("the binary channel at " + far + " answered (not direct"),
                    pair[0] + " did not keep the binary channel to " + pair[1] + " (" + far + "):\n" + log);
            assertFalse(log.contains("go over SOAP for this domain"), pair[0] + " fell back to SOAP:\n" + log);
        }
    }

    static final Pattern REVERSE_PORT = Pattern.compile("reverse connections are accepted on ([0-9.]+):(\\d+)");

    /**
     * Runs from the WAN host w1 to site 1 (reverse connections: site 1's host connects out to w1) while
     * the attacker connects to w1's reverse port again and again. The port closes a connection at once
     * while no reverse connection is awaited; one that lands while one is (the port's challenge
     * arrives) trickles its answer a byte every half second — each read well within the port's 5 s
     * read time-out, so only the guard's proof deadline ends it. Runs go on (at most
     * {@link #MAX_RUNS}) until the attacker got in at least once: when a reverse connection is
     * awaited is up to the run (its binary probe and first connections), not to the test.
     */
    @Test
    @Order(2)
    void strangersTricklingAtTheReversePortAreClosedAtTheProofDeadlineWhileReverseRunsSucceed() throws Exception {
        lab.assertSitesIsolated();
        NetworkLab.Host wan = lab.addHost("w1", 40);
        // w1 accepts inbound connections and holds no relay connection; site 1 is behind NAT
        assertFalse(lab.connects(wan, lab.host("s1h1")), "the WAN host must not reach site 1 directly");
        assertTrue(lab.connects(lab.host("s1h1"), wan), "site 1 must reach the WAN host");
        LabNode atk = lab.attacker();
        AtomicBoolean attacking = new AtomicBoolean(true);
        AtomicInteger attempts = new AtomicInteger();
        List<Future<Long>> closedAt = new CopyOnWriteArrayList<>();
        ExecutorService trickling = Executors.newCachedThreadPool();
        List<Thread> attackers = new ArrayList<>();
        for (int i = 0; i < ATTACKERS; i++) {
            Thread attacker = new Thread(() -> attack(wan, atk, attacking, attempts, closedAt, trickling), "attacker-" + i);
            attacker.setDaemon(true);
            attacker.start();
            attackers.add(attacker);
        }
        try {
            String s1h1Binary = lab.host("s1h1").process().binaryAddress();
            int runs = 0;
            for (int run = 1; run <= MAX_RUNS && (run == 1 || closedAt.isEmpty()); run++) {
                runs = run;
                JsonNode r = lab.runDocument(Path.of("..", "samples", "ring", "ring.mpfl.xml"), List.of("--sites", "default,s1"),
                        "ranks=2");
                assertEquals("SUCCEEDED", r.path("state").asText(), "run " + run + ": " + r + "\n" + lab.logs());
                String id = r.path("run").asText();
                assertEquals(Set.of("w1", "s1h1"), lab.placement(id));
                JsonNode connections = lab.run(id).path("connections");
                assertEquals(2, connections.size(), connections.toString());
                for (JsonNode c : connections) {
                    // from w1 only a reverse connection works (s1h1 connects out, asked through the relay); s1h1 reaches w1 directly
                    assertEquals(c.path("from").asText().equals("w1") ? "reverse" : "direct", c.path("method").asText(), c.toString());
                    if (c.path("from").asText().equals("w1")) {
                        assertEquals("rly", c.path("relay").asText(), c.toString());
                        assertTrue(c.path("why").asText().contains(c.path("to").asText() + " connects out to w1"), c.toString());
                    }
                }
            }
            attacking.set(false);
            for (Thread attacker : attackers) {
                attacker.join(30_000);
            }
            trickling.shutdown();

            String log = Files.readString(wan.process().log());
            assertTrue(REVERSE_PORT.matcher(log).find(), "w1 never opened its reverse port:\n" + log);
            String s1h1Address = lab.host("s1h1").node().address();
            assertTrue(Pattern.compile("connections to " + Pattern.quote(s1h1Address) + ":\\d+: reverse").matcher(log).find(),
                    "w1 made no reverse connection to s1h1:\n" + log);
            assertFalse(log.contains("a reverse connection from"), "a reverse connection fell back to the relay:\n" + log);
            assertTrue(log.contains("the binary channel at " + s1h1Binary + " answered (not direct"),
                    "w1 did not keep the binary channel to s1h1 over reverse connections:\n" + lab.logs());
            assertFalse(log.contains("go over SOAP for this domain"), "w1 fell back to SOAP:\n" + lab.logs());

            assertFalse(closedAt.isEmpty(), "in " + MAX_RUNS + " runs none of the attacker's " + attempts.get()
                    + " connections reached the reverse port's handshake (the port was never awaiting one when it arrived)");
            // the deadline plus the guard's reaper period (a quarter of it) plus room for a loaded 2-core machine:
            // 3 deadlines. Without the guard a trickler lives as long as it trickles (TRICKLE_FOR_MS, 60 s).
            long bound = 3 * ReverseConnections.LIMITS.proofDeadline().toMillis();
            List<Long> times = new ArrayList<>();
            for (Future<Long> f : closedAt) {
                long ms = f.get(TRICKLE_FOR_MS + 60_000, TimeUnit.MILLISECONDS);
                times.add(ms);
                    assertTrue(ms >= 0 && ms <= bound, "the reverse port must close a stranger that has not proved itself within "
                        + bound + " ms of its challenge; this one " + (ms < 0 ? "was never closed" : "was closed after " + ms + " ms"));
            }
            System.out.println("reverse port: " + closedAt.size() + " of " + attempts.get() + " attacker connections in "
                    + runs + " runs got into the handshake; closed after " + times + " ms");
        } finally {
            attacking.set(false);
            trickling.shutdownNow();
            lab.removeHost(wan);
        }
    }

    static final int MAX_RUNS = 10;
    /** Attackers at once, from the one attacker address: within its share of the port (8). */
    static final int ATTACKERS = 4;

    /**
     * The attacker: once w1 logged its reverse port, connects to it every 10 ms, sends the magic and
     * waits for the challenge; a connection that gets one is handed to a trickler
     * ({@link #trickle}), whose time to the close lands in {@code closedAt}.
     */
    static void attack(NetworkLab.Host wan, LabNode atk, AtomicBoolean attacking, AtomicInteger attempts,
                       List<Future<Long>> closedAt, ExecutorService trickling) {
        String host = null;
        int port = 0;
        while (attacking.get() && host == null) {
            try {
                Matcher m = REVERSE_PORT.matcher(Files.readString(wan.process().log()));
                if (m.find()) {
                    host = m.group(1);
                    port = Integer.parseInt(m.group(2));
                }
                Thread.sleep(50);
            } catch (IOException | InterruptedException e) {
                return;
            }
        }
        while (attacking.get()) {
            Socket s = null;
            boolean handedOver = false;
            try {
                attempts.incrementAndGet();
                s = atk.connect(host, port);
                s.getOutputStream().write("MPFLREV1".getBytes(StandardCharsets.US_ASCII));
                s.setSoTimeout(5_000);
                Map<String, String> challenge = RelayWire.read(s.getInputStream());
                if (challenge.containsKey("nonce")) {
                    // measured from the challenge, which the port sends after it admitted (and armed) the connection:
                    // the lab's forwarding of the attacker's connects, queued under load, does not count
                    long challenged = System.nanoTime();
                    Socket admitted = s;
                    closedAt.add(trickling.submit(() -> trickle(admitted, challenged)));
                    handedOver = true;
                }
            } catch (IOException | RuntimeException closedAtOnce) {
                // nothing awaited (or over the share): closed before a byte was read
            } finally {
                if (!handedOver && s != null) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // closing anyway
                    }
                }
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * The relay's admission is the listeners' shared {@code ConnectionGuard} (docs/security.md, "Slow and
     * flooding clients"): from the lab's attacker on the WAN, a stranger's full share of connections that
     * trickle a byte every half second after the greeting — each read well within the relay's 10 s read
     * time-out, so only the guard's proof deadline can end them — is closed at that deadline; one
     * connection more from the same address is closed at once, unread; and a ring across the two sites
     * through the relay succeeds meanwhile (the sites' addresses proved themselves when their hosts
     * registered: they are served from the reserve). Last: the reverse test's WAN host is gone by then.
     */
    @Test
    @Order(3)
    void strangersStallingAtTheRelayAreClosedAtTheProofDeadlineAndDoNotStopACrossSiteRun() throws Exception {
        lab.assertSitesIsolated();
        int share = RelayServer.Limits.DEFAULT.admission().perSource();
        long deadlineMs = RelayServer.Limits.DEFAULT.admission().proofDeadline().toMillis();

        // the attacker's whole share, each connection greeted (so admitted: the greeting needs only the magic)
        long opened = System.nanoTime();
        List<Socket> stalled = new ArrayList<>();
        for (int i = 0; i < share; i++) {
            Socket s = CrossSites.attackerToRelay(lab);
            stalled.add(s);
            s.getOutputStream().write("MPFLRLY1".getBytes(StandardCharsets.US_ASCII));
        }
        for (Socket s : stalled) {
            s.setSoTimeout(30_000);
            assertTrue(RelayWire.read(s.getInputStream()).containsKey("nonce"), "the relay must greet a stranger within its share");
        }
        // one more from the same address while its share is open: closed before a byte is read
        try (Socket extra = CrossSites.attackerToRelay(lab)) {
            extra.setSoTimeout(10_000);
            assertEquals(-1, extra.getInputStream().read(), "a stranger beyond its share must be closed at once");
        }
        ExecutorService trickling = Executors.newFixedThreadPool(share);
        List<Future<Long>> closedAt = new ArrayList<>();
        for (Socket s : stalled) {
            closedAt.add(trickling.submit(() -> trickle(s, opened)));
        }
        trickling.shutdown();

        JsonNode r = lab.runDocument(Path.of("..", "samples", "ring", "ring.mpfl.xml"), "ranks=2");
        assertEquals("SUCCEEDED", r.path("state").asText(), r + "\n" + lab.logs());
        assertEquals(1, r.at("/outputs/token/0").asInt(), r.toString());
        Set<String> sites = new TreeSet<>();
        lab.placement(r.path("run").asText()).forEach(h -> sites.add(h.substring(0, 2)));
        assertEquals(Set.of("s1", "s2"), sites, "the run must span both sites (through the relay)");

        // the deadline plus the guard's reaper period (a quarter of it) plus room for a loaded 2-core
        // machine: 3 deadlines. Without the guard a trickler lives as long as it trickles (TRICKLE_FOR_MS).
        long bound = 3 * deadlineMs;
        for (Future<Long> f : closedAt) {
            long ms = f.get(TRICKLE_FOR_MS + 60_000, TimeUnit.MILLISECONDS);
            assertTrue(ms >= 0 && ms <= bound, "the relay must close a stranger that has not proved itself within " + bound
                    + " ms of opening; this one " + (ms < 0 ? "was never closed" : "was closed after " + ms + " ms"));
        }
    }

    static final long TRICKLE_FOR_MS = 60_000;

    /**
     * After the greeting: a frame announcing 1000 bytes, then its body, one byte every 500 ms, until the
     * relay closes the connection or {@link #TRICKLE_FOR_MS} passed. Returns ms from {@code opened} to
     * the close, or -1.
     */
    static long trickle(Socket s, long opened) {
        byte[] head = ByteBuffer.allocate(4).putInt(1000).array();
        try (s) {
            s.setSoTimeout(500);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            for (int i = 0; (System.nanoTime() - opened) / 1_000_000 < TRICKLE_FOR_MS; i++) {
                out.write(i < head.length ? head[i] : 'x');
                out.flush();
                try {
                    if (in.read() < 0) {
                        return (System.nanoTime() - opened) / 1_000_000;
                    }
                } catch (SocketTimeoutException quiet) {
                    // nothing from the relay in this half second: trickle on
                }
            }
            return -1;
        } catch (IOException closed) {
            return (System.nanoTime() - opened) / 1_000_000;
        }
    }
}
