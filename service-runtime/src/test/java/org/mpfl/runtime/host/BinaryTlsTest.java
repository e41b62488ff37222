package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.launch.HostProcess;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.runtime.p2p.ScenarioProgram;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.runtime.transport.TransportException;
import org.mpfl.runtime.transport.binary.BinaryTransport;
import org.mpfl.testing.LabPki;
import org.mpfl.testing.StartsProcesses;

/**
 * The binary channel over TLS between two real TLS service-host processes (started with the binary
 * channel on, the default): ranks exchange messages over it (transport forced to {@code binary}, so
 * nothing else could have carried them), eager and rendezvous; the TLS reachability probe answers
 * only a client that verifies the host's certificate. The attacks: a plaintext client (silent, or
 * talking the binary protocol in clear) never sees HELLO and is closed; a client trusting another CA,
 * and a client reaching the host under a name its certificate does not carry, are refused in the TLS
 * handshake.
 */
@Timeout(240)
@StartsProcesses
class BinaryTlsTest {
    @TempDir
    static Path dir;
    static LabPki.Machine machine;
    static LabPki.Machine stranger;
    static HostProcesses hosts;
    static MpiwsClient client;

    @BeforeAll
    static void startTwoTlsHosts() throws IOException {
        LabPki lab = LabPki.create(dir.resolve("lab"), "lab");
        machine = lab.issue("machine-a", "127.0.0.1");
        stranger = LabPki.create(dir.resolve("other"), "other").issue("machine-x", "127.0.0.1");
        HostProcesses.Builder b = HostProcesses.builder().count(2).service(ScenarioProgram.SERVICE, ScenarioProgram.class)
                .jvmArg("-Xmx512m").readyTimeout(Duration.ofSeconds(90));
        machine.pemArguments().forEach(b::hostArg);
        hosts = b.start();
        client = new MpiwsClient(Duration.ofSeconds(30), machine.settings());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (hosts != null) {
            hosts.close();
        }
    }

    @Test
    void ranksExchangeMessagesOverBinaryTls() throws Exception {
        for (HostProcess h : hosts.hosts()) {
            assertNotNull(h.binaryAddress(), "a TLS host offers the binary channel");
            assertTrue(h.serviceUrl(ScenarioProgram.SERVICE).startsWith("https://"), h.serviceUrl(ScenarioProgram.SERVICE));
        }
        // small eager frames, many of them, and a 4 MB payload (rendezvous: ASK, GO, payload), both ways
        assertDone(run("fifo", 4, Map.of("n", 200), "binary"));
        assertDone(run("big", 2, Map.of("doubles", 512 * 1024), "binary"));
        // auto mode: the TLS probe must find the peers, else the ranks would still work over SOAP —
        // so the probe is asserted directly below
        assertDone(run("sendrecvRing", 4, Map.of(), null));
    }

    @Test
    void theProbeAnswersOnlyAClientThatVerifiesTheHost() throws Exception {
        Endpoint peer = hosts.get(0).endpoint(ScenarioProgram.SERVICE);
        try (BinaryTransport tls = new BinaryTransport(5000, id -> null, machine.settings());
             BinaryTransport plain = new BinaryTransport(5000, id -> null);
             BinaryTransport untrusting = new BinaryTransport(5000, id -> null, stranger.settings())) {
            // the probe gives a peer 1 s to take the connection and 3 s to answer; a host's first TLS handshakes can take longer under load
            assertTrue(HostTlsTest.reachesWithinAMinute(tls, peer), "a client with the lab CA reaches the TLS binary channel");
            assertFalse(plain.reaches(peer), "a plaintext probe gets no HELLO from a TLS port");
            assertFalse(untrusting.reaches(peer), "a probe that does not trust the host's certificate fails");
        }
    }

    @Test
    void aPlaintextClientNeverSeesHelloAndIsClosed() throws Exception {
        InetSocketAddress port = address(hosts.get(0).binaryAddress());
        // talking the binary protocol in clear: an AUTH frame where TLS expects a ClientHello
        try (Socket s = new Socket()) {
            s.connect(port, 5000);
            s.setSoTimeout(15_000);
            byte[] id = "some-domain".getBytes(StandardCharsets.UTF_8);
            ByteArrayOutputStream auth = new ByteArrayOutputStream();
            auth.write(5); // OP_AUTH
            auth.write(id.length);
            auth.write(0);
            auth.write(32);
            auth.write(id);
            auth.write(new byte[32]);
            s.getOutputStream().write(auth.toByteArray());
            s.getOutputStream().flush();
            byte[] got = readUntilClosed(s.getInputStream());
            assertFalse(new String(got, StandardCharsets.ISO_8859_1).contains("MPFB"), "no HELLO in clear");
        }
        // silent, waiting for HELLO in clear: none comes, and the server closes it at its handshake bound
        long t0 = System.nanoTime();
        try (Socket s = new Socket()) {
            s.connect(port, 5000);
            s.setSoTimeout(30_000);
            byte[] got = readUntilClosed(s.getInputStream());
            assertEquals(0, got.length, "a TLS server says nothing before the ClientHello");
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 20_000, "closed after " + ms + " ms");
        // the plaintext binary client itself: refused, with a clear error
        TransportException e = assertThrows(TransportException.class, () -> store(new BinaryTransport(3000,
                id -> new DomainToken(DomainToken.generate())), hosts.get(0).endpoint(ScenarioProgram.SERVICE)));
        assertTrue(e.getMessage().contains("binary channel to"), e.getMessage());
    }

