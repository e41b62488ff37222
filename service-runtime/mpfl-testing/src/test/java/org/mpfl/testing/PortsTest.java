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
}
