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
 * tokens signed with it; a token endpoint (device code, refresh token and client credentials grants),
 * a device authorization endpoint, and the approval a user gives in the browser ({@code /approve}). {@link #rotate} replaces the key as an issuer rotating its keys does: the
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
        server.createContext("/realms/test/device", this::deviceAuthorization);
        server.createContext("/realms/test/approve", this::approve);
        server.createContext("/realms/test/token", this::tokenEndpoint);
        server.createContext("/realms/test/authorize", this::authorize);
        server.createContext("/realms/test/logout", ex -> {
            String q = ex.getRequestURI().getRawQuery();
            String back = q == null ? null : java.util.Arrays.stream(q.split("&")).filter(kv -> kv.startsWith("post_logout_redirect_uri="))
                    .map(kv -> java.net.URLDecoder.decode(kv.substring(kv.indexOf('=') + 1), StandardCharsets.UTF_8)).findFirst().orElse(null);
            logouts.incrementAndGet();
            ex.getResponseHeaders().set("Location", back == null ? issuer : back);
            ex.sendResponseHeaders(302, -1);
            ex.close();
        });
        server.start();
    }

    /** A client of this issuer: its secret ({@code null}: public) and what its tokens say. */
    private record Client(String secret, String user, String role, String[] projects) {
    }

    /** A device code waiting for (or given) a user's approval. */
    private static final class Pending {
        final String userCode;
        volatile String[] approvedAs;

        Pending(String userCode) {
            this.userCode = userCode;
        }
    }

    private final Map<String, Client> clients = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, Pending> deviceCodes = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, String[]> refreshTokens = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger refreshes = new AtomicInteger();
    private final AtomicInteger logouts = new AtomicInteger();
    /** Authorization codes: what was asked (client, redirect, PKCE challenge) and who approved. */
    private final Map<String, String[]> codes = new java.util.concurrent.ConcurrentHashMap<>();
    /** The nonce every ID token carries instead of its login's ({@code null}: its login's). */
    private volatile String idTokenNonce;

    /** How often a browser was sent to the issuer's logout. */
    public int logouts() {
        return logouts.get();
    }

    /**
     * The login page a browser is sent to (GET: a form; POST: the user's answer, then back to the
     * client's redirect URI with a code). Only registered clients, only S256 PKCE.
     */
    private void authorize(HttpExchange ex) throws IOException {
        Map<String, String> f = ex.getRequestMethod().equals("GET") ? query(ex) : form(ex);
        if (!clients.containsKey(f.get("client_id")) || !"S256".equals(f.get("code_challenge_method"))
                || f.get("code_challenge") == null || f.get("redirect_uri") == null) {
            error(ex, 400, "invalid_request");
            return;
        }
        if (ex.getRequestMethod().equals("GET")) {
            StringBuilder html = new StringBuilder("<!doctype html><html><body><h1>Test issuer login</h1><form method=post>");
            for (String k : List.of("client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method", "nonce")) {
                html.append("<input type=hidden name=\"").append(k).append("\" value=\"").append(escape(f.getOrDefault(k, ""))).append("\">");
            }
            html.append("<input id=user name=user><input id=role name=role><input id=projects name=projects>")
                    .append("<button id=submit type=submit>Log in</button></form></body></html>");
            byte[] b = html.toString().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
            return;
        }
        String code = UUID.randomUUID().toString();
        codes.put(code, new String[] {f.get("client_id"), f.get("redirect_uri"), f.get("code_challenge"), f.get("user"), f.get("role"),
                f.getOrDefault("projects", ""), f.get("nonce")});
        String back = f.get("redirect_uri") + (f.get("redirect_uri").contains("?") ? "&" : "?") + "code=" + code + "&state="
                + java.net.URLEncoder.encode(f.getOrDefault("state", ""), StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Location", back);
        ex.sendResponseHeaders(302, -1);
        ex.close();
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
    }

    private static Map<String, String> query(HttpExchange ex) {
        Map<String, String> m = new LinkedHashMap<>();
        String q = ex.getRequestURI().getRawQuery();
        for (String pair : q == null ? new String[0] : q.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                m.put(java.net.URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return m;
    }
    private volatile long accessTokenSeconds = 300;

    /** Registers a public client (device grant). */
    public TestIssuer publicClient(String id) {
        clients.put(id, new Client(null, null, null, null));
        return this;
    }

    /** Registers a confidential client whose client-credentials tokens name {@code user}. */
    public TestIssuer serviceAccount(String id, String secret, String user, String role, String... projects) {
        clients.put(id, new Client(secret, user, role, projects));
        return this;
    }

    /** How long the access tokens of the token endpoint last (seconds). */
    public TestIssuer accessTokenSeconds(long s) {
        accessTokenSeconds = s;
        return this;
    }

    /** How many refresh-token grants were answered. */
    public int refreshes() {
        return refreshes.get();
    }

    /** The user codes waiting for approval. */
    public List<String> pendingUserCodes() {
        return deviceCodes.values().stream().filter(p -> p.approvedAs == null).map(p -> p.userCode).toList();
    }

    private void deviceAuthorization(HttpExchange ex) throws IOException {
        Map<String, String> f = form(ex);
        if (!clients.containsKey(f.get("client_id"))) {
            error(ex, 401, "invalid_client");
            return;
        }
        String userCode = UUID.randomUUID().toString().substring(0, 8).toUpperCase();
        String deviceCode = UUID.randomUUID().toString();
        deviceCodes.put(deviceCode, new Pending(userCode));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("device_code", deviceCode);
        m.put("user_code", userCode);
        m.put("verification_uri", issuer + "/approve");
        m.put("expires_in", 120);
        m.put("interval", 1);
        json(ex, m);
    }

    /** What the user does in the browser: approves a user code as {@code user} (form: user_code, user, role, projects). */
    private void approve(HttpExchange ex) throws IOException {
        Map<String, String> f = form(ex);
        for (Pending p : deviceCodes.values()) {
            if (p.userCode.equals(f.get("user_code"))) {
                p.approvedAs = new String[] {f.get("user"), f.get("role"), f.getOrDefault("projects", "")};
                json(ex, Map.of("approved", true));
                return;
            }
        }
        error(ex, 404, "unknown user code");
    }

    private void tokenEndpoint(HttpExchange ex) throws IOException {
        Map<String, String> f = form(ex);
        Client client = clients.get(f.get("client_id"));
        if (client == null || client.secret() != null && !client.secret().equals(f.get("client_secret"))) {
            error(ex, 401, "invalid_client");
            return;
        }
        String[] who;
        String idToken = null;
        switch (f.getOrDefault("grant_type", "")) {
            case "urn:ietf:params:oauth:grant-type:device_code" -> {
                Pending p = deviceCodes.get(f.get("device_code"));
                if (p == null) {
                    error(ex, 400, "expired_token");
                    return;
                }
                if (p.approvedAs == null) {
                    error(ex, 400, "authorization_pending");
                    return;
                }
                deviceCodes.remove(f.get("device_code"));
                who = p.approvedAs;
            }
            case "authorization_code" -> {
                String[] c = codes.remove(f.getOrDefault("code", ""));
                if (c == null || !c[0].equals(f.get("client_id")) || !c[1].equals(f.get("redirect_uri"))
                        || !c[2].equals(OAuthForms.s256(f.getOrDefault("code_verifier", "")))) {
                    error(ex, 400, "invalid_grant");
                    return;
                }
                who = new String[] {c[3], c[4], c[5]};
                try {
                    idToken = idToken(c[0], c[3], idTokenNonce != null ? idTokenNonce : c[6]);
                } catch (Exception e) {
                    error(ex, 500, e.toString());
                    return;
                }
            }
            case "refresh_token" -> {
                who = refreshTokens.remove(f.getOrDefault("refresh_token", ""));
                if (who == null) {
                    error(ex, 400, "invalid_grant");
                    return;
                }
                refreshes.incrementAndGet();
            }
            case "client_credentials" -> {
                if (client.secret() == null) {
                    error(ex, 400, "unauthorized_client");
                    return;
                }
                who = new String[] {client.user(), client.role(), String.join(",", client.projects())};
            }
            default -> {
                error(ex, 400, "unsupported_grant_type");
                return;
            }
        }
        try {
            Instant now = Instant.now();
            String[] projects = who[2].isEmpty() ? new String[0] : who[2].split(",");
            String access = sign(claims(who[0], who[1], projects).expirationTime(Date.from(now.plusSeconds(accessTokenSeconds))).build(),
                    key);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("access_token", access);
            m.put("token_type", "Bearer");
            m.put("expires_in", accessTokenSeconds);
            if (idToken != null) {
                m.put("id_token", idToken);
            }
            if (client.secret() == null) {
                String refresh = UUID.randomUUID().toString();
                refreshTokens.put(refresh, who);
                m.put("refresh_token", refresh);
            }
            json(ex, m);
        } catch (Exception e) {
            error(ex, 500, e.toString());
        }
    }

    private static Map<String, String> form(HttpExchange ex) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                m.put(java.net.URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return m;
    }

    private static void error(HttpExchange ex, int status, String error) throws IOException {
        byte[] b = JSONObjectUtils.toJSONString(Map.of("error", error)).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
        ex.close();
    }

    /** An ID token as the code exchange answers it: for the client, with the login's nonce. */
    private String idToken(String clientId, String user, String nonce) throws Exception {
        Instant now = Instant.now();
        JWTClaimsSet.Builder b = new JWTClaimsSet.Builder().issuer(issuer).audience(clientId).subject("sub-" + user)
                .issueTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(300)));
        if (nonce != null) {
            b.claim("nonce", nonce);
        }
        return sign(b.build(), key);
    }

    /**
     * From now on, every ID token of a code exchange carries {@code nonce} instead of its login's: an ID token made for
     * another login, as an attacker who replays one would hand it over.
     */
    public TestIssuer idTokenNonce(String nonce) {
        this.idTokenNonce = nonce;
        return this;
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
        m.put("device_authorization_endpoint", issuer + "/device");
        m.put("authorization_endpoint", issuer + "/authorize");
        m.put("end_session_endpoint", issuer + "/logout");
        m.put("id_token_signing_alg_values_supported", List.of("RS256"));
        return m;
    }

    /**
     * An engine of this issuer's users, audience {@code mpfl-engine}, admin token {@code admin-token}, with its data in
     * {@code dir}, on a free port, its registry's hosts never silent.
     */
    public org.mpfl.engine.EngineConfig engineConfig(java.nio.file.Path dir) {
        return new org.mpfl.engine.EngineConfig().port(0).heartbeatTimeout(org.mpfl.engine.HostCalls.SILENT_HOSTS_TIMEOUT).dataDir(dir)
                .token("admin-token").oidc(OidcSettings.of(issuer(), "mpfl-engine"));
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
