package org.mpfl.runtime.transport.binary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.relay.RelayDialer;
import org.mpfl.protocol.relay.RelayIdentity;
import org.mpfl.protocol.relay.RelayLink;
import org.mpfl.protocol.relay.RelayServer;
import org.mpfl.protocol.relay.RelayWire;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.runtime.transport.DomainTransports;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.runtime.transport.ProbeTimeouts;
import org.mpfl.testing.Await;

/**
 * The binary channel's set-up probe without TLS takes the path the pair's messages take
 * ({@link RelayDialer}): a peer reached through a relay is probed through the relay (its HELLO is
 * spliced bytes), a peer reached by a reverse connection is probed over one (nothing spliced), a
 * peer reached directly still directly — and an indirect peer's probe gets its method's bound
 * ({@link ProbeTimeouts}), so a relay slowed as on a loaded machine (the engine's check of the far
 * host's proof takes 1.5 s here) does not send the pair to SOAP. One JVM, loopback sockets; the
 * process's shared dialer is set up as a host's (or the engine's) would be and reset afterwards.
 */
@Timeout(120)
class RelayedProbeTest {
    static final String RELAY_ENGINE_KEY = "engine-key-of-r1";
    static final Map<String, String> KEYS = Map.of("a", "key-of-a-0123456789", "b", "key-of-b-0123456789");
    /** How long the relay's check of a host's proof takes once the far host registered (a loaded engine). */
    static final long SLOW_CHECK_MS = 1500;

    final DomainToken token = new DomainToken(DomainToken.generate());
    final String domainTag = DomainToken.relayTag("domain-1");
    /** The domains host b (behind the relay) has open, by relay tag: those it admits splices for. */
    final Map<String, DomainToken> openAtB = new java.util.concurrent.ConcurrentHashMap<>();
    /** The relay tags host b was asked to admit a splice for, in order. */
    final List<String> askedAtB = new java.util.concurrent.CopyOnWriteArrayList<>();
    volatile long checkDelayMs;
    RelayServer relay;
    String relayAddress;
    RelayLink link;
    HelloServer relayed;
    HelloServer direct;

    @BeforeEach
    void start() throws Exception {
        relay = new RelayServer("r1", RELAY_ENGINE_KEY, TlsSettings.NONE, (op, host, nonce, proof) -> {
            sleepQuietly(checkDelayMs);
            boolean valid = KEYS.containsKey(host) && RelayWire.same(RelayWire.hostProof(KEYS.get(host), op, "r1", nonce, host), proof);
            // as the engine answers: the addresses its registry knows for the host (b announced its relayed server)
            return new RelayServer.Verdict(valid, valid && host.equals("b") ? List.of(relayed.address()) : List.of());
        }, RelayServer.Limits.DEFAULT, "127.0.0.1", 0);
        relayAddress = "127.0.0.1:" + relay.port();
        relayed = new HelloServer();
        direct = new HelloServer();
        openAtB.put(domainTag, token);
        link = new RelayLink(relayAddress, hostIdentity("b"), TlsSettings.NONE, List.of(relayed.address()), "s2", tag -> {
            askedAtB.add(tag);
            return openAtB.get(tag);
        }, m -> { }).start();
        Await.until(Duration.ofSeconds(20), "host b registered at the relay", () -> relay.registeredHosts().contains("b"));
        checkDelayMs = SLOW_CHECK_MS;
    }

    @AfterEach
    void stop() throws Exception {
        RelayDialer d = RelayDialer.shared();
        d.routeVia(relayed.address(), null, null);
        d.routeVia(direct.address(), null, null);
        d.identity(null);
        d.ownRelay(null, null);
        d.acceptsReverseOn(null);
        d.domainKeys((domain, target) -> Optional.empty());
        d.peers(target -> Optional.empty());
        link.close();
        relay.close();
        relayed.close();
        direct.close();
    }

    static RelayIdentity hostIdentity(String host) {
        return RelayIdentity.ofHost(host, KEYS.get(host));
    }

    /** As the engine reaches a host that announced a relay (an explicit route): here, the probing process. */
    @Test
    void aRelayedPeerIsProbedThroughTheRelayWithItsOwnBoundAndADirectOneDirectly() throws Exception {
        RelayDialer d = RelayDialer.shared();
        d.identity(RelayIdentity.ofEngine((address, relayId) -> Optional.of(RELAY_ENGINE_KEY)));
        d.routeVia(relayed.address(), relayAddress, "test: b is reached through r1");
        Endpoint far = new Endpoint("http://127.0.0.1:1/mpiws", relayed.address(), "b", "s2", relayAddress);
        Endpoint near = new Endpoint("http://127.0.0.1:2/mpiws", direct.address(), "c", "s1");
        long directBound = DomainTransports.PROBE_TIMEOUT_MS;
        assertEquals(directBound, ProbeTimeouts.forPeer(near, directBound));
        assertEquals(Math.max(directBound, 10_000), ProbeTimeouts.forPeer(far, directBound),
                "a relayed peer's probe waits as long as the relay waits for the far host");

        long t0 = System.nanoTime();
        Set<Endpoint> answered = new ReachabilityProbe(null).reachable(List.of(far, near), directBound);
        long ms = (System.nanoTime() - t0) / 1_000_000;

        assertEquals(Set.of(far, near), answered, "both peers say HELLO (after " + ms + " ms)");
        assertTrue(ms >= SLOW_CHECK_MS, "the relayed probe was slowed by " + SLOW_CHECK_MS + " ms, beyond the direct bound of "
                + directBound + " ms, and still answered; it took " + ms + " ms");
        // the relay counts a chunk after writing it on: the HELLO can reach the probe before the count does
        Await.until(Duration.ofSeconds(20), () -> "the relayed HELLO (" + BinaryProtocol.HELLO_BYTES + " bytes) spliced by the "
                + "relay, " + relay.splicedBytes() + " bytes are", relay::splicedBytes, n -> n >= BinaryProtocol.HELLO_BYTES);
    }

