package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.launch.HostProcesses;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.runtime.p2p.ScenarioProgram;
import org.mpfl.runtime.transport.binary.BinaryTransport;
import org.mpfl.testing.LabPki;
import org.mpfl.testing.StartsProcesses;

/**
 * TLS of a service host: the flags read into key material (PEM and PKCS#12) with clear errors, the
 * plaintext warning's decision, and real host processes — one serving https that a client with the
 * lab CA reaches and a plaintext or untrusting client cannot, one with TLS whose binary channel runs
 * inside TLS (and one with {@code --no-binary} that has none), one bound to the wildcard address without TLS that warns.
 * The four hosts are independent, so they start together before the tests (one start-up's wait instead
 * of five: the https host with {@code --no-binary} is also the one that shows the binary channel off).
 */
@Timeout(180)
@StartsProcesses
class HostTlsTest {
    @TempDir
    static Path dir;
    static LabPki lab;
    static LabPki.Machine machine;
    static LabPki.Machine stranger;

    /** TLS and {@code --no-binary}, publishing the scenario service. */
    static HostProcesses httpsOnly;
    /** TLS with the binary channel. */
    static HostProcesses tlsWithBinary;
    /** Bound to the wildcard address without TLS. */
    static HostProcesses wildcard;
    /** Bound to loopback (the default) without TLS. */
    static HostProcesses loopback;

    @BeforeAll
    static void makeCertificatesAndStartHosts() throws IOException {
        lab = LabPki.create(dir.resolve("lab"), "lab");
        machine = lab.issue("machine-a", "127.0.0.1");
        stranger = LabPki.create(dir.resolve("other"), "other").issue("machine-x", "127.0.0.1");
        HostProcesses.Builder https = host().service("Scenario", ScenarioProgram.class).hostArg("--no-binary");
        machine.pemArguments().forEach(https::hostArg);
        HostProcesses.Builder binary = host();
        machine.pemArguments().forEach(binary::hostArg);
        HostProcesses.Builder exposed = host().logDirectory(Files.createDirectories(dir.resolve("warn-logs")))
                .hostArg("--bind").hostArg("0.0.0.0").hostArg("--advertise").hostArg("127.0.0.1");
        HostProcesses.Builder quiet = host().logDirectory(Files.createDirectories(dir.resolve("quiet-logs")));
        List<HostProcesses> ready = startTogether(List.of(https, binary, exposed, quiet));
        httpsOnly = ready.get(0);
        tlsWithBinary = ready.get(1);
        wildcard = ready.get(2);
        loopback = ready.get(3);
    }

    /**
     * One host; 120 s to be ready since four JVMs start at once (one alone was ready within 60 s at load 20 on
     * two cores; four share those cores, so this leaves room for load 50).
     */
    private static HostProcesses.Builder host() {
        return HostProcesses.builder().count(1).readyTimeout(Duration.ofSeconds(120));
    }

    /** Launches every host before waiting for any; if one fails, stops them all. */
    private static List<HostProcesses> startTogether(List<HostProcesses.Builder> builders) throws IOException {
        List<HostProcesses.Launch> launches = new ArrayList<>();
        List<HostProcesses> ready = new ArrayList<>();
        try {
            for (HostProcesses.Builder b : builders) {
                launches.add(b.launch());
            }
            for (HostProcesses.Launch l : launches) {
                ready.add(l.awaitReady());
            }
            return ready;
        } catch (IOException | RuntimeException e) {
            ready.forEach(HostProcesses::close);
            launches.subList(ready.size(), launches.size()).forEach(HostProcesses.Launch::abort);
            throw e;
        }
    }

    @AfterAll
    static void stopHosts() {
        for (HostProcesses h : new HostProcesses[] {httpsOnly, tlsWithBinary, wildcard, loopback}) {
            if (h != null) {
                h.close();
            }
        }
    }

    // ------------------------------------------------------------------ reading the flags

    @Test
    void pemAndPkcs12GiveKeyMaterialAndTrust() throws IOException {
        TlsSettings pem = machine.settings();
        assertTrue(pem.serves());
        assertEquals("https", pem.scheme());
        assertTrue(pem.hasCa());
        TlsSettings p12 = TlsSettings.fromOptions(Map.of(TlsSettings.KEYSTORE, machine.p12().toString(),
                TlsSettings.CA, machine.caPem().toString()), n -> n.equals(TlsSettings.PASSWORD_ENV) ? LabPki.PASSWORD : null);
        assertTrue(p12.serves());
        Path pwFile = Files.writeString(dir.resolve("pw"), LabPki.PASSWORD + "\n");
        assertTrue(TlsSettings.fromOptions(Map.of(TlsSettings.KEYSTORE, machine.p12().toString(),
                TlsSettings.KEYSTORE_PASSWORD_FILE, pwFile.toString()), n -> null).serves());
        TlsSettings clientOnly = TlsSettings.fromOptions(Map.of(TlsSettings.CA, machine.caPem().toString()), n -> null);
        assertTrue(clientOnly.enabled());
        assertFalse(clientOnly.serves());
        assertEquals("http", clientOnly.scheme());
        assertFalse(TlsSettings.fromOptions(Map.of("port", "8080"), n -> null).enabled());
    }

