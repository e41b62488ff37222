package org.mpfl.runtime.p2p;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.launch.HostProcess;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.testing.StartsProcesses;
import org.mpfl.testing.attack.StoreAttack;

/**
 * Admission before allocation, attacked over real sockets against a real service-host process
 * ({@code -Xmx512m}, so a per-message limit of 128 MB): stores over SOAP with an unknown domain, a
 * wrong token proof and an announced 2 GB payload are each refused from their header, twenty times
 * each, while the host's resident memory ({@code VmRSS}) grows less than 64 MB; on the binary
 * channel a garbage handshake and a handshake that never finishes are dropped within the bound,
 * and an authenticated connection left idle is closed. Meanwhile a legitimate run between the two
 * hosts over the binary channel succeeds.
 */
@StartsProcesses
class AdmissionAttackTest {
    private static final long HANDSHAKE_MS = 2000;
    private static final long IDLE_MS = 3000;
    private static HostProcesses hosts;
    private static final MpiwsClient CLIENT = new MpiwsClient(Duration.ofSeconds(30));

    @BeforeAll
    static void start() throws IOException {
        hosts = HostProcesses.builder().count(2).service(ScenarioProgram.SERVICE, ScenarioProgram.class)
                .jvmArg("-Xmx512m").jvmArg("-Dmpfl.binary.handshakeTimeoutMs=" + HANDSHAKE_MS)
                .jvmArg("-Dmpfl.binary.idleTimeoutMs=" + IDLE_MS).start();
    }

    @AfterAll
    static void stop() {
        CLIENT.close();
        hosts.close();
    }

    /** A domain started on the hosts: ranks alternate between host 0 and host 1. */
    private static HostRuns run(String scenario, int size, String transport) {
        return HostRuns.start(hosts, CLIENT, scenario, size, Map.of(), transport);
    }

    private static RankStatus awaitFinal(HostRuns run, int rank, Duration timeout) throws Exception {
        return run.awaitFinal(CLIENT, rank, timeout);
    }

    private static long residentKb(HostProcess h) throws IOException {
        return StoreAttack.residentKb(h.process().pid());
    }

    private static String attackStore(String url, String domainId, byte[] proof, long length) throws Exception {
        return StoreAttack.send(url, domainId, proof, length);
    }

    @Test
    void refusedStoresAllocateNothingAndALegitimateRunSucceedsMeanwhile() throws Exception {
        HostRuns legit = run("fifo", 2, "binary");
        HostRuns target = run("abortWait", 2, "binary"); // a domain that lives on both hosts for a while
        HostProcess victim = hosts.get(1);
        String url = victim.serviceUrl(ScenarioProgram.SERVICE);
        byte[] goodProof = new DomainToken(target.token()).prove(target.domainId(), 0, 0, 1, 0, 0, Envelope.Kind.DATA.ordinal());
        byte[] wrongProof = new DomainToken(DomainToken.generate()).prove(target.domainId(), 0, 0, 1, 0, 0,
                Envelope.Kind.DATA.ordinal());
        System.gc();
        long before = residentKb(victim);
        for (int i = 0; i < 20; i++) {
            // under the per-message limit (128 MB here), so that the domain and the proof are what refuses them
            String unknown = attackStore(url, DomainToken.generate(), wrongProof, 100_000_000L);
            assertTrue(unknown.contains("m:Busy") && unknown.contains("Connection: close"), unknown);
            String forged = attackStore(url, target.domainId(), wrongProof, 100_000_000L);
            assertTrue(forged.contains("m:Rejected") && forged.contains("Connection: close"), forged);
            String huge = attackStore(url, target.domainId(), goodProof, 2_000_000_000L);
            assertTrue(huge.contains("per-message limit"), huge);
            String hugeStranger = attackStore(url, DomainToken.generate(), wrongProof, 2_000_000_000L);
            assertTrue(hugeStranger.contains("per-message limit"), hugeStranger);
        }
        long grownMb = (residentKb(victim) - before) / 1024;
        assertTrue(grownMb < 64, "the host's resident memory grew by " + grownMb + " MB");
        assertTrue(victim.isAlive());
        for (int r = 0; r < 2; r++) {
            RankStatus s = awaitFinal(legit, r, Duration.ofSeconds(60));
            assertEquals("done", s.state(), "legitimate rank " + r + ": " + s.failure());
        }
        for (HostProcess h : hosts.hosts()) {
            CLIENT.abort(h.serviceUrl(ScenarioProgram.SERVICE), target.domainId(), new DomainToken(target.token())
                    .proveAbort(target.domainId()));
        }
    }

