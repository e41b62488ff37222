package org.mpfl.engine.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.relay.RelayDialer;
import org.mpfl.protocol.relay.RelayServer;
import org.mpfl.protocol.relay.RelayWire;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.testing.Await;
import org.mpfl.testing.Http;

/**
 * A host may announce any address as its relay. What listens there (the attacker's own program, run with an
 * enrolled host's credential) must not get from the engine a proof it can pass on to a real relay: it forwards
 * the real relay's greeting to the engine, and the engine's answer back, and would be the engine at that relay
 * (whose dials need no domain token). The engine proves itself only to the relay announced at the address it
 * dials.
 */
@Timeout(60)
class RogueRelayTest {
    private static final byte[] MAGIC = "MPFLRLY1".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    @Test
    void theEngineProvesItselfOnlyToTheRelayAnnouncedAtTheAddressItDials() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT)
                .dataDir(dir).invoker(new FakeRanks(r -> { })))) {
            HostCredential r1 = engine.issueRelayCredential("r1");
            try (RelayServer relay = new RelayServer("r1", r1.engineKey(), TlsSettings.NONE, (o, h, n, p) -> RelayServer.Verdict.REFUSED,
                    RelayServer.Limits.DEFAULT, "127.0.0.1", 0);
                 ServerSocket rogue = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
                attack(engine, r1, relay, rogue);
            }
        }
    }

    private static void attack(Engine engine, HostCredential r1, RelayServer relay, ServerSocket rogue) throws Exception {
        String relayAddress = "127.0.0.1:" + relay.port();
        assertEquals(201, Http.send("POST", engine.url() + "/api/registry/relays", r1.authorization(),
                Map.of("address", relayAddress)).status());
        Await.until(Duration.ofSeconds(20), "r1 announced", () -> engine.registry().relays().isRelay("r1"));

        AtomicReference<Map<String, String>> forwarded = new AtomicReference<>();
        Thread forwarder = new Thread(() -> forward(rogue, relay.port(), forwarded), "rogue-relay");
        forwarder.setDaemon(true);
        forwarder.start();

        // host a names the attacker's listener as its relay; host b the real relay
        assertEquals(201, HostCalls.announce(engine, Map.of("hostId", "a", "soapUrl", "http://127.0.0.1:4101/axis2/services",
                "services", List.of("x"), "relay", "127.0.0.1:" + rogue.getLocalPort())).status());
        assertEquals(201, HostCalls.announce(engine, Map.of("hostId", "b", "soapUrl", "http://127.0.0.1:4201/axis2/services",
                "services", List.of("x"), "relay", relayAddress)).status());

        IOException viaRogue = assertThrows(IOException.class, () -> RelayDialer.shared().connect("127.0.0.1", 4101, 5000).close());
        assertTrue(viaRogue.getMessage().contains("greeted as 'r1', which is not the relay announced at that address"),
                viaRogue.getMessage());
        forwarder.join(10_000);
        assertNull(forwarded.get(), "the engine sent the rogue listener no request, so no proof");

        // the real relay at its announced address: the engine proves itself (the relay then finds no host for b)
        IOException viaRelay = assertThrows(IOException.class, () -> RelayDialer.shared().connect("127.0.0.1", 4201, 5000).close());
        assertTrue(viaRelay.getMessage().contains("no host holding a connection to relay r1 serves 127.0.0.1:4201"),
                viaRelay.getMessage());
    }

    /** The attacker's listener: passes the real relay's greeting to the one connection it gets, and its request back. */
    private static void forward(ServerSocket rogue, int relayPort, AtomicReference<Map<String, String>> forwarded) {
        try (Socket victim = rogue.accept(); Socket real = new Socket(InetAddress.getLoopbackAddress(), relayPort)) {
            victim.setSoTimeout(10_000);
            real.setSoTimeout(10_000);
            InputStream fromVictim = victim.getInputStream();
            OutputStream toVictim = victim.getOutputStream();
            fromVictim.readNBytes(MAGIC.length);
            real.getOutputStream().write(MAGIC);
            RelayWire.write(toVictim, RelayWire.read(real.getInputStream()));
            Map<String, String> request = RelayWire.read(fromVictim);
            forwarded.set(request);
            RelayWire.write(real.getOutputStream(), request);
            RelayWire.write(toVictim, RelayWire.read(real.getInputStream()));
        } catch (IOException e) {
            // the engine closed the connection without a request: what the test expects
        }
    }
}
