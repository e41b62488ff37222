package org.mpfl.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/**
 * A port for a server that goes down and comes back: never one a dialling client can be given as its own, and
 * bound again at once after clients were refused there.
 */
class PortsTest {

    @Test
    void aPortOutsideTheEphemeralRangeIsFreeAndBoundAgainAfterRefusedDials() throws Exception {
        int[] range = Ports.ephemeralRange();
        for (int i = 0; i < 20; i++) {
            int port = Ports.outsideEphemeralRange();
            assertTrue(port < range[0] || port > range[1], port + " is in the ephemeral range " + range[0] + "-" + range[1]);
            assertTrue(port >= 1024 && port <= 65_535, port + " is not an unprivileged port");
        }
        int port = Ports.outsideEphemeralRange();
        try (ServerSocket up = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertTrue(up.isBound());
        }
        for (int i = 0; i < 200; i++) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                throw new AssertionError("a dial of the closed port " + port + " connected (own port " + s.getLocalPort() + ")");
            } catch (ConnectException refused) {
                // the server is down: refused, as a client sees it
            }
        }
        try (ServerSocket back = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertTrue(back.isBound());
        }
    }

    /**
     * Tests beside each other in one JVM (the fast tier's parallel classes) each take a port and bind it later: two of
     * them must never be given the same one. 1000 picks from the ~27 000 ports outside the range met 14 times
     * before (each pick only checked that the port was free at that moment); now no port is handed out twice.
     */
    @Test
    void noPortIsHandedOutTwiceInOneJvm() throws Exception {
        java.util.Set<Integer> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.List<Integer> twice = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.concurrent.ExecutorService pickers = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < 4; t++) {
                done.add(pickers.submit(() -> {
                    for (int i = 0; i < 250; i++) {
                        int port = Ports.outsideEphemeralRange();
                        if (!seen.add(port)) {
                            twice.add(port);
                        }
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get();
            }
        } finally {
            pickers.shutdownNow();
        }
        assertTrue(twice.isEmpty(), "handed out twice: " + twice);
    }
}
