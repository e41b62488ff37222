package org.mpfl.protocol.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Who is at the other end of a loopback connection, from the kernel's socket tables: the connecting socket's
 * line (its own port first, the listener's second), established only, IPv4 and IPv6 (v4-mapped) alike.
 */
class LoopbackPeerTest {
    /** Lines as /proc/net/tcp and tcp6 print them: a listener on 41313, a client of uid 65534 from port 50000, its accepted twin. */
    private static final List<String> TABLES = List.of(
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
            "   0: 0100007F:A161 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0 100 0 0 10 0",
            "   1: 0100007F:C350 0100007F:A161 01 00000000:00000000 00:00000000 00000000 65534        0 1002 1 0 20 4 30 10 -1",
            "   2: 0100007F:A161 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 1003 1 0 20 4 30 10 -1",
            "   3: 0100007F:C351 0100007F:A161 06 00000000:00000000 03:00000F2A 00000000     0        0 0 3 0",
            "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
            "   0: 0000000000000000FFFF00000100007F:C352 0000000000000000FFFF00000100007F:A161 01 00000000:00000000 00:00000000 00000000  1000        0 1004 1 0 20 4 30 10 -1");

    @Test
    void theConnectingSocketsOwnerIsReadNotTheAcceptedTwins() {
        assertEquals(OptionalInt.of(65534), LoopbackPeer.owner(TABLES, 50000, 41313));
        assertEquals(OptionalInt.of(1000), LoopbackPeer.owner(TABLES, 50002, 41313), "an IPv6 socket, v4-mapped");
    }

    @Test
    void aSocketNoLongerConnectedOrUnknownHasNoOwner() {
        // TIME_WAIT lines say uid 0: they must not pass for root's
        assertEquals(OptionalInt.empty(), LoopbackPeer.owner(TABLES, 50001, 41313));
        assertEquals(OptionalInt.empty(), LoopbackPeer.owner(TABLES, 50009, 41313));
    }

    @Test
    void aConnectionOfThisProcessIsThisUsers() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
             Socket accepted = server.accept()) {
            assertTrue(client.isConnected());
            assertTrue(LoopbackPeer.isThisUser(accepted), "this JVM's own connection");
        }
    }
}
