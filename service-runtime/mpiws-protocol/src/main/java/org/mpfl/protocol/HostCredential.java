package org.mpfl.protocol;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Properties;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.mpfl.ir.cli.FileProblem;
import org.mpfl.protocol.digest.Sha256;

/**
 * The credential of one service host, issued by the engine ({@code POST /api/registry/credentials},
 * {@code mpflc host-token}); see {@code docs/security.md}, section "Credentials".
 *
 * <p>The host proves itself to the engine with {@link #authorization()} ({@code Bearer ID.SECRET}); the
 * engine keeps only {@link #verifier(String) a hash of the secret}. The engine proves itself to this
 * host with {@link #engineKey()}, an HMAC of the secret under a fixed label: the engine stores it, the
 * host recomputes it. It is different for every host and the host can derive it from its own secret
 * only, so a rogue host that learns what the engine sends it learns nothing that another host accepts,
 * and nothing that the engine accepts (the key is not the secret).
 *
 * <p>Text form (a join file, or the value of {@value #ENV}): Java properties {@code engine}
 * (optional), {@code id}, {@code hostId}, {@code secret}. {@link #toString()} never shows the secret.
 *
 * @param engineUrl the engine that issued it, or {@code null} when unknown
 * @param id        the credential's id (public; names it in the engine's list and in revocation)
 * @param hostId    the host id this credential may speak for
 * @param secret    256 random bits, base64url
 */
public record HostCredential(String engineUrl, String id, String hostId, String secret) {
    /** The environment variable a host reads its credential from (the text form). */
    public static final String ENV = "MPFL_HOST_CREDENTIAL";
    private static final byte[] ENGINE_KEY_LABEL = "MPFL-engine-to-host-1".getBytes(StandardCharsets.US_ASCII);
    private static final String BEARER = "Bearer ";

    public HostCredential {
        if (id == null || !id.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new IllegalArgumentException("a host credential needs an id of letters, digits, '-' or '_'");
        }
        if (hostId == null || hostId.isBlank() || hostId.length() > 128) {
            throw new IllegalArgumentException("a host credential needs a hostId (1..128 characters)");
        }
        if (secret == null || secret.length() < 16 || secret.contains(".") || secret.isBlank()) {
            throw new IllegalArgumentException("a host credential needs a secret (at least 16 characters, no '.')");
        }
    }

    /** A fresh credential for {@code hostId} with a random id and secret. */
    public static HostCredential generate(String engineUrl, String hostId) {
        return new HostCredential(engineUrl, "hc-" + DomainToken.generate().substring(0, 16).replace('_', 'x'),
                hostId, DomainToken.generate());
    }

    /** The header value a host sends to the engine: {@code Bearer ID.SECRET}. */
    public String authorization() {
        return BEARER + id + "." + secret;
    }

