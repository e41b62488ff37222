package org.mpfl.protocol.relay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.testing.Await;

/**
 * The relay in one JVM over loopback sockets: a host's link registers an echo server's address; a
 * dial that proves the host's domain token is spliced to it (bytes come back), one with another
 * token is refused, and so are a registration without the host's key and a 2 GB frame; a host that
 * accepts inbound connections gets a reverse connection instead of a splice.
 */
@Timeout(60)
class RelayServerTest {
    static final Map<String, String> KEYS = Map.of("a", "key-of-a-0123456789", "b", "key-of-b-0123456789",
            "c", "key-of-c-0123456789");
    /** An address of host c's (nothing listens there: c is a test's raw control connection). */
    static final String C_ADDRESS = "127.0.0.1:3";
    /** What the engine's registry knows of each host's addresses, as its verdict says them (b's echo server is added). */
    final Map<String, List<String>> announced = new java.util.concurrent.ConcurrentHashMap<>(Map.of(
            "a", List.of("127.0.0.1:2"), "c", List.of(C_ADDRESS)));
    RelayServer relay;
    RelayLink link;
    ServerSocket echo;
    String echoAddress;
    final DomainToken token = new DomainToken(DomainToken.generate());
    final String domainTag = DomainToken.relayTag("domain-1");

    @BeforeEach
    void start() throws Exception {
        relay = new RelayServer("r1", "engine-key-of-r1", TlsSettings.NONE, (op, host, nonce, proof) -> KEYS.containsKey(host)
                && RelayWire.same(RelayWire.hostProof(KEYS.get(host), op, "r1", nonce, host), proof)
                ? new RelayServer.Verdict(true, announced.getOrDefault(host, List.of())) : RelayServer.Verdict.REFUSED,
                RelayServer.Limits.DEFAULT, "127.0.0.1", 0);
        echo = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        echoAddress = "127.0.0.1:" + echo.getLocalPort();
        // b announced its echo server, and the in-process server of anInProcessServerAdoptsTheSplicedConnectionAsItIs
        announced.put("b", List.of(echoAddress, "127.0.0.1:1"));
        Thread t = new Thread(() -> {
            try (Socket s = echo.accept()) {
                s.getInputStream().transferTo(s.getOutputStream());
            } catch (IOException e) {
                // closed
            }
        });
        t.setDaemon(true);
        t.start();
        link = new RelayLink("127.0.0.1:" + relay.port(), identity("b"), TlsSettings.NONE, List.of(echoAddress), "s2",
                tag -> tag.equals(domainTag) ? token : null, m -> { }).start();
        Await.until(java.time.Duration.ofSeconds(20), "host b registered at the relay", () -> relay.registeredHosts().contains("b"));
    }

    @AfterEach
    void stop() throws Exception {
        link.close();
        relay.close();
        echo.close();
    }

    static RelayIdentity identity(String host) {
        return RelayIdentity.ofHost(host, KEYS.get(host));
    }

    RelayDialer dialerOf(String host, DomainToken its) {
        RelayDialer d = new RelayDialer();
        d.identity(identity(host));
        d.domainKeys((domain, target) -> Optional.of(new RelayDialer.SpliceKey(domainTag, its)));
        d.routeVia(echoAddress, "127.0.0.1:" + relay.port(), "test");
        return d;
    }

    @Test
    void aDialProvingTheDomainTokenIsSplicedToTheHost() throws Exception {
        try (SocketChannel ch = dialerOf("a", token).connect("127.0.0.1", echo.getLocalPort(), 5000)) {
            ch.write(ByteBuffer.wrap("across sites".getBytes(StandardCharsets.US_ASCII)));
            byte[] back = ch.socket().getInputStream().readNBytes(12);
            assertArrayEquals("across sites".getBytes(StandardCharsets.US_ASCII), back);
        }
        // the relay counts a chunk after writing it on: the echo can reach us before the count does
        Await.until(java.time.Duration.ofSeconds(20), () -> "24 bytes counted as spliced, " + relay.splicedBytes() + " are",
                relay::splicedBytes, n -> n >= 24);
    }