    @Test
    void unusableFlagsSayWhatToDo() throws Exception {
        IOException wrongPassword = assertThrows(IOException.class, () -> TlsSettings.fromOptions(
                Map.of(TlsSettings.KEYSTORE, machine.p12().toString()), n -> "not-the-password"));
        assertTrue(wrongPassword.getMessage().contains("--tls-keystore") && wrongPassword.getMessage().contains("MPFL_TLS_PASSWORD"),
                wrongPassword.getMessage());
        IOException foreignKey = assertThrows(IOException.class, () -> TlsSettings.fromOptions(Map.of(
                TlsSettings.CERT, machine.certPem().toString(), TlsSettings.KEY, stranger.keyPem().toString()), n -> null));
        assertTrue(foreignKey.getMessage().contains("does not belong"), foreignKey.getMessage());
        Path pkcs1 = Files.writeString(dir.resolve("rsa.pem"), "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        IOException oldFormat = assertThrows(IOException.class, () -> TlsSettings.fromOptions(Map.of(
                TlsSettings.CERT, machine.certPem().toString(), TlsSettings.KEY, pkcs1.toString()), n -> null));
        assertTrue(oldFormat.getMessage().contains("openssl pkcs8 -topk8 -nocrypt"), oldFormat.getMessage());
        IOException half = assertThrows(IOException.class, () -> TlsSettings.fromOptions(
                Map.of(TlsSettings.CERT, machine.certPem().toString()), n -> null));
        assertTrue(half.getMessage().contains("go together"), half.getMessage());
        IOException missing = assertThrows(IOException.class, () -> TlsSettings.fromOptions(
                Map.of(TlsSettings.CA, dir.resolve("nope.pem").toString()), n -> null));
        assertTrue(missing.getMessage().contains("no such file"), missing.getMessage());
        IOException notPem = assertThrows(IOException.class, () -> TlsSettings.fromOptions(
                Map.of(TlsSettings.CA, pwFileWith("hello").toString()), n -> null));
        assertTrue(notPem.getMessage().contains("--tls-ca"), notPem.getMessage());
    }

    private static Path pwFileWith(String text) throws IOException {
        return Files.writeString(dir.resolve("text-" + text), text);
    }

    /** Its credential would reach a plain-http engine in the clear: the host refuses at its start, before any request. */
    @Test
    void aHostWithTlsRefusesAnHttpEngineBeforeItSendsItsCredential() throws Exception {
        Path credential = dir.resolve("plain-engine.credential");
        Files.writeString(credential, org.mpfl.protocol.HostCredential.generate("http://127.0.0.1:9", "node-tls").text());
        Files.setPosixFilePermissions(credential, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        String said = refusedAtStart("--credential-file", credential.toString());
        assertTrue(said.contains("this host has TLS on and never sends to an http:// peer, but its engine is http://127.0.0.1:9"),
                said);
    }

    /** Peers check the certificate against the address they reach the host at: an address it does not name is refused at start. */
    @Test
    void anAdvertisedAddressTheCertificateDoesNotNameIsRefusedAtStart() throws Exception {
        String said = refusedAtStart("--advertise", "127.0.0.2");
        assertTrue(said.contains("this host is reached at 127.0.0.2 (--advertise), but its certificate names 127.0.0.1, not"
                + " 127.0.0.2: peers reaching it at 127.0.0.2 would refuse the TLS handshake"), said);
        assertEquals(Optional.empty(), machine.settings().unnamedAddress("127.0.0.1"));
        assertEquals(Optional.empty(), TlsSettings.NONE.unnamedAddress("10.0.0.9"), "no TLS: nothing to compare");
    }

    /** {@code mpflc host} with the lab machine's TLS and {@code more}, in this JVM: it must refuse (exit 2); what it said. */
    private static String refusedAtStart(String... more) {
        List<String> args = new ArrayList<>(List.of("host", "--port", "0"));
        args.addAll(List.of(more));
        args.addAll(machine.pemArguments());
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int exit = org.mpfl.ir.cli.Commands.run(args, new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true,
                java.nio.charset.StandardCharsets.UTF_8), new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        String said = err.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(2, exit, said);
        return said;
    }

    @Test
    void warnsExactlyForANonLoopbackBindWithoutTls() {
        for (String loopback : List.of("127.0.0.1", "127.0.0.2", "localhost", "::1")) {
            assertEquals(Optional.empty(), TlsSettings.plaintextWarning("x", loopback, false, "can do harm"), loopback);
        }
        for (String exposed : List.of("0.0.0.0", "10.1.2.3", "::", "192.168.7.1")) {
            Optional<String> w = TlsSettings.plaintextWarning("the engine", exposed, false, "can do harm");
            assertTrue(w.isPresent(), exposed);
            assertTrue(w.get().startsWith("WARNING: the engine listens on " + exposed + " without TLS"), w.get());
            assertTrue(w.get().contains("--tls-cert") && w.get().contains("--tls-ca") && w.get().contains("can do harm"), w.get());
            assertEquals(Optional.empty(), TlsSettings.plaintextWarning("the engine", exposed, true, "can do harm"), exposed);
        }
    }

    // ------------------------------------------------------------------ real host processes

    @Test
    void hostServesHttpsOnlyToClientsThatTrustTheLabCa() throws Exception {
        String url = httpsOnly.get(0).serviceUrl("Scenario");
        assertTrue(url.startsWith("https://127.0.0.1:"), url);
        // the lab CA's client reaches it, verifying certificate and IP address
        String wsdl = new MpiwsClient(Duration.ofSeconds(10), machine.settings()).wsdl(url);
        assertTrue(wsdl.contains("store"), wsdl);
        // a client trusting only another CA is refused in the handshake
        MpiwsClient.MpiwsCallException refused = assertThrows(MpiwsClient.MpiwsCallException.class,
                () -> new MpiwsClient(Duration.ofSeconds(10), stranger.settings()).wsdl(url));
        assertTrue(refused.getMessage().contains("SSLHandshakeException") || refused.getMessage().contains("PKIX"),
                refused.getMessage());
        // so is a client with the JDK's public CAs
        assertThrows(MpiwsClient.MpiwsCallException.class, () -> new MpiwsClient(Duration.ofSeconds(10)).wsdl(url));
        // plaintext HTTP to the TLS port gets no HTTP answer
        URIParts p = URIParts.of(url);
        LabPki.assertNoHttpAnswer(p.host(), p.port());
    }

    @Test
    void hostWithTlsRunsTheBinaryChannelOverTls() throws Exception {
        try (BinaryTransport tls = new BinaryTransport(5000, id -> null, machine.settings());
             BinaryTransport plain = new BinaryTransport(5000, id -> null)) {
            Endpoint host = tlsWithBinary.get(0).endpoint("any");
            assertNotNull(host.binaryAddress(), "TLS no longer turns the binary channel off");
            // HELLO comes only inside TLS: a verifying TLS client sees it, a plaintext one does not. The
            // probe gives a peer 1 s; a host JVM's first TLS handshakes can take longer on a loaded
            // machine (five probes were not enough at load 20 on two cores), so the TLS client probes
            // until it sees HELLO or 60 s have passed (a plaintext client never sees HELLO)
            assertTrue(reachesWithinAMinute(tls, host), "a TLS client sees the host's HELLO");
            assertFalse(plain.reaches(host));
        }
        // --no-binary still turns it off (the https host has TLS and --no-binary)
        assertEquals(null, httpsOnly.get(0).binaryAddress());
    }

    @Test
    void hostBoundToAllAddressesWithoutTlsWarnsOnStderr() throws Exception {
        assertNotNull(wildcard.get(0).baseUrl());
        String stderr = Files.readString(wildcard.get(0).log());
        long warnings = stderr.lines().filter(l -> l.contains("WARNING") && l.contains("without TLS")).count();
        assertEquals(1, warnings, stderr);
        assertTrue(stderr.contains("listens on 0.0.0.0") && stderr.contains("--tls-cert"), stderr);
        assertFalse(Files.readString(loopback.get(0).log()).contains("WARNING"), "a loopback host does not warn");
    }

    /** Probes (1 s each) until the client sees HELLO; false after 60 s, a margin for a loaded two-core machine. */
    static boolean reachesWithinAMinute(BinaryTransport client, Endpoint host) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < until) {
            if (client.reaches(host)) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    /** Host and port of a URL. */
    record URIParts(String host, int port) {
        static URIParts of(String url) {
            java.net.URI u = java.net.URI.create(url);
            return new URIParts(u.getHost(), u.getPort());
        }
    }
}
