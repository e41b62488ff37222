package org.mpfl.engine.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.HostCalls;
import org.mpfl.engine.run.FakeRanks;
import org.mpfl.protocol.relay.RelayDialer;
import org.mpfl.testing.Http;

/**
 * Two sites whose private networks use the same addresses, each behind its own relay: host a of site A and host b of
 * site B both at {@code 10.99.0.2:8080}. The engine reaches a host behind a relay by its address (its route to the relay,
 * {@link RelayDialer#routeVia}, is one per address), and so do the relays and the hosts: had the engine taken b's
 * announcement, its route for that address would lead to b's relay, and the deploy and {@code run} meant for a — which
 * need no domain token at a relay — would reach b. The engine refuses the second host, naming the first; a's route stays.
 */
@Timeout(60)
class OverlappingAddressesTest {
    @TempDir
    Path dir;

    @Test
    void aHostBehindARelayAtAnotherHostsAddressIsRefusedNamingIt() throws Exception {
        try (Engine engine = Engine.start(new EngineConfig().port(0).heartbeatTimeout(HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir)
                .invoker(new FakeRanks(r -> { })))) {
            String soap = "http://10.99.0.2:8080/axis2/services";
            assertEquals(201, HostCalls.announce(engine, Map.of("hostId", "a", "soapUrl", soap, "services", List.of("x"),
                    "site", "A", "relay", "127.0.0.1:7101")).status());
            Http.Answer b = HostCalls.announce(engine, Map.of("hostId", "b", "soapUrl", soap, "services", List.of("x"),
                    "site", "B", "relay", "127.0.0.1:7102"));
            assertEquals(409, b.status(), b.body());
            assertTrue(b.body().contains("host b announces 10.99.0.2:8080, which is host a's (site A, through relay 127.0.0.1:7101):"
                    + " hosts behind relays are reached by address, so each needs addresses no other host has (another port:"
                    + " mpflc host --port)"), b.body());
            assertEquals(List.of("a"), engine.registry().hosts().stream().map(HostInfo::hostId).toList());
            assertEquals("127.0.0.1:7101", RelayDialer.shared().method("10.99.0.2:8080").orElseThrow().relay(),
                    "the engine's calls to a still go through a's relay");

            // a direct host at the same address (a site's own host, not behind a relay) is refused as well
            Http.Answer direct = HostCalls.announce(engine, Map.of("hostId", "c", "soapUrl", soap, "services", List.of("x"),
                    "site", "A"));
            assertEquals(409, direct.status(), direct.body());
            // and a re-announcement of a itself is not a clash
            assertEquals(201, HostCalls.announce(engine, Map.of("hostId", "a", "soapUrl", soap, "services", List.of("x"),
                    "site", "A", "relay", "127.0.0.1:7101")).status());
        } finally {
            // the dialer is the process's: a's route goes with the test
            RelayDialer.shared().routeVia("10.99.0.2:8080", null, null);
        }
    }
}
