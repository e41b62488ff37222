package org.mpfl.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.mpfl.testing.Ports;
import org.mpfl.testing.StartsProcesses;

/**
 * The tests' PostgreSQL server ({@link PostgresServer}) starts even when the free port it picked was taken before the
 * server bound it (initdb takes seconds on a loaded machine, and the port came from {@code bind(0)}, the ephemeral range
 * from which the other test JVMs' connections take their own ports): it tries another. Before, the server failed to
 * start ("could not bind ... Address already in use") and every test of {@link PostgresRunStoreTest} with it.
 */
@StartsProcesses
class PostgresServerTest {
    @Test
    void aPortTakenBeforeTheServerBoundItIsReplacedByAnother() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            AtomicInteger asked = new AtomicInteger();
            // the first port the server gets is one that someone else holds by then
            try (PostgresServer server = PostgresServer.start(() -> asked.incrementAndGet() == 1 ? taken.getLocalPort()
                    : Ports.outsideEphemeralRange())) {
                assertEquals(2, asked.get(), "the taken port, then another");
                String url = server.url("postgres");
                assertTrue(!url.contains(":" + taken.getLocalPort() + "/"), url);
                try (Connection c = DriverManager.getConnection(url, PostgresServer.USER, server.password())) {
                    assertTrue(c.isValid(10), "the server answers on " + url);
                }
            }
        }
    }
}
