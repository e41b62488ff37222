package org.mpfl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import org.junit.jupiter.api.Test;
import org.mpfl.testing.Http;

/**
 * A given port already in use fails the start with a clear message. The port an engine picks for itself ({@code port(0)}) stays reserved until its HTTP server listens
 * there: the local hosts, started at the same time, bind port 0 meanwhile and once in a while got it.
 */
class EnginePortTest {
    @org.junit.jupiter.api.io.TempDir
    java.nio.file.Path dir;

    @Test
    void aGivenPortThatAnotherServerListensOnFailsTheStartSayingSo() throws Exception {
        try (ServerSocket other = new ServerSocket()) {
            other.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = other.getLocalPort();
            java.io.IOException e = assertThrows(java.io.IOException.class,
                    () -> Engine.start(new EngineConfig().port(port).dataDir(dir.resolve("engine"))).close());
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith("cannot listen on 127.0.0.1:" + port
                    + ": the port is in use"), e.getMessage());
        }
        // once it is free, the same port serves
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = probe.getLocalPort();
            probe.close();
            try (Engine engine = Engine.start(new EngineConfig().port(port).dataDir(dir.resolve("engine2")))) {
                assertEquals(200, Http.get(engine.url() + "/api/runs").status());
            }
        }
    }

    @Test
    void aReservedPortGoesToNoPortZeroBindButTheServerCanListenThere() throws Exception {
        try (Socket reservation = Engine.reservePort("127.0.0.1")) {
            int port = reservation.getLocalPort();
            int taken = 0;
            // without the reservation a few of these got the port (3 of 22,000 when measured)
            for (int i = 0; i < 20_000; i++) {
                try (ServerSocket s = new ServerSocket()) {
                    s.setReuseAddress(true);
                    s.bind(new InetSocketAddress("127.0.0.1", 0));
                    taken += s.getLocalPort() == port ? 1 : 0;
                }
            }
            assertEquals(0, taken, "port-0 binds that got the reserved port " + port);
            try (ServerSocket other = new ServerSocket()) {
                other.setReuseAddress(false);
                assertThrows(BindException.class, () -> other.bind(new InetSocketAddress("127.0.0.1", port)));
            }
            // what Vert.x does: listen with SO_REUSEADDR, beside the reserving socket
            try (ServerSocketChannel server = ServerSocketChannel.open()) {
                server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                server.bind(new InetSocketAddress("127.0.0.1", port));
                assertEquals(port, ((InetSocketAddress) server.getLocalAddress()).getPort());
            }
        }
    }
}
