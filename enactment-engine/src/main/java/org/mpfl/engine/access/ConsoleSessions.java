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
import java.util.concurrent.ConcurrentHashMap;
import com.nimbusds.jose.util.JSONObjectUtils;

/**
 * The console's login, kept on the engine (a "backend for frontend"): the engine runs the
 * Authorization Code flow with PKCE (S256) against the issuer, exchanges the code itself, and keeps
 * the tokens in memory under a random session id; the browser only holds that id, in a cookie that is
 * {@code HttpOnly} (no script reads it), {@code SameSite=Strict} (no other site's page sends it) and
 * {@code Secure} on https. So no token is ever in a URL, in {@code localStorage} or within reach of
 * the page's scripts. Sessions end at logout, after 8 hours, or when their token can no longer be
 * refreshed; at most 10,000 live at once (the oldest go first), pending logins at most 1,000 for 10
 * minutes, so a stranger starting logins cannot grow the engine's memory.
 */
public final class ConsoleSessions {
    /** The session cookie's name. */
    public static final String COOKIE = "mpfl_session";
    private static final long SESSION_MS = 8 * 3600_000L;
    private static final long PENDING_MS = 10 * 60_000L;
    private static final int MAX_SESSIONS = 10_000;
    private static final int MAX_PENDING = 1_000;
    private static final Duration CALL = Duration.ofSeconds(10);

    private final OidcVerifier verifier;
    private final SecureRandom random = new SecureRandom();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(CALL).build();
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();

    private record Pending(String verifier, String nonce, long createdMs) {
    }

    private static final class Session {
        final long createdMs;
        volatile String accessToken;
        volatile String refreshToken;
        volatile long expiresAtMs;

        Session(long createdMs) {
            this.createdMs = createdMs;
        }
    }

    public ConsoleSessions(OidcVerifier verifier) {
        this.verifier = verifier;
    }

    /** Whether the console can log in (an issuer and a public client id are configured). */
    public boolean enabled() {
        return verifier.settings().consoleClientId() != null;
    }

    /** The issuer's authorization URL to send the browser to; remembers the PKCE verifier under the state. */
    public String loginRedirect(String callbackUrl) throws OidcVerifier.TokenRefused {
        String endpoint = endpoint("authorization_endpoint");
        long now = System.currentTimeMillis();
        pending.values().removeIf(p -> now - p.createdMs() > PENDING_MS);
        if (pending.size() >= MAX_PENDING) {
            throw new OidcVerifier.TokenRefused("too many logins under way; try again in a few minutes", true);
        }
        String state = randomId();
        String codeVerifier = randomId() + randomId();
        String nonce = randomId();
        pending.put(state, new Pending(codeVerifier, nonce, now));
        return endpoint + (endpoint.contains("?") ? "&" : "?") + OAuthForms.form(Map.of("response_type", "code",
                "client_id", verifier.settings().consoleClientId(), "redirect_uri", callbackUrl, "scope", "openid",
                "state", state, "nonce", nonce, "code_challenge", OAuthForms.s256(codeVerifier), "code_challenge_method", "S256"));
    }

    /**
     * Completes a login: exchanges the code (with the PKCE verifier of its state) at the issuer and
     * verifies the access token as any other.
     *
     * @return the new session's id
     */
    public String complete(String state, String code, String callbackUrl) throws OidcVerifier.TokenRefused {
        Pending p = state == null ? null : pending.remove(state);
        if (p == null || System.currentTimeMillis() - p.createdMs() > PENDING_MS || code == null) {
            throw new OidcVerifier.TokenRefused("unknown or expired login (start again)", false);
        }
        Map<String, Object> t = tokenCall(Map.of("grant_type", "authorization_code", "code", code, "redirect_uri", callbackUrl,
                "client_id", verifier.settings().consoleClientId(), "code_verifier", p.verifier()));
        Session s = new Session(System.currentTimeMillis());
        take(s, t);
        verifier.verify(s.accessToken);
        if (sessions.size() >= MAX_SESSIONS) {
            sessions.entrySet().stream().min((a, b) -> Long.compare(a.getValue().createdMs, b.getValue().createdMs))
                    .ifPresent(oldest -> sessions.remove(oldest.getKey()));
        }
        String id = randomId() + randomId();
        sessions.put(id, s);
        return id;
    }

    /** The bearer token of a session (refreshed when within 30 s of expiry), empty when it has ended. */
    public Optional<String> accessToken(String sessionId) {
        Session s = sessionId == null ? null : sessions.get(sessionId);
        if (s == null) {
            return Optional.empty();
        }
        long now = System.currentTimeMillis();
        if (now - s.createdMs > SESSION_MS) {
            sessions.remove(sessionId);
            return Optional.empty();
        }
        if (s.expiresAtMs - 30_000 < now) {
            if (s.refreshToken == null) {
                sessions.remove(sessionId);
                return Optional.empty();
            }
            try {
                take(s, tokenCall(Map.of("grant_type", "refresh_token", "refresh_token", s.refreshToken,
                        "client_id", verifier.settings().consoleClientId())));
            } catch (OidcVerifier.TokenRefused e) {
                sessions.remove(sessionId);
                return Optional.empty();
            }
        }
        return Optional.of(s.accessToken);
    }

    /** Ends a session; returns where to send the browser to end it at the issuer too ({@code null}: nowhere). */
    public String logout(String sessionId, String afterUrl) {
        if (sessionId != null) {
            sessions.remove(sessionId);
        }
        try {
            String end = (String) verifier.discovery().get("end_session_endpoint");
            return end == null ? null : end + (end.contains("?") ? "&" : "?")
                    + OAuthForms.form(Map.of("client_id", verifier.settings().consoleClientId(), "post_logout_redirect_uri", afterUrl));
        } catch (OidcVerifier.TokenRefused e) {
            return null;
        }
    }

    private static void take(Session s, Map<String, Object> t) throws OidcVerifier.TokenRefused {
        if (!(t.get("access_token") instanceof String access)) {
            throw new OidcVerifier.TokenRefused("the issuer answered without an access token", false);
        }
        s.accessToken = access;
        if (t.get("refresh_token") instanceof String refresh) {
            s.refreshToken = refresh;
        }
        long expiresIn = t.get("expires_in") instanceof Number n ? n.longValue() : 300;
        s.expiresAtMs = System.currentTimeMillis() + expiresIn * 1000;
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
