package org.mpfl.engine.access;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.util.JSONObjectUtils;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * A small but real OpenID Connect issuer for tests, built from nimbus-jose-jwt's parts on the JDK's
 * HTTP server: a discovery document, a JWKS endpoint serving the current signing key (RS256), and
 * tokens signed with it. {@link #rotate} replaces the key as an issuer rotating its keys does: the
 * JWKS then serves only the new one. The engine's verifier talks to it over HTTP as to any issuer.
 *
 * <p>Why not {@code no.nav.security:mock-oauth2-server}: it resolves from Maven Central, but it has no
 * device authorization grant (which {@code mpflc login} uses) and no way to rotate its key mid-test.
 */
public final class TestIssuer implements AutoCloseable {
    private final HttpServer server;
    private final String issuer;
    private volatile RSAKey key;
    private final AtomicInteger jwksFetches = new AtomicInteger();

    private TestIssuer(HttpServer server) throws Exception {
        this.server = server;
        this.issuer = "http://127.0.0.1:" + server.getAddress().getPort() + "/realms/test";
        this.key = newKey();
        server.createContext("/realms/test/.well-known/openid-configuration", ex -> json(ex, discovery()));
        server.createContext("/realms/test/jwks", ex -> {
            jwksFetches.incrementAndGet();
            json(ex, new JWKSet(key.toPublicJWK()).toJSONObject(true));
        });
        server.start();
    }

    /** Starts an issuer on a free loopback port. */
    public static TestIssuer start() throws Exception {
        return new TestIssuer(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
    }

    public URI issuer() {
        return URI.create(issuer);
    }

    /** How often the key set was fetched. */
    public int jwksFetches() {
        return jwksFetches.get();
    }

    /** A fresh RS256 key with a random key id. */
    public static RSAKey newKey() throws Exception {
        return new RSAKeyGenerator(2048).keyID(UUID.randomUUID().toString()).generate();
    }

    /** Replaces the signing key; the JWKS serves only the new one from now on. Returns the old one. */
    public RSAKey rotate() throws Exception {
        RSAKey old = key;
        key = newKey();
        return old;
    }

    public RSAKey key() {
        return key;
    }

    private Map<String, Object> discovery() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("issuer", issuer);
        m.put("jwks_uri", issuer + "/jwks");
        m.put("token_endpoint", issuer + "/token");
        m.put("id_token_signing_alg_values_supported", List.of("RS256"));
        return m;
    }

    /** Claims of a valid access token for the engine's audience, 5 minutes long. */
    public JWTClaimsSet.Builder claims(String user, String role, String... projects) {
        Instant now = Instant.now();
        return new JWTClaimsSet.Builder().issuer(issuer).audience("mpfl-engine").subject("sub-" + user)
                .claim("preferred_username", user).claim("roles", List.of(role)).claim("groups", List.of(projects))
                .issueTime(Date.from(now)).notBeforeTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(300)))
                .jwtID(UUID.randomUUID().toString());
    }

    /** A token of {@code user} with {@code role} in {@code projects}, signed with the current key. */
    public String token(String user, String role, String... projects) throws Exception {
        return sign(claims(user, role, projects).build(), key);
    }

    /** A token with the claims changed by {@code edit}, signed with the current key. */
    public String token(UnaryOperator<JWTClaimsSet.Builder> edit) throws Exception {
        return sign(edit.apply(claims("alice", "operator", "a")).build(), key);
    }

    /** Claims signed with any key, named by its key id. */
    public static String sign(JWTClaimsSet claims, RSAKey with) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(with.getKeyID()).type(JOSEObjectType.JWT).build(),
                claims);
        jwt.sign(new RSASSASigner(with));
        return jwt.serialize();
    }

    private static void json(HttpExchange ex, Map<String, Object> body) throws IOException {
        byte[] b = JSONObjectUtils.toJSONString(body).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, b.length);
        ex.getResponseBody().write(b);
        ex.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