    /**
     * A server of the host's own process (the binary channel) is handed the relay's connection itself:
     * its peer is the relay's port, not a loopback copy, and the dialer's bytes arrive from the first.
     */
    @Test
    void anInProcessServerAdoptsTheSplicedConnectionAsItIs() throws Exception {
        link.close();
        java.util.concurrent.BlockingQueue<SocketChannel> adopted = new java.util.concurrent.LinkedBlockingQueue<>();
        String inProcessAddress = "127.0.0.1:1"; // nothing listens there: only adoption can serve it
        try (RelayLink own = new RelayLink("127.0.0.1:" + relay.port(), identity("b"), TlsSettings.NONE, List.of(inProcessAddress),
                "s2", tag -> tag.equals(domainTag) ? token : null, m -> { }, Map.of(inProcessAddress, adopted::add)).start()) {
            Await.until(java.time.Duration.ofSeconds(20), "the relay's directory names " + inProcessAddress,
                    () -> relay.registeredHosts().contains("b") && own.registered());
            RelayDialer d = dialerOf("a", token);
            d.routeVia(inProcessAddress, "127.0.0.1:" + relay.port(), "test");
            try (SocketChannel ch = d.connect("127.0.0.1", 1, 5000)) {
                ch.write(ByteBuffer.wrap("adopted".getBytes(StandardCharsets.US_ASCII)));
                SocketChannel served = adopted.poll(20, java.util.concurrent.TimeUnit.SECONDS);
                assertTrue(served != null, "no connection was adopted");
                try (served) {
                    assertEquals(relay.port(), ((java.net.InetSocketAddress) served.getRemoteAddress()).getPort());
                    assertArrayEquals("adopted".getBytes(StandardCharsets.US_ASCII), served.socket().getInputStream().readNBytes(7));
                }
            }
        }
    }

    /**
     * The binary channel's set-up probe dials while the domain is still opening in the dialer's host:
     * the dial waits for the domain (bounded) instead of failing at once, which made auto carry every
     * relayed domain over SOAP.
     */
    @Test
    void aDialWaitsForItsDomainToOpenInTheDialersHost() throws Exception {
        long opens = System.nanoTime() + 300_000_000L;
        RelayDialer d = dialerOf("a", token);
        d.domainKeys((domain, target) -> System.nanoTime() < opens ? Optional.empty()
                : Optional.of(new RelayDialer.SpliceKey(domainTag, token)));
        try (SocketChannel ch = d.connect("127.0.0.1", echo.getLocalPort(), 5000)) {
            ch.write(ByteBuffer.wrap("late".getBytes(StandardCharsets.US_ASCII)));
            assertArrayEquals("late".getBytes(StandardCharsets.US_ASCII), ch.socket().getInputStream().readNBytes(4));
        }
    }

    @Test
    void aDialWithAnotherTokenIsRefused() {
        IOException e = assertThrows(IOException.class, () -> dialerOf("a", new DomainToken(DomainToken.generate()))
                .connect("127.0.0.1", echo.getLocalPort(), 5000));
        assertTrue(e.getMessage().contains("do not prove the same domain token"), e.getMessage());
    }

    @Test
    void registeringWithoutTheHostsKeyAndAnnouncingTwoGigabytesAreRefused() throws Exception {
        try (Socket s = new Socket("127.0.0.1", relay.port())) {
            s.getOutputStream().write(RelayServer.MAGIC);
            RelayWire.read(s.getInputStream());
            RelayWire.write(s.getOutputStream(), Map.of("op", "register", "host", "a", "proof", "forged", "addresses", echoAddress));
            assertTrue(RelayWire.read(s.getInputStream()).get("error").startsWith("not authenticated"));
        }
        try (Socket s = new Socket("127.0.0.1", relay.port())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(RelayServer.MAGIC);
            RelayWire.read(s.getInputStream());
            new DataOutputStream(s.getOutputStream()).writeInt(Integer.MAX_VALUE);
            assertEquals(-1, s.getInputStream().read());
        }
        assertEquals(List.of("b"), relay.registeredHosts());
    }