    /**
     * As a host that accepts inbound connections reaches a peer of another site behind a relay, while
     * its domain is still opening (the lab found the probe dialled before the registry named the peer:
     * it was given the direct bound, 1 s, and its reverse connection arrived too late).
     */
    @Test
    void aPeerBehindARelayIsProbedOverAReverseConnection() throws Exception {
        RelayDialer d = RelayDialer.shared();
        d.identity(hostIdentity("a"));
        d.ownRelay(null, "s1");
        d.acceptsReverseOn("127.0.0.1");
        d.domainKeys((domain, target) -> Optional.of(new RelayDialer.SpliceKey(domainTag, token)));
        Endpoint far = new Endpoint("http://127.0.0.1:1/mpiws", relayed.address(), "b", "s2", relayAddress);
        // the host's registry does not name the peer yet (its domain is still opening): the probe's endpoint decides
        long directBound = DomainTransports.PROBE_TIMEOUT_MS;
        assertEquals(Math.max(directBound, 15_000), ProbeTimeouts.forPeer(far, directBound),
                "a reverse peer's probe waits as long as the dialer waits for the reverse connection");

        Set<Endpoint> answered = new ReachabilityProbe(null).reachable(List.of(far), directBound);

        assertEquals(Set.of(far), answered);
        assertEquals("reverse", d.method(relayed.address()).map(RelayDialer.Method::kind).orElse("none"), d.methods().toString());
        assertEquals(0, relay.splicedBytes(), "a reverse connection splices nothing at the relay");
    }

    /**
     * Two domains (two runs) of host a reach host b through the relay. Domain 1 has ended at b (a has not
     * heard yet); domain 2's set-up probe is admitted as domain 2: it answers. Keyed by address alone the
     * dialer proved the first live domain it found, domain 1, which b refused: the probe failed and domain 2
     * went over SOAP. Its messages' connections are each domain's own, never one shared by both.
     */
    @Test
    void twoDomainsToOneRelayedAddressEachProbeAndConnectAsThemselves() throws Exception {
        DomainToken token2 = new DomainToken(DomainToken.generate());
        String tag2 = DomainToken.relayTag("domain-2");
        Map<String, RelayDialer.SpliceKey> liveAtA = new java.util.LinkedHashMap<>();
        liveAtA.put("domain-1", new RelayDialer.SpliceKey(domainTag, token));
        liveAtA.put("domain-2", new RelayDialer.SpliceKey(tag2, token2));
        RelayDialer d = RelayDialer.shared();
        d.identity(hostIdentity("a"));
        d.routeVia(relayed.address(), relayAddress, "test: b is reached through r1");
        // as a host's registry: for no domain named, the first live domain with a rank there
        d.domainKeys((domainId, target) -> domainId == null ? liveAtA.values().stream().findFirst()
                : Optional.ofNullable(liveAtA.get(domainId)));
        checkDelayMs = 0;
        openAtB.remove(domainTag);
        openAtB.put(tag2, token2);
        Endpoint far = new Endpoint("http://127.0.0.1:1/mpiws", relayed.address(), "b", "s2", relayAddress);

        Set<Endpoint> answered = new ReachabilityProbe(null).reachable("domain-2", List.of(far), DomainTransports.PROBE_TIMEOUT_MS);

        assertEquals(Set.of(far), answered, "domain 2's probe, admitted at b as domain 2 (b was asked for " + Set.copyOf(askedAtB) + ")");
        assertEquals(List.of(tag2), askedAtB, "the probe was proven as domain 2 only");

        // each domain's messages take a connection of its own to the relayed address, admitted as that domain
        openAtB.put(domainTag, token);
        askedAtB.clear();
        Map<String, DomainToken> tokens = Map.of("domain-1", token, "domain-2", token2);
        try (BinaryTransport t = new BinaryTransport(10_000, tokens::get)) {
            for (String domain : List.of("domain-1", "domain-2")) {
                Envelope e = new Envelope(domain, 0, 0, 1, 7, 0, Envelope.Kind.DATA,
                        tokens.get(domain).prove(domain, 0, 0, 1, 7, 0, Envelope.Kind.DATA.ordinal()), Payload.of(1.0));
                try {
                    t.store(far, e);
                } catch (org.mpfl.runtime.transport.TransportException expected) {
                    // b's stand-in says HELLO and no more: the store fails after the connection was made
                }
            }
            assertEquals(Set.of("domain-1 " + relayed.address(), "domain-2 " + relayed.address()), t.connectionKeys());
        }
        assertEquals(Set.of(domainTag, tag2), Set.copyOf(askedAtB), "each connection admitted as its own domain");
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
