package org.mpfl.engine.access;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import com.nimbusds.jose.util.JSONObjectUtils;
import org.mpfl.engine.store.ConsoleSessionStore;

/**
 * The console's login, kept on the engine (a "backend for frontend"): the engine runs the
 * Authorization Code flow with PKCE (S256) against the issuer, exchanges the code itself, and keeps
 * the tokens under a random session id; the browser only holds that id, in a cookie that is
 * {@code HttpOnly} (no script reads it), {@code SameSite=Strict} (no other site's page sends it) and
 * {@code Secure} on https. So no token is ever in a URL, in {@code localStorage} or within reach of
 * the page's scripts.
 *
 * <p>Sessions are kept in the run store ({@link ConsoleSessionStore}), so a restarted engine, and every
 * engine on the same store, knows them. The store holds only the SHA-256 of the session id, never the
 * id itself, and the tokens encrypted (AES-256-GCM) under a key derived from the id (HMAC-SHA256): who
 * reads the store learns neither a cookie that logs in nor a token; only a request carrying the cookie
 * can open its row. Sessions end at logout and after 8 hours (the row is deleted), or when their
 * token can no longer be refreshed; at most 10,000 are kept (the oldest go first). Pending logins
 * (10 minutes between the redirect to the issuer and its answer) are kept in this engine's memory, at
 * most 1,000, so a stranger starting logins cannot grow it; and at most 8 per source address: a new one
 * displaces the oldest of its own address, or beyond 1,000 the oldest of all, so that a stranger who
 * starts logins and never finishes them displaces its own, never refuses anyone's.
 */
public final class ConsoleSessions {
    /** The session cookie's name. */
    public static final String COOKIE = "mpfl_session";
    /**
     * The cookie that ties a login's callback to the browser that started it: without it, a callback URL made by an
     * attacker in their own browser and sent to a victim would log the victim in as the attacker (login CSRF,
     * RFC 6749 §10.12), and the victim's work would land in the attacker's projects.
     */
    public static final String LOGIN_COOKIE = "mpfl_login";
    /** How long a login may take from the redirect to the callback, in seconds (the login cookie's Max-Age). */
    public static final long LOGIN_SECONDS = 600;
    private static final long SESSION_MS = 8 * 3600_000L;
    private static final long PENDING_MS = LOGIN_SECONDS * 1000;
    private static final int MAX_SESSIONS = 10_000;
    private static final int MAX_PENDING = 1_000;
    private static final int MAX_PENDING_PER_SOURCE = 8;
    private static final Duration CALL = Duration.ofSeconds(10);

    private final OidcVerifier verifier;
    private final ConsoleSessionStore store;
    private final SecureRandom random = new SecureRandom();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(CALL).build();
    private final PendingLogins<Pending> pending = new PendingLogins<>(MAX_PENDING, MAX_PENDING_PER_SOURCE, PENDING_MS);

    private record Pending(String verifier, String nonce, String browser) {
    }

    /**
     * Where to send the browser, and the value of the {@link #LOGIN_COOKIE} to set in it.
     *
     * @param redirect the issuer's authorization URL
     * @param browser  the secret the callback must come back with, in that cookie
     */
    public record Login(String redirect, String browser) {
    }

    /** A session's tokens, as encrypted into its row. */
    private record Tokens(String accessToken, String refreshToken) {
    }

    public ConsoleSessions(OidcVerifier verifier, ConsoleSessionStore store) {
        this.verifier = verifier;
        this.store = store;
    }

    /** Whether the console can log in (an issuer and a public client id are configured). */
    public boolean enabled() {
        return verifier.settings().consoleClientId() != null;
    }

    /**
     * The issuer's authorization URL to send the browser to and the login cookie to set in it; remembers the PKCE
     * verifier and the cookie's value under the state. Never refused for the number of logins under way
     * ({@link PendingLogins}: a new one displaces the oldest of {@code source}'s 8, or of all 1,000).
     *
     * @param source the address of the browser (its logins displace one another first)
     */
    public Login loginRedirect(String callbackUrl, String source) throws OidcVerifier.TokenRefused {
        String endpoint = endpoint("authorization_endpoint");
        String state = randomId();
        String codeVerifier = randomId() + randomId();
        String nonce = randomId();
        String browser = randomId() + randomId();
        pending.add(state, new Pending(codeVerifier, nonce, browser), source, System.currentTimeMillis());
        return new Login(endpoint + (endpoint.contains("?") ? "&" : "?") + OAuthForms.form(Map.of("response_type", "code",
                "client_id", verifier.settings().consoleClientId(), "redirect_uri", callbackUrl, "scope", "openid",
                "state", state, "nonce", nonce, "code_challenge", OAuthForms.s256(codeVerifier), "code_challenge_method", "S256")),
                browser);
    }

