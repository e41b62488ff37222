package org.mpfl.runtime.host;

import org.mpfl.ir.cli.Commands;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.launch.HostProcess;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.testing.Ports;
import org.mpfl.testing.StartsProcesses;

/**
 * {@code mpflc host --binary-port P}: the binary channel listens on the port given (so that a firewall
 * between hosts can open it), as a real host process; a port already taken stops the host with a
 * message naming the channel and the address; a value that is no port is a usage error (exit 2).
 */
@StartsProcesses
class HostBinaryPortTest {
    @Test
    void aHostStartedWithABinaryPortServesTheBinaryChannelThere() throws Exception {
        // free now, and outside the ephemeral range: the host binds it only once its JVM has started (seconds on a loaded
        // machine), and a port from bind(0) could be taken meanwhile as a dialling client's own port by a test beside it
        int port = Ports.outsideEphemeralRange();
        try (HostProcesses hosts = HostProcesses.builder().count(1).hostArg("--binary-port").hostArg(Integer.toString(port)).start()) {
            HostProcess h = hosts.get(0);
            assertEquals("127.0.0.1:" + port, h.binaryAddress(), "the ready line's binary address");
            // the binary channel's own greeting on that port, not just any listener
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                s.setSoTimeout(5_000);
                assertArrayEquals("MPFB".getBytes(StandardCharsets.US_ASCII), s.getInputStream().readNBytes(4));
            }
        }
    }

    @Test
    void aBinaryPortAlreadyTakenStopsTheHostSayingWhich() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();
            IOException e = assertThrows(IOException.class, () -> HostProcesses.builder().count(1)
                    .hostArg("--binary-port").hostArg(Integer.toString(port)).start().close());
            String m = e.getMessage();
            assertTrue(m.contains("mpflc host: cannot open the binary channel on 127.0.0.1:" + port + ": Address already in use"), m);
            assertTrue(!m.contains("\tat "), "a stack trace: " + m);
        }
    }

    record Result(int exit, String err) {
    }

    static Result host(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> words = new java.util.ArrayList<>(List.of("host"));
        words.addAll(List.of(args));
        int exit = Commands.run(words, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(exit, err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpDescribesEveryOptionAndStartsNoHost() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = Commands.run(List.of("host", "--help"), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        String usage = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, usage);
        assertTrue(usage.startsWith("usage: mpflc host [OPTIONS]"), usage);
        for (String flag : List.of("--engine URL", "--credential-file F", "--binary-port P", "--no-binary", "--tls-cert CERT.pem",
                "--tls-ca CA.pem", "--credential-stdin", "--service NAME=CLASS")) {
            assertTrue(usage.contains(flag), flag + " in " + usage);
        }
    }

    @Test
    void aValueThatIsNoPortIsAUsageError() {
        for (String bad : List.of("70000", "-1", "nine", "")) {
            Result r = host("--binary-port", bad);
            assertEquals(2, r.exit(), r.err());
            assertEquals("mpflc host: --binary-port needs a port number within 0..65535 (0: any free port), got '" + bad + "'",
                    r.err().strip());
        }
        Result portToo = host("--port", "65536");
        assertEquals(2, portToo.exit(), portToo.err());
        assertTrue(portToo.err().contains("--port needs a port number within 0..65535"), portToo.err());
        Result missing = host("--binary-port");
        assertEquals(2, missing.exit(), missing.err());
        assertEquals("mpflc host: --binary-port needs a value (--binary-port P)", missing.err().strip());
        Result equalsForm = host("--binary-port=nine");
        assertEquals("mpflc host: --binary-port needs a port number within 0..65535 (0: any free port), got 'nine'",
                equalsForm.err().strip(), "--name=value reads as --name value");
        Result unknown = host("--frobnicate");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().startsWith("mpflc host: unknown option --frobnicate (see mpflc host --help)"), unknown.err());
        Result samePort = host("--port", "19050", "--binary-port", "19050");
        assertEquals(2, samePort.exit(), samePort.err());
        assertTrue(samePort.err().contains("--port 19050 and --binary-port 19050 are the same port"), samePort.err());
        Result contradiction = host("--no-binary", "--binary-port", "9000");
        assertEquals(2, contradiction.exit(), contradiction.err());
        assertTrue(contradiction.err().contains("--binary-port 9000 and --no-binary contradict each other"), contradiction.err());
    }
}
