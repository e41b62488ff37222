package org.mpfl.engine.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.relay.RelayServer;
import org.mpfl.protocol.relay.RelayWire;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.lab.NetworkLab;

/**
 * The relay's admission is the listeners' shared {@code ConnectionGuard} (docs/security.md, "Slow and
 * flooding clients"): from the lab's attacker on the WAN, a stranger's full share of connections that
 * trickle a byte every half second after the greeting — each read well within the relay's 10 s read time-out, so only
 * the guard's proof deadline can end them — is closed at that deadline; one connection more from the
 * same address is closed at once, unread; and a ring across the two sites through the relay succeeds
 * meanwhile (the sites' addresses proved themselves when their hosts registered: they are served from
 * the reserve).
 */
@Timeout(600)
@StartsProcesses
class RelayAdmissionTest {
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

    @Test
    void strangersStallingAtTheRelayAreClosedAtTheProofDeadlineAndDoNotStopACrossSiteRun() throws Exception {
        lab.assertSitesIsolated();
        NetworkLab.Node atk = lab.attacker();
        String relayHost = lab.relayAddress().substring(0, lab.relayAddress().indexOf(':'));
        int relayPort = Integer.parseInt(lab.relayAddress().substring(lab.relayAddress().indexOf(':') + 1));
        int share = RelayServer.Limits.DEFAULT.admission().perSource();
        long deadlineMs = RelayServer.Limits.DEFAULT.admission().proofDeadline().toMillis();

        // the attacker's whole share, each connection greeted (so admitted: the greeting needs only the magic)
        long opened = System.nanoTime();
        List<Socket> stalled = new ArrayList<>();
        for (int i = 0; i < share; i++) {
            Socket s = atk.connect(relayHost, relayPort);
            stalled.add(s);
            s.getOutputStream().write("MPFLRLY1".getBytes(StandardCharsets.US_ASCII));
        }
        for (Socket s : stalled) {
            s.setSoTimeout(30_000);
            assertTrue(RelayWire.read(s.getInputStream()).containsKey("nonce"), "the relay must greet a stranger within its share");
        }
        // one more from the same address while its share is open: closed before a byte is read
        try (Socket extra = atk.connect(relayHost, relayPort)) {
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