    /**
     * Completes a login: checks that the callback comes from the browser that started it (its login cookie), exchanges
     * the code (with the PKCE verifier of its state) at the issuer and verifies the access token as any other.
     *
     * @param browser the {@link #LOGIN_COOKIE} the callback came with, or {@code null}
     * @return the new session's id
     */
    public String complete(String state, String code, String browser, String callbackUrl) throws OidcVerifier.TokenRefused {
        Pending p = pending.take(state, System.currentTimeMillis());
        if (p == null || code == null) {
            throw new OidcVerifier.TokenRefused("unknown or expired login (start again)", false);
        }
        if (browser == null || !java.security.MessageDigest.isEqual(browser.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                p.browser().getBytes(java.nio.charset.StandardCharsets.US_ASCII))) {
            // the code is not exchanged: a callback link from someone else's login must not make a session here
            throw new OidcVerifier.TokenRefused("this login was started in another browser, or its cookie is gone (cookies off?):"
                    + " log in again from the console", false);
        }
        Map<String, Object> t = tokenCall(Map.of("grant_type", "authorization_code", "code", code, "redirect_uri", callbackUrl,
                "client_id", verifier.settings().consoleClientId(), "code_verifier", p.verifier()));
        checkIdToken(t, p.nonce());
        Tokens tokens = tokens(t, null);
        verifier.verify(tokens.accessToken());
        long now = System.currentTimeMillis();
        store.makeRoom(now, MAX_SESSIONS);
        String id = randomId() + randomId();
        store.save(new ConsoleSessionStore.StoredSession(SessionSeal.idHash(id), now, now + SESSION_MS, expiresAt(t),
                SessionSeal.seal(id, tokens.accessToken() + "\n" + nullToEmpty(tokens.refreshToken()))));
        return id;
    }

    /**
     * The bearer token of a session (refreshed when within 30 s of expiry), empty when there is no
     * such session or it has ended (then its row is deleted).
     */
    public Optional<String> accessToken(String sessionId) {
        if (sessionId == null || sessionId.isEmpty() || sessionId.length() > 128) {
            return Optional.empty();
        }
        String idHash = SessionSeal.idHash(sessionId);
        Optional<ConsoleSessionStore.StoredSession> found = store.find(idHash);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        ConsoleSessionStore.StoredSession row = found.get();
        long now = System.currentTimeMillis();
        Optional<Tokens> opened = SessionSeal.open(sessionId, row.tokens()).map(ConsoleSessions::parse);
        if (now >= row.endsMs() || opened.isEmpty()) {
            store.delete(idHash);
            return Optional.empty();
        }
        Tokens tokens = opened.get();
        if (row.tokenExpiresMs() - 30_000 < now) {
            if (tokens.refreshToken() == null) {
                store.delete(idHash);
                return Optional.empty();
            }
            try {
                Map<String, Object> t = tokenCall(Map.of("grant_type", "refresh_token", "refresh_token", tokens.refreshToken(),
                        "client_id", verifier.settings().consoleClientId()));
                tokens = tokens(t, tokens.refreshToken());
                store.save(new ConsoleSessionStore.StoredSession(idHash, row.createdMs(), row.endsMs(), expiresAt(t),
                        SessionSeal.seal(sessionId, tokens.accessToken() + "\n" + nullToEmpty(tokens.refreshToken()))));
            } catch (OidcVerifier.TokenRefused e) {
                store.delete(idHash);
                return Optional.empty();
            }
        }
        return Optional.of(tokens.accessToken());
    }