    private static Socket binary(HostProcess h) throws IOException {
        String a = h.binaryAddress();
        Socket s = new Socket();
        s.connect(new InetSocketAddress(a.substring(0, a.lastIndexOf(':')), Integer.parseInt(a.substring(a.lastIndexOf(':') + 1))), 5000);
        s.setSoTimeout((int) (IDLE_MS + HANDSHAKE_MS + 5000));
        return s;
    }

    /** Reads until the host closes; returns after how many ms. */
    private static long msUntilClosed(Socket s, long t0) {
        try {
            InputStream in = s.getInputStream();
            while (in.read() >= 0) {
                // HELLO and maybe a reply: keep reading until the host closes
            }
        } catch (IOException closed) {
            // a reset is a close too
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }

    @Test
    void aGarbageHandshakeIsDroppedAtOnce() throws Exception {
        try (Socket s = binary(hosts.get(0))) {
            long t0 = System.nanoTime();
            byte[] garbage = new byte[4096];
            java.util.Arrays.fill(garbage, (byte) 0x41); // not AUTH: 'A'
            s.getOutputStream().write(garbage);
            long ms = msUntilClosed(s, t0);
            // dropped at its first frame, not by the handshake bound: closed before that bound could have closed it
            assertTrue(ms < HANDSHAKE_MS - 200, "garbage handshake closed after " + ms + " ms");
        }
    }

    @Test
    void aHandshakeThatNeverFinishesIsDroppedWithinTheBound() throws Exception {
        try (Socket s = binary(hosts.get(0))) {
            long t0 = System.nanoTime();
            s.getOutputStream().write(new byte[] {5, 40}); // AUTH, then half a length, then nothing
            long ms = msUntilClosed(s, t0);
            assertTrue(ms >= HANDSHAKE_MS - 200 && ms < HANDSHAKE_MS + 3000, "slow handshake closed after " + ms + " ms");
        }
    }

    /** Reads HELLO, answers it with AUTH for {@code domainId} proven with {@code token}; returns the host's answer. */
    private static int authenticate(Socket s, String domainId, String token) throws IOException {
        byte[] hello = s.getInputStream().readNBytes(37);
        assertEquals("MPFB", new String(hello, 0, 4, StandardCharsets.US_ASCII));
        byte[] challenge = java.util.Arrays.copyOfRange(hello, 5, 37);
        byte[] proof = new DomainToken(token).proveChannel(challenge, domainId);
        byte[] id = domainId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer auth = ByteBuffer.allocate(4 + id.length + proof.length).order(ByteOrder.LITTLE_ENDIAN);
        auth.put((byte) 5).putShort((short) id.length).put((byte) proof.length).put(id).put(proof);
        s.getOutputStream().write(auth.array());
        return s.getInputStream().read();
    }

    /** A STORE (op 1) or ASK (op 4) frame of a byte payload from rank 1 to rank 0, as the wire format lays it out. */
    private static byte[] storeFrame(byte op, String domainId, byte[] proof, long payloadLength, byte[] payload) {
        byte[] id = domainId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer f = ByteBuffer.allocate(6 + 16 + 16 + id.length + proof.length + payload.length).order(ByteOrder.LITTLE_ENDIAN);
        f.put(op).put((byte) Envelope.Kind.DATA.ordinal()).put((byte) 4 /* bytes */).put((byte) proof.length)
                .putShort((short) id.length).putInt(0).putInt(1).putInt(0).putInt(0).putLong(0).putLong(payloadLength)
                .put(id).put(proof).put(payload);
        return f.array();
    }

    /**
     * Authenticating the channel for a domain proves nothing about the stores that follow: each is
     * admitted from its own header. A wrong proof is refused (its eager payload skipped), a length over
     * the host's per-message limit is refused before any payload travels even with the right proof,
     * and the connection stays usable for what is allowed.
     */
    @Test
    void storesOnAnAuthenticatedConnectionAreStillAdmittedOneByOneFromTheirHeaders() throws Exception {
        HostRuns target = run("abortWait", 2, "binary");
        HostProcess victim = hosts.get(0);
        byte[] goodProof = new DomainToken(target.token()).prove(target.domainId(), 0, 1, 0, 0, 0, Envelope.Kind.DATA.ordinal());
        byte[] wrongProof = new DomainToken(DomainToken.generate()).prove(target.domainId(), 0, 1, 0, 0, 0,
                Envelope.Kind.DATA.ordinal());
        System.gc();
        long before = residentKb(victim);
        try (Socket s = binary(victim)) {
            assertEquals(0, authenticate(s, target.domainId(), target.token()), "the channel opens with the domain's proof");
            InputStream in = s.getInputStream();
            for (int i = 0; i < 20; i++) {
                s.getOutputStream().write(storeFrame((byte) 1, target.domainId(), wrongProof, 16, new byte[16]));
                assertEquals(3, in.read(), "an eager store with a wrong proof: REJECTED");
                s.getOutputStream().write(storeFrame((byte) 4, target.domainId(), goodProof, 2_000_000_000L, new byte[0]));
                assertEquals(6, in.read(), "2 GB announced with the right proof: TOO_LARGE, no GO");
                s.getOutputStream().write(storeFrame((byte) 4, target.domainId(), wrongProof, 100_000_000L, new byte[0]));
                assertEquals(3, in.read(), "100 MB asked with a wrong proof: REJECTED, no GO");
            }
            s.getOutputStream().write(new byte[] {3});
            assertEquals(0, in.read(), "after the refusals the connection still answers a PING");
        } finally {
            for (HostProcess h : hosts.hosts()) {
                CLIENT.abort(h.serviceUrl(ScenarioProgram.SERVICE), target.domainId(), new DomainToken(target.token())
                        .proveAbort(target.domainId()));
            }
        }
        long grownMb = (residentKb(victim) - before) / 1024;
        assertTrue(grownMb < 64, "the host's resident memory grew by " + grownMb + " MB");
        assertTrue(victim.isAlive());
    }

    @Test
    void anIdleAuthenticatedConnectionIsClosedAndAStrangersProofOpensNothing() throws Exception {
        HostRuns target = run("abortWait", 2, "binary");
        try {
            for (boolean proven : new boolean[] {false, true}) {
                try (Socket s = binary(hosts.get(0))) {
                    long t0 = System.nanoTime();
                    int reply = authenticate(s, target.domainId(), proven ? target.token() : DomainToken.generate());
                    assertEquals(proven ? 0 : 3, reply, "handshake answer (0 open, 3 rejected)");
                    long ms = msUntilClosed(s, t0);
                    if (proven) {
                        assertTrue(ms >= IDLE_MS - 300 && ms < IDLE_MS + 2000, "idle connection closed after " + ms + " ms");
                    } else {
                        assertTrue(ms < HANDSHAKE_MS - 200, "refused connection closed after " + ms + " ms");
                    }
                }
            }
        } finally {
            for (HostProcess h : hosts.hosts()) {
                CLIENT.abort(h.serviceUrl(ScenarioProgram.SERVICE), target.domainId(), new DomainToken(target.token())
                        .proveAbort(target.domainId()));
            }
        }
    }

    @Test
    void hostsStillTalkOverSoapAfterTheAttacks() throws Exception {
        HostRuns legit = run("fifo", 2, "soap");
        for (int r = 0; r < 2; r++) {
            RankStatus s = awaitFinal(legit, r, Duration.ofSeconds(60));
            assertNull(s.failure(), "rank " + r);
            assertEquals("done", s.state());
        }
    }
}