    /** What the engine stores to check a presented secret: SHA-256 of it, base64url. */
    public static String verifier(String secret) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Sha256.of(secret.getBytes(StandardCharsets.UTF_8)));
    }

    /** The key with which the engine authenticates to this host (HMAC-SHA256 of a label under the secret). */
    public String engineKey() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(ENGINE_KEY_LABEL));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** The header value the engine sends to a host whose engine key is {@code engineKey}. */
    public static String engineAuthorization(String engineKey) {
        return BEARER + engineKey;
    }

    /** Whether an {@code Authorization} header value is the engine's for this host (constant time). */
    public boolean acceptsEngine(String authorizationHeader) {
        return authorizationHeader != null && MessageDigest.isEqual(engineAuthorization(engineKey()).getBytes(StandardCharsets.UTF_8),
                authorizationHeader.strip().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The credential id and secret of a host's {@code Authorization} header ({@code Bearer ID.SECRET}),
     * or {@code null} when the header is absent or has another form.
     */
    public static String[] parseAuthorization(String header) {
        if (header == null) {
            return null;
        }
        String h = header.strip();
        if (!h.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        String v = h.substring(BEARER.length()).strip();
        int dot = v.indexOf('.');
        if (dot <= 0 || dot == v.length() - 1 || v.indexOf('.', dot + 1) >= 0) {
            return null;
        }
        return new String[] {v.substring(0, dot), v.substring(dot + 1)};
    }

    /** The text form (a join file's content), with a comment saying how to revoke it: the command first, as the docs do. */
    public String text() {
        StringBuilder sb = new StringBuilder("# MPFL host credential: keep it secret (mode 0600); revoke it with\n"
                + "# mpflc host-token --engine " + (engineUrl != null ? engineUrl : "URL") + " --revoke " + id + "\n"
                + "# (over REST: DELETE /api/registry/credentials/" + id + ")\n");
        if (engineUrl != null) {
            sb.append("engine=").append(engineUrl).append('\n');
        }
        sb.append("id=").append(id).append('\n');
        sb.append("hostId=").append(hostId).append('\n');
        sb.append("secret=").append(secret).append('\n');
        return sb.toString();
    }

    /** Parses the text form; the error names {@code source} and what is missing, never the secret. */
    public static HostCredential parse(String text, String source) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text == null ? "" : text));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException(source + ": not a host credential (" + e.getMessage() + ")");
        }
        for (String key : new String[] {"id", "hostId", "secret"}) {
            if (p.getProperty(key) == null || p.getProperty(key).isBlank()) {
                throw new IllegalArgumentException(source + ": not a host credential: no '" + key + "=' line"
                        + " (make one with 'mpflc host-token --engine URL -o FILE')");
            }
        }
        String engine = engineUrl(p.getProperty("engine"), source);
        try {
            return new HostCredential(engine, p.getProperty("id").strip(), p.getProperty("hostId").strip(),
                    p.getProperty("secret").strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(source + ": " + e.getMessage());
        }
    }

    /**
     * The {@code engine=} line's URL, checked as {@code --engine} is ({@link EngineReach#checkedUrl}), or {@code null}
     * when there is none: a host or relay given {@code engine=localhost:8080} took it and failed later in the HTTP
     * client's words, naming neither the file nor the URL's form.
     */
    private static String engineUrl(String given, String source) {
        if (given == null) {
            return null;
        }
        try {
            return EngineReach.checkedUrl(given.strip(), source + ": its engine= line");
        } catch (org.mpfl.ir.cli.UsageException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    /**
     * The text form as one line (base64url of {@link #text()}): how a launcher hands a host its engine's
     * URL and its credential on the host's standard input ({@code mpflc host --credential-stdin}), which
     * ends at a line break. A pipe from the launcher, like the environment and unlike the command line,
     * is visible to no other user.
     */
    public String line() {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text().getBytes(StandardCharsets.UTF_8));
    }

    /** Parses {@link #line()}; the error names {@code source}, never the secret. */
    public static HostCredential parseLine(String line, String source) {
        String text;
        try {
            text = new String(Base64.getUrlDecoder().decode(line == null ? "" : line.strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(source + ": not a host credential line (not base64url)");
        }
        return parse(text, source);
    }

    /** Reads a join file. */
    public static HostCredential read(Path file) throws IOException {
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    }

    /**
     * The credential of a component that authenticates with it ({@code mpflc host}, {@code relay}, {@code slurm}): a
     * file that others may read or write is refused, as SSH refuses such a key, since its secret may already be
     * someone else's.
     *
     * @throws IOException naming the file and what is wrong (no such file; its mode; not a credential)
     */
    public static HostCredential readPrivate(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + ": no such file");
        }
        java.util.Optional<String> open;
        try {
            open = FileProblem.openToOthers(file);
        } catch (UnsupportedOperationException e) {
            open = java.util.Optional.empty(); // a file system without POSIX modes: nothing to check
        }
        if (open.isPresent()) {
            throw new IOException(file + " is readable or writable by others (" + open.get() + "): a host credential must be"
                    + " mode 0600 (chmod 600 " + file + ", and revoke it if others may have read it)");
        }
        try {
            return read(file);
        } catch (IOException e) {
            // "F: permission denied", where the JDK's exception says only "F"
            throw new IOException(FileProblem.of(file, e), e);
        }
    }

    @Override
    public String toString() {
        return "HostCredential[id=" + id + ", hostId=" + hostId + ", engine=" + engineUrl + "]";
    }
}
