package org.mpfl.protocol.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.Endpoint;

/**
 * How a host behind a relay chooses the way to an address the relay's directory does not list yet: a stress run
 * failed when a host, its directory missing a peer of the other site that had registered moments before, dialled
 * that peer directly through its NAT, and every connection (the binary probe, then SOAP for 30 s) timed out.
 * The rank's endpoint in the run request says where the peer is; the directory need not be first.
 */
class RelayDialerRoutesTest {
    private static final String RELAY = "127.0.0.1:9";

    private static RelayDialer hostOfSite(String site) {
        RelayDialer dialer = new RelayDialer();
        dialer.ownRelay(RELAY, site);
        return dialer;
    }

    @Test
    void aPeerBehindARelayInAnotherSiteIsReachedThroughTheRelayBeforeTheDirectoryListsIt() {
        RelayDialer dialer = hostOfSite("s2");
        Endpoint peer = new Endpoint("https://10.77.1.11:43789/axis2", "10.77.1.11:37289", "s1h1", "s1", RELAY);
        assertEquals(Optional.of(RelayDialer.SPLICE_WAIT_MS), dialer.indirectWaitMs(peer, "10.77.1.11", 37289),
                "the binary probe gives the splice its time");
        IOException noCredential = assertThrows(IOException.class, () -> dialer.connect(peer, "10.77.1.11", 37289, 1000));
        assertTrue(noCredential.getMessage().contains("reached through relay " + RELAY), noCredential.getMessage());
        RelayDialer.Method method = dialer.method("10.77.1.11:37289").orElseThrow();
        assertEquals("relay", method.kind());
        assertEquals(RELAY, method.relay());
        assertTrue(method.why().contains("host s1h1 in site s1 accepts no inbound connections"), method.why());
    }

    @Test
    void aPeerOfTheSameSiteOrOneAcceptingConnectionsIsStillDialledDirectly() {
        RelayDialer dialer = hostOfSite("s2");
        Endpoint sameSite = new Endpoint("https://10.77.2.12:41449/axis2", "10.77.2.12:41001", "s2h2", "s2", RELAY);
        assertEquals(Optional.empty(), dialer.indirectWaitMs(sameSite, "10.77.2.12", 41001));
        Endpoint open = new Endpoint("https://10.77.0.20:4000/axis2", "10.77.0.20:4001", "wan", "s3");
        assertEquals(Optional.empty(), dialer.indirectWaitMs(open, "10.77.0.20", 4001), "no relay: it accepts inbound connections");
        assertEquals(Optional.empty(), dialer.indirectWaitMs(null, "10.77.1.11", 37289), "nothing known: direct, as before");
    }
}
