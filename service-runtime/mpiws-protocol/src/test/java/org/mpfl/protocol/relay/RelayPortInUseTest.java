package org.mpfl.protocol.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A relay whose port is taken says which address and port, as {@code mpflc host} and {@code mpflc up} do: it said only
 * "mpflc relay: Address already in use" (found by the deployment walkthrough, a second relay started on the first's port).
 */
class RelayPortInUseTest {
    @Test
    void aTakenPortIsNamedWithItsAddress(@TempDir Path dir) throws Exception {
        Path file = RelayAdvertiseTest.relayCredential(dir);
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            String port = String.valueOf(taken.getLocalPort());
            IOException e = assertThrows(IOException.class, () -> new RelayCommand().run(
                    List.of("--credential-file", file.toString(), "--bind", "127.0.0.1", "--port", port),
                    new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream())));
            assertEquals("cannot listen on 127.0.0.1:" + port + " (--bind, --port): Address already in use", e.getMessage());
        }
    }
}
