package org.mpfl.protocol.tls;

import org.mpfl.protocol.settings.ProtocolSettings;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * The one place that turns the TLS flags of {@code mpflc up}, {@code mpflc host} and the command
 * line's client commands into key material, a trust anchor and an {@link SSLContext}; the engine,
 * the hosts and every client of either take their sockets and HTTP clients from here.
 *
 * <p>The flags (names without the leading dashes in {@link #OPTIONS}):
 * <ul>
 *   <li>{@code --tls-keystore FILE.p12}: this component's key and certificate chain (PKCS#12); its
 *       password comes from {@code --tls-keystore-password-file FILE} or the environment variable
 *       {@value #PASSWORD_ENV}, never from the command line (visible to every user in {@code ps});</li>
 *   <li>{@code --tls-cert cert.pem --tls-key key.pem}: the same as PEM — the certificate (chain,
 *       leaf first) and an unencrypted PKCS#8 key ({@code -----BEGIN PRIVATE KEY-----}, what
 *       {@code openssl genpkey} writes; convert others with {@code openssl pkcs8 -topk8 -nocrypt});</li>
 *   <li>{@code --tls-ca ca.pem}: the certificate(s) this component trusts as a client — the lab CA
 *       that signed every component's certificate. Without it the JDK's public CAs are trusted.</li>
 * </ul>
 * Clients always verify the server's certificate and that it names the host or IP address they
 * connected to (so a lab certificate carries the machine's addresses as SAN IP entries).
 *
 * <p>PEM is read with the JDK alone ({@link CertificateFactory} reads PEM certificates,
 * {@link PKCS8EncodedKeySpec} the key): no extra library is needed.
 */
public final class TlsSettings {
    /** {@code --tls-keystore FILE.p12}. */
    public static final String KEYSTORE = "tls-keystore";
    /** {@code --tls-keystore-password-file FILE}. */
    public static final String KEYSTORE_PASSWORD_FILE = "tls-keystore-password-file";
    /** {@code --tls-cert cert.pem}. */
    public static final String CERT = "tls-cert";
    /** {@code --tls-key key.pem}. */
    public static final String KEY = "tls-key";
    /** {@code --tls-ca ca.pem}. */
    public static final String CA = "tls-ca";
    /** Every TLS option, each taking one value. */
    public static final List<String> OPTIONS = List.of(KEYSTORE, KEYSTORE_PASSWORD_FILE, CERT, KEY, CA);
    /** Environment variable holding the PKCS#12 password when no password file is given. */
    public static final String PASSWORD_ENV = "MPFL_TLS_PASSWORD";
    /** TLS off: plaintext servers, clients with the JDK's default trust. */
    public static final TlsSettings NONE = new TlsSettings(null, null, null, null, Map.of());

    private final SSLContext context;
    private final KeyStore keyStore;
    private final char[] keyPassword;
    private final X509TrustManager trustManager;
    private final Map<String, String> options;

    private TlsSettings(SSLContext context, KeyStore keyStore, char[] keyPassword, X509TrustManager trustManager,
                        Map<String, String> options) {
        this.context = context;
        this.keyStore = keyStore;
        this.keyPassword = keyPassword;
        this.trustManager = trustManager;
        this.options = options;
    }

    /**
     * Reads the TLS options ({@link #OPTIONS} as keys, other keys ignored); {@link #NONE} when none
     * is given.
     *
     * @param environment how to read environment variables ({@code System::getenv})
     * @throws IOException with a message naming the flag and file when something is missing or unusable
     */
    public static TlsSettings fromOptions(Map<String, String> given, Function<String, String> environment)
            throws IOException {
        Map<String, String> o = new LinkedHashMap<>();
        for (String name : OPTIONS) {
            if (given.get(name) != null) {
                o.put(name, given.get(name));
            }
        }
        if (o.isEmpty()) {
            return NONE;
        }
        if (o.containsKey(KEYSTORE) && (o.containsKey(CERT) || o.containsKey(KEY))) {
            throw new IOException("TLS: give either --" + KEYSTORE + " or --" + CERT + "/--" + KEY + ", not both");
        }
        if (o.containsKey(CERT) != o.containsKey(KEY)) {
            throw new IOException("TLS: --" + CERT + " and --" + KEY + " go together");
        }
        if (o.containsKey(KEYSTORE_PASSWORD_FILE) && !o.containsKey(KEYSTORE)) {
            throw new IOException("TLS: --" + KEYSTORE_PASSWORD_FILE + " without --" + KEYSTORE);
        }
        try {
            KeyStore keys = null;
            char[] password = null;
            if (o.containsKey(KEYSTORE)) {
                password = keystorePassword(o.get(KEYSTORE_PASSWORD_FILE), environment.apply(PASSWORD_ENV));
                keys = readPkcs12(Path.of(o.get(KEYSTORE)), password);
            } else if (o.containsKey(CERT)) {
                password = randomPassword();
                keys = fromPem(Path.of(o.get(CERT)), Path.of(o.get(KEY)), password);
            }
            X509TrustManager trust = trustManager(o.containsKey(CA) ? readCertificates(Path.of(o.get(CA)), "--" + CA) : null);
            KeyManagerFactory kmf = null;
            if (keys != null) {
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, password);
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), new TrustManager[] {trust}, new SecureRandom());
            return new TlsSettings(ctx, keys, password, trust, Map.copyOf(o));
        } catch (GeneralSecurityException e) {
            throw new IOException("TLS: " + e.getMessage(), e);
        }
    }

    /** Reads the TLS options from this process's environment ({@value #PASSWORD_ENV}). */
    public static TlsSettings fromOptions(Map<String, String> given) throws IOException {
        return fromOptions(given, ProtocolSettings::environment);
    }

    /** Whether any TLS option was given (clients then trust {@code --tls-ca}). */
    public boolean enabled() {
        return context != null;
    }

    /** Whether this component has key material and so serves TLS ({@code https}). */
    public boolean serves() {
        return keyStore != null;
    }

    /** {@code https} when this component serves TLS, else {@code http}. */
    public String scheme() {
        return serves() ? "https" : "http";
    }

    /** The context clients use ({@code --tls-ca} as trust anchor); the JDK's default when TLS is off. */
    public SSLContext clientContext() {
        if (context != null) {
            return context;
        }
        try {
            return SSLContext.getDefault();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no default TLS context", e);
        }
    }

    /**
     * An HTTP client builder whose {@code https} connections verify servers against {@code --tls-ca}, or
     * (TLS off) against the JDK's trust store, which is read only when a first {@code https} connection
     * needs it ({@link DefaultTrustOnDemand}).
     */
    public HttpClient.Builder httpClient() {
        if (context != null) {
            return HttpClient.newBuilder().sslContext(context);
        }
        return HttpClient.newBuilder().sslContext(DefaultTrustOnDemand.CONTEXT)
                .sslParameters(DefaultTrustOnDemand.clientParameters());
    }

    /**
     * An unbound server socket: an {@link SSLServerSocket} when this component serves TLS (the
     * handshake happens on the first read, in the connection's own thread, bounded by its read
     * time-out), else a plain one.
     */
    public ServerSocket newServerSocket() throws IOException {
        if (!serves()) {
            return new ServerSocket();
        }
        SSLServerSocket s = (SSLServerSocket) context.getServerSocketFactory().createServerSocket();
        s.setNeedClientAuth(false);
        return s;
    }

    /**
     * Layers TLS over an accepted socket as the server (this component's certificate; no client
     * certificate asked for). No I/O happens here: the handshake runs on the first read or on
     * {@link SSLSocket#startHandshake()}, in the connection's own thread, bounded by the socket's
     * read time-out. Closing the returned socket closes {@code accepted}.
     *
     * @throws IllegalStateException if this component does not serve TLS ({@link #serves()})
     */
    public SSLSocket serverSocket(Socket accepted) throws IOException {
        if (!serves()) {
            throw new IllegalStateException("TLS: no certificate and key to serve with");
        }
        String peer = accepted.getInetAddress() == null ? null : accepted.getInetAddress().getHostAddress();
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(accepted, peer, accepted.getPort(), true);
        s.setUseClientMode(false);
        s.setNeedClientAuth(false);
        return s;
    }

    /**
     * Like {@link #serverSocket(Socket)} for a connection whose first bytes were already read (to
     * tell TLS from plaintext on one port, as the relay does): they are handed to the TLS layer first.
     */
    public SSLSocket serverSocket(Socket accepted, byte[] consumed) throws IOException {
        if (!serves()) {
            throw new IllegalStateException("TLS: no certificate and key to serve with");
        }
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(accepted,
                new java.io.ByteArrayInputStream(consumed), true);
        s.setUseClientMode(false);
        s.setNeedClientAuth(false);
        return s;
    }

    /**
     * Layers TLS over a connected socket as a client and completes the handshake (bounded by the
     * socket's read time-out, which the caller sets first). The server must present a certificate
     * from {@code --tls-ca} naming {@code host}; otherwise this throws and closes the socket.
     */
    public SSLSocket clientSocket(Socket connected, String host, int port) throws IOException {
        SSLSocket s = (SSLSocket) clientContext().getSocketFactory().createSocket(connected, host, port, true);
        try {
            SSLParameters p = s.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            s.setSSLParameters(p);
            s.startHandshake();
            return s;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** Whether clients trust a CA given with {@code --tls-ca} (rather than the JDK's public CAs). */
    public boolean hasCa() {
        return options.containsKey(CA);
    }

    /** The key store holding this component's key and chain, or {@code null} (client only). */
    public KeyStore keyStore() {
        return keyStore;
    }

    /**
     * Why peers would refuse this component's certificate when they reach it at {@code address} — the certificate
     * names other addresses (its subject alternative names) — or empty when it names it, when this component serves
     * no TLS, or when its certificate names none to compare with.
     */
    public Optional<String> unnamedAddress(String address) {
        if (!serves() || address == null || address.isBlank()) {
            return Optional.empty();
        }
        // a set: a name given twice (docs/deployment.md's recipe on a machine at 127.0.0.1: IP:$ip,IP:127.0.0.1) is said once
        java.util.Set<String> names = new java.util.LinkedHashSet<>();
        try {
            for (String alias : java.util.Collections.list(keyStore.aliases())) {
                if (keyStore.isKeyEntry(alias) && keyStore.getCertificate(alias) instanceof X509Certificate leaf
                        && leaf.getSubjectAlternativeNames() != null) {
                    for (List<?> san : leaf.getSubjectAlternativeNames()) {
                        names.add(String.valueOf(san.get(1))); // 2: DNS name, 7: IP address, both as text
                    }
                }
            }
        } catch (GeneralSecurityException e) {
            return Optional.empty();
        }
        for (String name : names) {
            if (name.equalsIgnoreCase(address) || sameIp(name, address)
                    || name.startsWith("*.") && address.toLowerCase(java.util.Locale.ROOT).endsWith(name.substring(1).toLowerCase(java.util.Locale.ROOT))) {
                return Optional.empty();
            }
        }
        return names.isEmpty() ? Optional.empty() : Optional.of("its certificate names " + String.join(", ", names) + ", not "
                + address + ": peers reaching it at " + address + " would refuse the TLS handshake");
    }

    private static boolean sameIp(String a, String b) {
        if (!a.matches("[0-9a-fA-F:.]+") || !b.matches("[0-9a-fA-F:.]+")) {
            return false; // a name, not an address: no lookup here
        }
        try {
            return InetAddress.getByName(a).equals(InetAddress.getByName(b));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** The password of the key entries in {@link #keyStore()}. */
    public char[] keyPassword() {
        return keyPassword == null ? null : keyPassword.clone();
    }

    /** The trust manager clients use ({@code --tls-ca}, or the JDK's CAs). */
    public X509TrustManager trustManager() {
        return trustManager;
    }

    /**
     * The flags that give a child process (a local host started by {@code mpflc up}) the same
     * settings; a password from the environment travels in {@link #childEnvironment()}, never here.
     */
    public List<String> childArguments() {
        List<String> args = new ArrayList<>();
        options.forEach((k, v) -> {
            args.add("--" + k);
            args.add(v);
        });
        return args;
    }

    /** The environment a child process needs with {@link #childArguments()} (the keystore password). */
    public Map<String, String> childEnvironment(Function<String, String> environment) {
        if (options.containsKey(KEYSTORE) && !options.containsKey(KEYSTORE_PASSWORD_FILE)
                && environment.apply(PASSWORD_ENV) != null) {
            return Map.of(PASSWORD_ENV, environment.apply(PASSWORD_ENV));
        }
        return Map.of();
    }

    // ------------------------------------------------------------------ the plaintext warning

    /**
     * The warning a component prints when it listens on a non-loopback address without TLS, or
     * empty when it need not: loopback only, or TLS on.
     *
     * @param component   e.g. {@code "the engine"}
     * @param bindAddress the address it listens on (a name is resolved; one that does not resolve warns)
     * @param exposure    what an attacker on the network can do to this component's traffic
     */
    public static Optional<String> plaintextWarning(String component, String bindAddress, boolean tls, String exposure) {
        if (tls || isLoopback(bindAddress)) {
            return Optional.empty();
        }
        return Optional.of("WARNING: " + component + " listens on " + bindAddress + " without TLS: anyone on the network "
                + exposure + ". Turn TLS on with --" + CERT + " FILE --" + KEY + " FILE (or --" + KEYSTORE + " FILE.p12) and --"
                + CA + " FILE on every component; docs/deployment.md, section 'TLS and a lab CA', shows how to make them.");
    }

    /** Whether an address (or host name) is a loopback address; the wildcard and unresolvable names are not. */
    public static boolean isLoopback(String bindAddress) {
        if (bindAddress == null) {
            return false;
        }
        try {
            return InetAddress.getByName(bindAddress).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    // ------------------------------------------------------------------ reading files

    private static char[] keystorePassword(String passwordFile, String fromEnvironment) throws IOException {
        if (passwordFile != null) {
            String text = read(Path.of(passwordFile), "--" + KEYSTORE_PASSWORD_FILE);
            // a trailing newline is how editors and `echo` end the file, never part of the password
            return text.replaceAll("[\r\n]+$", "").toCharArray();
        }
        if (fromEnvironment != null) {
            return fromEnvironment.toCharArray();
        }
        return new char[0];
    }

    private static KeyStore readPkcs12(Path file, char[] password) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, password);
        } catch (NoSuchFileException e) {
            throw new IOException("TLS: --" + KEYSTORE + " " + file + ": no such file");
        } catch (IOException e) {
            throw new IOException("TLS: --" + KEYSTORE + " " + file + " cannot be read as PKCS#12 with the password from --"
                    + KEYSTORE_PASSWORD_FILE + " or $" + PASSWORD_ENV + ": " + e.getMessage(), e);
        }
        boolean hasKey = false;
        for (Enumeration<String> e = ks.aliases(); e.hasMoreElements(); ) {
            hasKey |= ks.isKeyEntry(e.nextElement());
        }
        if (!hasKey) {
            throw new IOException("TLS: --" + KEYSTORE + " " + file + " holds no private key");
        }
        return ks;
    }

    private static KeyStore fromPem(Path certFile, Path keyFile, char[] password) throws IOException, GeneralSecurityException {
        List<X509Certificate> chain = readCertificates(certFile, "--" + CERT);
        PrivateKey key = readPkcs8Key(keyFile);
        if (!matches(key, chain.get(0))) {
            throw new IOException("TLS: the key in --" + KEY + " " + keyFile + " does not belong to the certificate in --"
                    + CERT + " " + certFile);
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("mpfl", key, password, chain.toArray(new Certificate[0]));
        return ks;
    }

    /** Every certificate in a PEM (or DER) file, in order; at least one. */
    static List<X509Certificate> readCertificates(Path file, String flag) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IOException("TLS: " + flag + " " + file + ": no such file");
        }
        Collection<? extends Certificate> certs;
        try {
            certs = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(bytes));
        } catch (GeneralSecurityException e) {
            throw new IOException("TLS: " + flag + " " + file + " is not a PEM certificate: " + e.getMessage(), e);
        }
        List<X509Certificate> out = new ArrayList<>();
        for (Certificate c : certs) {
            out.add((X509Certificate) c);
        }
        if (out.isEmpty()) {
            throw new IOException("TLS: " + flag + " " + file + " holds no certificate (expected -----BEGIN CERTIFICATE-----)");
        }
        return out;
    }

    private static PrivateKey readPkcs8Key(Path file) throws IOException, GeneralSecurityException {
        String pem = read(file, "--" + KEY);
        String begin = "-----BEGIN PRIVATE KEY-----";
        String end = "-----END PRIVATE KEY-----";
        int b = pem.indexOf(begin);
        int e = pem.indexOf(end);
        if (b < 0 || e < b) {
            String kind = pem.contains("ENCRYPTED PRIVATE KEY") ? "an encrypted PKCS#8 key"
                    : pem.contains("RSA PRIVATE KEY") || pem.contains("EC PRIVATE KEY") ? "a traditional (PKCS#1/SEC1) key"
                    : "no PEM private key";
            throw new IOException("TLS: --" + KEY + " " + file + " holds " + kind + "; MPFL reads unencrypted PKCS#8 ("
                    + begin + "): convert it with 'openssl pkcs8 -topk8 -nocrypt -in " + file
                    + " -out key.pem' (keep it mode 0600), or use a PKCS#12 file with --" + KEYSTORE);
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(pem.substring(b + begin.length(), e));
        } catch (IllegalArgumentException x) {
            throw new IOException("TLS: --" + KEY + " " + file + ": bad base64 in the PEM key");
        }
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException x) {
                // try the next key type
            }
        }
        throw new IOException("TLS: --" + KEY + " " + file + " is not an RSA, EC or EdDSA PKCS#8 key");
    }

    /** Whether the key signs what the certificate's public key verifies (the pair belongs together). */
    private static boolean matches(PrivateKey key, X509Certificate cert) throws GeneralSecurityException {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm(); // Ed25519, Ed448
        };
        byte[] probe = "mpfl key check".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature s = Signature.getInstance(algorithm);
            s.initSign(key);
            s.update(probe);
            byte[] sig = s.sign();
            Signature v = Signature.getInstance(algorithm);
            v.initVerify(cert.getPublicKey());
            v.update(probe);
            return v.verify(sig);
        } catch (java.security.InvalidKeyException | java.security.SignatureException e) {
            return false;
        }
    }

    private static X509TrustManager trustManager(List<X509Certificate> anchors) throws GeneralSecurityException, IOException {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        if (anchors == null) {
            tmf.init((KeyStore) null);
        } else {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            int i = 0;
            for (X509Certificate c : anchors) {
                ks.setCertificateEntry("ca-" + i++, c);
            }
            tmf.init(ks);
        }
        for (TrustManager tm : tmf.getTrustManagers()) {
            if (tm instanceof X509TrustManager x) {
                return x;
            }
        }
        throw new GeneralSecurityException("no X.509 trust manager");
    }

    private static char[] randomPassword() {
        byte[] b = new byte[18];
        new SecureRandom().nextBytes(b);
        return Base64.getEncoder().encodeToString(b).toCharArray();
    }

    private static String read(Path file, String flag) throws IOException {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new IOException("TLS: " + flag + " " + file + ": no such file");
        }
    }
}
