package org.mpfl.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * A throw-away lab CA for tests, made with the JDK's {@code keytool} (ships with every JDK, so no
 * test depends on {@code openssl}): the CA's certificate as PEM, and per machine a PKCS#12 file and
 * the same key and chain as PEM ({@code cert.pem} with the chain, {@code key.pem} unencrypted
 * PKCS#8, what {@code openssl genpkey} writes), with the SAN IP entries given.
 */
public final class LabPki {
    /** Password of every PKCS#12 file made here. */
    public static final String PASSWORD = "lab-password";
    /**
     * One PBKDF2 round for the PKCS#12 files' keys, certificates and MAC instead of the JDK's 10,000 each: they
     * guard throw-away lab keys against nobody, and keytool loads and stores a machine's files about ten times.
     * With the tests' C1-only JVMs (no SHA-256 intrinsic) the default rounds cost ~0.6 s of CPU per machine
     * (a CA and five machines: 3.5 s, against 0.26 s with one round), on the start path of every TLS lab. The
     * JDK reads these properties at each store, and only the test JVM (no product code writes PKCS#12) sees them.
     */
    private static final Map<String, String> LAB_PKCS12_ROUNDS = Map.of("keystore.pkcs12.keyPbeIterationCount", "1",
            "keystore.pkcs12.certPbeIterationCount", "1", "keystore.pkcs12.macIterationCount", "1");

    static {
        LAB_PKCS12_ROUNDS.forEach((name, value) -> {
            if (System.getProperty(name) == null) {
                System.setProperty(name, value);
            }
        });
    }

    private final Path dir;
    private final String name;

    private LabPki(Path dir, String name) {
        this.dir = dir.toAbsolutePath();
        this.name = name;
    }

    /** Makes a CA named {@code name} in {@code dir} (its key stays in {@code dir/NAME-ca.p12}). */
    public static LabPki create(Path dir, String name) throws IOException {
        LabPki pki = new LabPki(Files.createDirectories(dir), name);
        pki.keytool("-genkeypair", "-keystore", pki.caStore().toString(), "-storetype", "PKCS12", "-storepass", PASSWORD,
                "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name + " lab CA",
                "-ext", "bc:c", "-validity", "30");
        pki.keytool("-exportcert", "-rfc", "-keystore", pki.caStore().toString(), "-storepass", PASSWORD, "-alias", "ca",
                "-file", pki.caPem().toString());
        return pki;
    }

    /** The CA's certificate ({@code --tls-ca}). */
    public Path caPem() {
        return dir.resolve(name + "-ca.pem");
    }

    private Path caStore() {
        return dir.resolve(name + "-ca.p12");
    }

    /** A machine's key material signed by this CA. */
    public record Machine(Path p12, Path certPem, Path keyPem, Path caPem) {
        /** {@code --tls-cert … --tls-key … --tls-ca …} as a map of options. */
        public Map<String, String> pemOptions() {
            return Map.of(TlsSettings.CERT, certPem.toString(), TlsSettings.KEY, keyPem.toString(),
                    TlsSettings.CA, caPem.toString());
        }

        /** The same as command-line words. */
        public List<String> pemArguments() {
            return List.of("--" + TlsSettings.CERT, certPem.toString(), "--" + TlsSettings.KEY, keyPem.toString(),
                    "--" + TlsSettings.CA, caPem.toString());
        }

        /** The TLS settings of this machine (PEM files). */
        public TlsSettings settings() throws IOException {
            return TlsSettings.fromOptions(pemOptions(), n -> null);
        }
    }

    /** Issues a certificate for {@code machine} valid for the IP addresses given (SAN IP entries). */
    public Machine issue(String machine, String... ips) throws IOException {
        Path p12 = dir.resolve(machine + ".p12");
        Path csr = dir.resolve(machine + ".csr");
        Path crt = dir.resolve(machine + ".crt");
        keytool("-genkeypair", "-keystore", p12.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD, "-alias", machine,
                "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + machine, "-validity", "30");
        keytool("-certreq", "-keystore", p12.toString(), "-storepass", PASSWORD, "-alias", machine, "-file", csr.toString());
        List<String> sign = new ArrayList<>(List.of("-gencert", "-rfc", "-keystore", caStore().toString(), "-storepass",
                PASSWORD, "-alias", "ca", "-infile", csr.toString(), "-outfile", crt.toString(), "-validity", "30",
                "-ext", "ku:c=digitalSignature", "-ext", "eku=serverAuth,clientAuth"));
        if (ips.length > 0) {
            sign.addAll(List.of("-ext", "san=" + String.join(",", java.util.Arrays.stream(ips).map(ip -> "ip:" + ip).toList())));
        }
        keytool(sign.toArray(String[]::new));
        keytool("-importcert", "-noprompt", "-keystore", p12.toString(), "-storepass", PASSWORD, "-alias", "ca",
                "-file", caPem().toString());
        keytool("-importcert", "-keystore", p12.toString(), "-storepass", PASSWORD, "-alias", machine, "-file", crt.toString());
        Path certPem = dir.resolve(machine + "-cert.pem");
        Files.writeString(certPem, Files.readString(crt) + Files.readString(caPem()));
        Path keyPem = dir.resolve(machine + "-key.pem");
        Files.writeString(keyPem, pkcs8Pem(privateKey(p12, machine)), StandardCharsets.US_ASCII);
        return new Machine(p12, certPem, keyPem, caPem());
    }

    /** The key as {@code -----BEGIN PRIVATE KEY-----} (PKCS#8), what {@code openssl genpkey} writes. */
    public static String pkcs8Pem(Key key) {
        return "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(key.getEncoded()) + "\n-----END PRIVATE KEY-----\n";
    }

    static Key privateKey(Path p12, String alias) throws IOException {
        try (InputStream in = Files.newInputStream(p12)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, PASSWORD.toCharArray());
            return ks.getKey(alias, PASSWORD.toCharArray());
        } catch (GeneralSecurityException e) {
            throw new IOException(e);
        }
    }

    /** Sends a plaintext HTTP request to a TLS port: the answer, if any, is not HTTP. */
    public static void assertNoHttpAnswer(String host, int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 5_000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            byte[] answer;
            try {
                answer = in.readNBytes(5);
            } catch (SSLException | java.net.SocketException e) {
                return; // reset: refused
            }
            assertFalse(new String(answer, StandardCharsets.ISO_8859_1).startsWith("HTTP/"),
                    "a plaintext request to the TLS port got an HTTP answer");
        }
    }

    /**
     * Runs {@code keytool} in this JVM when the test JVM opens its package (the parent POM's Surefire and
     * Failsafe {@code argLine}), else as a process. In this JVM one call takes milliseconds; a process
     * is a JVM start, about a second on an idle two-core machine and 5-9 s under load, and a TLS test
     * makes 7 to 20 of them (docs/fixtures.md). The calls are serialised: keytool is not documented as
     * thread-safe, and the network lab issues its hosts' certificates from parallel threads.
     */
    private void keytool(String... args) throws IOException {
        if (InProcessKeytool.AVAILABLE) {
            InProcessKeytool.run(args);
            return;
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        LAB_PKCS12_ROUNDS.forEach((name, value) -> cmd.add("-J-D" + name + "=" + System.getProperty(name, value)));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        try {
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("keytool " + String.join(" ", args) + " failed: " + new String(out, StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** The JDK's keytool ({@code sun.security.tools.keytool.Main}) called in this JVM, if its package is open to us. */
    private static final class InProcessKeytool {
        private static final String PACKAGE = "sun.security.tools.keytool";
        static final boolean AVAILABLE = Object.class.getModule().isOpen(PACKAGE, LabPki.class.getModule());

        static synchronized void run(String... args) throws IOException {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            try {
                Class<?> main = Class.forName(PACKAGE + ".Main");
                java.lang.reflect.Constructor<?> make = main.getDeclaredConstructor();
                make.setAccessible(true);
                java.lang.reflect.Method run = main.getDeclaredMethod("run", String[].class, java.io.PrintStream.class);
                run.setAccessible(true);
                run.invoke(make.newInstance(), args, new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
            } catch (java.lang.reflect.InvocationTargetException e) {
                throw new IOException("keytool " + String.join(" ", args) + " failed: " + e.getCause() + "\n"
                        + out.toString(StandardCharsets.UTF_8), e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IOException("keytool could not be called in this JVM: " + e, e);
            }
        }
    }
}