    /**
     * An attacker holding a valid host credential (a's, stolen or its own) registers b's address to
     * receive the dials meant for b: refused, naming the address, since the engine knows it as b's; b
     * keeps its registration and the dials to its address still reach it.
     */
    @Test
    void aHostCannotRegisterAnotherHostsAddress() throws Exception {
        try (Socket s = relayConnection()) {
            Map<String, String> answer = request(s, "a", Map.of("op", "register", "host", "a", "site", "s1",
                    "addresses", echoAddress));
            assertEquals("host a may not register " + echoAddress + " at relay r1: the engine knows it at 127.0.0.1:2",
                    answer.get("error"), answer.toString());
        }
        // a host the engine knows no address of (not announced) registers none either
        announced.remove("a");
        try (Socket s = relayConnection()) {
            Map<String, String> answer = request(s, "a", Map.of("op", "register", "host", "a", "addresses", "127.0.0.1:2"));
            assertTrue(answer.getOrDefault("error", "").contains("(it has not announced itself to the engine)"), answer.toString());
        }
        assertEquals(List.of("b"), relay.registeredHosts());
        try (SocketChannel ch = dialerOf("a", token).connect("127.0.0.1", echo.getLocalPort(), 5000)) {
            ch.write(ByteBuffer.wrap("still b".getBytes(StandardCharsets.US_ASCII)));
            assertArrayEquals("still b".getBytes(StandardCharsets.US_ASCII), ch.socket().getInputStream().readNBytes(7));
        }
    }

    /**
     * Two sites with the same private addresses behind one relay: the engine knows c and a both at {@link #C_ADDRESS}.
     * The relay reaches hosts by address, so had it registered both, a dial for that address — the engine's among them,
     * which needs no domain token — would reach whichever it found last. The host registered second is refused, naming
     * the first, and the dials for the address keep reaching c.
     */
    @Test
    void aSecondHostWithAnAddressAnotherHostHoldsHereIsRefused() throws Exception {
        announced.put("a", List.of(C_ADDRESS));
        try (Socket control = relayConnection()) {
            assertEquals("registered", request(control, "c", Map.of("op", "register", "host", "c", "site", "s3",
                    "addresses", C_ADDRESS)).get("ok"));
            try (Socket s = relayConnection()) {
                Map<String, String> answer = request(s, "a", Map.of("op", "register", "host", "a", "site", "s1",
                        "addresses", C_ADDRESS));
                assertEquals("host a may not register " + C_ADDRESS + " at relay r1: host c of site s3 holds it here (a relay"
                        + " reaches hosts by address: each host behind it needs addresses no other host has)",
                        answer.get("error"), answer.toString());
            }
            assertEquals(java.util.Set.of("b", "c"), java.util.Set.copyOf(relay.registeredHosts()));
            RelayDialer d = dialerOf("b", token);
            d.routeVia(C_ADDRESS, "127.0.0.1:" + relay.port(), "test");
            java.util.concurrent.CompletableFuture<SocketChannel> dial = dialInBackground(d);
            assertEquals(C_ADDRESS, nextIncoming(control).get("target"));
            dial.cancel(true);
        }
    }