    /** Ends a session; returns where to send the browser to end it at the issuer too ({@code null}: nowhere). */
    public String logout(String sessionId, String afterUrl) {
        if (sessionId != null && !sessionId.isEmpty() && sessionId.length() <= 128) {
            store.delete(SessionSeal.idHash(sessionId));
        }
        try {
            String end = (String) verifier.discovery().get("end_session_endpoint");
            return end == null ? null : end + (end.contains("?") ? "&" : "?")
                    + OAuthForms.form(Map.of("client_id", verifier.settings().consoleClientId(), "post_logout_redirect_uri", afterUrl));
        } catch (OidcVerifier.TokenRefused e) {
            return null;
        }
    }

    /**
     * The ID token of the code exchange must be for this login: from the issuer, for the console's client, with the
     * nonce the login sent (OpenID Connect Core 3.1.3.7). The nonce was sent and never checked: an ID token of another
     * login would have been taken. Its signature is not checked here: it comes straight from the issuer's token
     * endpoint, whose TLS vouches for it (3.1.3.7, 6), and the session's identity is the access token's, verified as
     * any other.
     */
    private void checkIdToken(Map<String, Object> t, String nonce) throws OidcVerifier.TokenRefused {
        if (!(t.get("id_token") instanceof String idToken)) {
            throw new OidcVerifier.TokenRefused("the issuer answered without an ID token (the login asks for scope openid)", false);
        }
        com.nimbusds.jwt.JWTClaimsSet claims;
        try {
            claims = com.nimbusds.jwt.JWTParser.parse(idToken).getJWTClaimsSet();
        } catch (java.text.ParseException e) {
            throw new OidcVerifier.TokenRefused("the issuer's ID token is not a JWT", false);
        }
        String clientId = verifier.settings().consoleClientId();
        if (!verifier.settings().issuer().toString().equals(claims.getIssuer()) || claims.getAudience() == null
                || !claims.getAudience().contains(clientId) || !nonce.equals(claims.getClaim("nonce"))) {
            throw new OidcVerifier.TokenRefused("the issuer's ID token is not for this login (its issuer, audience or nonce"
                    + " differ): log in again from the console", false);
        }
    }

    /** The tokens of an issuer's answer; a refresh that names no new refresh token keeps {@code previousRefresh}. */
    private static Tokens tokens(Map<String, Object> t, String previousRefresh) throws OidcVerifier.TokenRefused {
        if (!(t.get("access_token") instanceof String access) || access.isEmpty()) {
            throw new OidcVerifier.TokenRefused("the issuer answered without an access token", false);
        }
        return new Tokens(access, t.get("refresh_token") instanceof String refresh && !refresh.isEmpty() ? refresh : previousRefresh);
    }

    private static long expiresAt(Map<String, Object> t) {
        long expiresIn = t.get("expires_in") instanceof Number n ? n.longValue() : 300;
        return System.currentTimeMillis() + expiresIn * 1000;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    /** The tokens as sealed: access token, a line break, the refresh token (empty: none). Neither contains a line break. */
    private static Tokens parse(String sealed) {
        int nl = sealed.indexOf('\n');
        String access = nl < 0 ? sealed : sealed.substring(0, nl);
        String refresh = nl < 0 ? "" : sealed.substring(nl + 1);
        return new Tokens(access, refresh.isEmpty() ? null : refresh);
    }

    private String endpoint(String name) throws OidcVerifier.TokenRefused {
        Object e = verifier.discovery().get(name);
        if (!(e instanceof String s)) {
            throw new OidcVerifier.TokenRefused("the issuer names no " + name, true);
        }
        return s;
    }

    private Map<String, Object> tokenCall(Map<String, String> fields) throws OidcVerifier.TokenRefused {
        String endpoint = endpoint("token_endpoint");
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(endpoint)).timeout(CALL)
                    .header("Content-Type", "application/x-www-form-urlencoded").header("Accept", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(OAuthForms.form(fields))).build(), HttpResponse.BodyHandlers.ofString());
            Map<String, Object> body = JSONObjectUtils.parse(r.body());
            if (r.statusCode() != 200) {
                throw new OidcVerifier.TokenRefused("the issuer refused the login: " + body.get("error"), false);
            }
            return body;
        } catch (IOException | java.text.ParseException e) {
            throw new OidcVerifier.TokenRefused("the issuer cannot be reached: " + e.getMessage(), true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OidcVerifier.TokenRefused("interrupted", true);
        }
    }

    private String randomId() {
        byte[] b = new byte[24];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