    @Test
    void aClientThatDoesNotVerifyTheHostIsRefused() throws Exception {
        Endpoint peer = hosts.get(0).endpoint(ScenarioProgram.SERVICE);
        // the lab CA's client gets through TLS, HELLO and AUTH: the host's own answer to AUTH for a domain
        // it does not know (busy: maybe not set up yet) is what comes back, not a connection error
        TransportException inside = assertThrows(TransportException.class, () -> store(new BinaryTransport(5000,
                id -> new DomainToken(DomainToken.generate()), machine.settings()), peer));
        assertTrue(inside.getMessage().contains("is busy") || inside.getMessage().contains("rejected"), inside.getMessage());
        assertFalse(inside.getMessage().contains("binary channel to"), inside.getMessage());
        // a client trusting another CA fails the TLS handshake, before any binary-channel byte
        TransportException untrusted = assertThrows(TransportException.class, () -> store(new BinaryTransport(5000,
                id -> new DomainToken(DomainToken.generate()), stranger.settings()), peer));
        assertTrue(untrusted.getMessage().contains("PKIX") || untrusted.getCause() instanceof javax.net.ssl.SSLException,
                untrusted.getMessage());
        // the lab CA, but the host reached under a name its certificate does not carry
        Endpoint byName = new Endpoint(peer.soapUrl(), peer.binaryAddress().replace("127.0.0.1", "localhost"), peer.hostId());
        TransportException wrongName = assertThrows(TransportException.class, () -> store(new BinaryTransport(5000,
                id -> new DomainToken(DomainToken.generate()), machine.settings()), byName));
        assertTrue(wrongName.getMessage().contains("localhost") || wrongName.getMessage().contains("subject alternative"),
                wrongName.getMessage());
    }

    // ------------------------------------------------------------------ helpers

    /** One store of a tiny message of an unknown domain through {@code wire} (closed afterwards). */
    private static void store(BinaryTransport wire, Endpoint to) throws TransportException {
        try (wire) {
            String domainId = DomainToken.generate();
            wire.store(to, new Envelope(domainId, 0, 0, 0, 1, 0, Envelope.Kind.DATA, new byte[32], Payload.of(new int[] {1})));
        }
    }

    /** Everything the peer sends until it closes (or resets) the connection; fails on the read time-out. */
    private static byte[] readUntilClosed(InputStream in) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] b = new byte[512];
        try {
            for (int n; (n = in.read(b)) >= 0; ) {
                got.write(b, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server kept the connection open", e);
        } catch (IOException reset) {
            // a reset is a close too
        }
        return got.toByteArray();
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** Runs a scenario on {@code size} ranks alternating between the two hosts; their final statuses. */
    private static List<RankStatus> run(String scenario, int size, Map<String, Object> params, String transport)
            throws Exception {
        String domainId = DomainToken.generate();
        String token = DomainToken.generate();
        List<Endpoint> endpoints = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            endpoints.add(hosts.get(r % 2).endpoint(ScenarioProgram.SERVICE));
        }
        Map<String, Object> p = new HashMap<>(params);
        p.put("scenario", scenario);
        List<RunRequest.ProcessSlice> procs = List.of(new RunRequest.ProcessSlice("scenario", ScenarioProgram.SERVICE, size));
        for (int r = 0; r < size; r++) {
            client.run(endpoints.get(r).soapUrl(), new RunRequest(domainId, r, endpoints, procs, p, token, null, transport));
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        List<RankStatus> out = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            RankStatus s;
            while (!(s = client.status(endpoints.get(r).soapUrl(), domainId, r,
                    new DomainToken(token).proveStatus(domainId, r))).isFinal() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            out.add(s);
        }
        return out;
    }

    private static void assertDone(List<RankStatus> statuses) {
        for (int r = 0; r < statuses.size(); r++) {
            RankStatus s = statuses.get(r);
            assertEquals("done", s.state(), "rank " + r + ": " + s.state() + " " + s.failure() + " (host logs: "
                    + hosts.get(r % 2).log() + ")");
        }
    }
}