    /**
     * The host's side of a splice ({@code accept}) proves itself before the relay looks the id up: a
     * stranger gets the same refusal for an id that waits and one that does not. And the ids a host
     * hears of are 256 random bits, not a counter one could guess from.
     */
    @Test
    void acceptChecksTheProofFirstAndSpliceIdsCannotBeGuessed() throws Exception {
        for (String guessed : List.of("r1-1", "r1-2", relay.newId())) {
            try (Socket s = relayConnection()) {
                Map<String, String> answer = request(s, null, Map.of("op", "accept", "host", "b", "id", guessed, "proof", "forged"));
                assertTrue(answer.getOrDefault("error", "").startsWith("not authenticated"), guessed + ": " + answer);
            }
        }
        // c's control connection hears of two dials: their ids
        try (Socket control = relayConnection()) {
            assertEquals("registered", request(control, "c", Map.of("op", "register", "host", "c", "addresses", C_ADDRESS))
                    .get("ok"));
            RelayDialer d = dialerOf("a", token);
            d.routeVia(C_ADDRESS, "127.0.0.1:" + relay.port(), "test");
            List<String> ids = new java.util.ArrayList<>();
            for (int i = 0; i < 2; i++) {
                java.util.concurrent.CompletableFuture<SocketChannel> dial = dialInBackground(d);
                Map<String, String> notice = nextIncoming(control);
                String id = notice.get("id");
                ids.add(id);
                assertTrue(id.matches("r1-[0-9a-f]{64}"), "a splice id of 256 random bits (the relay's id, then hex), not " + id);
                // c answers with a proof of another token: both ends are refused at once
                try (Socket s = relayConnection()) {
                    request(s, "c", Map.of("op", "accept", "host", "c", "id", id, "splice", "not-the-token"));
                }
                java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                        () -> dial.get(20, java.util.concurrent.TimeUnit.SECONDS));
                assertTrue(e.getCause().getMessage().contains("do not prove the same domain token"), e.getCause().toString());
            }
            assertTrue(!ids.get(0).equals(ids.get(1)), ids.toString());
        }
    }

    /**
     * A host dropped for its revoked credential ({@link CredentialSweep}): only the registration its credential proved
     * goes, the dial waiting for it is refused at once (not after the splice wait), and its control connection closes.
     */
    @Test
    void aDroppedHostsWaitingDialIsRefusedAndItsControlConnectionClosed() throws Exception {
        try (Socket control = relayConnection()) {
            assertEquals("registered", request(control, "c", Map.of("op", "register", "host", "c", "addresses", C_ADDRESS))
                    .get("ok"));
            assertEquals(Map.of("b", "", "c", ""), relay.credentialsByHost(), "the test's verdicts name no credential");
            RelayDialer d = dialerOf("a", token);
            d.routeVia(C_ADDRESS, "127.0.0.1:" + relay.port(), "test");
            java.util.concurrent.CompletableFuture<SocketChannel> dial = dialInBackground(d);
            Map<String, String> notice = nextIncoming(control);

            assertTrue(!relay.drop("c", "another-credential"), "a registration proved with another credential is not this one");
            assertTrue(relay.drop("c", ""));
            java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> dial.get(5, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(e.getCause().getMessage().contains("host c is no longer served by relay r1"), e.getCause().toString());
            assertThrows(IOException.class, () -> {
                while (true) {
                    RelayWire.read(control.getInputStream());
                }
            });
            assertEquals(List.of("b"), relay.registeredHosts());
        }
    }

    /** A plaintext connection to the relay, its greeting not yet read. */
    Socket relayConnection() throws IOException {
        Socket s = new Socket("127.0.0.1", relay.port());
        s.setSoTimeout(20_000);
        s.getOutputStream().write(RelayServer.MAGIC);
        return s;
    }

    /** Reads the greeting, sends {@code req} with {@code proveAs}'s proof over its nonce (none: as given), returns the answer. */
    static Map<String, String> request(Socket s, String proveAs, Map<String, String> req) throws IOException {
        Map<String, String> greeting = RelayWire.read(s.getInputStream());
        Map<String, String> frame = new java.util.LinkedHashMap<>(req);
        if (proveAs != null) {
            frame.put("proof", RelayWire.hostProof(KEYS.get(proveAs), req.getOrDefault("op", ""), greeting.get("relay"),
                    greeting.get("nonce"), proveAs));
        }
        RelayWire.write(s.getOutputStream(), frame);
        return RelayWire.read(s.getInputStream());
    }

    /**
     * A host that accepts inbound connections (no relay of its own) dialling a host behind the relay:
     * the far host connects out to it, asked through the relay — the bytes come back and none of them
     * crossed the relay.
     */
    @Test
    void aHostThatAcceptsInboundConnectionsGetsAReverseConnectionNotASplice() throws Exception {
        RelayDialer a = new RelayDialer();
        a.identity(identity("a"));
        a.domainKeys((domain, target) -> Optional.of(new RelayDialer.SpliceKey(domainTag, token)));
        a.peers(target -> Optional.of(new org.mpfl.protocol.Endpoint("http://" + target + "/", null, "b", "s2",
                "127.0.0.1:" + relay.port())));
        a.ownRelay(null, "s1");
        a.acceptsReverseOn("127.0.0.1");
        try (SocketChannel ch = a.connect("127.0.0.1", echo.getLocalPort(), 5000)) {
            ch.write(ByteBuffer.wrap("reversed".getBytes(StandardCharsets.US_ASCII)));
            assertArrayEquals("reversed".getBytes(StandardCharsets.US_ASCII), ch.socket().getInputStream().readNBytes(8));
        }
        assertEquals("reverse", a.method(echoAddress).orElseThrow().kind(), a.methods().toString());
        assertEquals(0, relay.splicedBytes(), "nothing is spliced for a reverse connection");
    }

    /** A reverse port closes strangers while nothing is awaited, and refuses a proof of another token. */
    @Test
    void aReversePortAdmitsOnlyAnAwaitedConnectionOfTheDomain() throws Exception {
        try (ReverseConnections port = new ReverseConnections("127.0.0.1")) {
            try (Socket stranger = new Socket("127.0.0.1", port.port())) {
                stranger.setSoTimeout(5000);
                assertEquals(-1, stranger.getInputStream().read(), "closed at once: nothing is awaited");
            }
            java.util.concurrent.CompletableFuture<SocketChannel> awaited = port.expect("ticket-1", "a", echoAddress, token);
            DomainToken other = new DomainToken(DomainToken.generate());
            IOException refused = assertThrows(IOException.class, () -> ReverseConnections.connectBack("127.0.0.1:" + port.port(),
                    5000, "ticket-1", c -> RelayWire.b64(other.proveRelaySplice(ReverseConnections.PROOF_LABEL, c, "a", echoAddress))));
            assertTrue(refused.getMessage().contains("refused the reverse connection"), refused.getMessage());
            assertTrue(!awaited.isDone(), "a wrong proof completes nothing");
            try (Socket s = ReverseConnections.connectBack("127.0.0.1:" + port.port(), 5000, "ticket-1",
                    c -> RelayWire.b64(token.proveRelaySplice(ReverseConnections.PROOF_LABEL, c, "a", echoAddress)));
                 SocketChannel got = awaited.get(10, java.util.concurrent.TimeUnit.SECONDS)) {
                s.getOutputStream().write(7);
                assertEquals(7, got.socket().getInputStream().read());
            }
            port.done("ticket-1", true);
        }
    }

    /** {@code d} dials rank 3's address on another thread (the dial waits for the far end, which the test plays). */
    private static java.util.concurrent.CompletableFuture<SocketChannel> dialInBackground(RelayDialer d) {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return d.connect("127.0.0.1", 3, 5000);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    /** The next {@code incoming} notice on a host's control connection (pings and directories before it are skipped). */
    private static Map<String, String> nextIncoming(Socket control) throws IOException {
        Map<String, String> notice;
        do {
            notice = RelayWire.read(control.getInputStream());
        } while (!"incoming".equals(notice.get("op")));
        return notice;
    }
}
