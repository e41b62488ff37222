package org.mpfl.engine.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.access.OidcSettings;
import org.mpfl.engine.access.TestIssuer;
import org.mpfl.engine.store.ConsoleSessionStore;
import org.mpfl.engine.store.EngineDatabase;

/**
 * Console sessions live in the run store: a user logged in through the console (Authorization Code +
 * PKCE against a real issuer, driven here over HTTP as the browser would) stays logged in across an
 * engine restart; logout deletes the session, after which its cookie is refused; a session past its
 * end is refused and deleted. The store holds a hash of the session id and encrypted tokens: neither
 * the cookie's value nor a token appears in it. ({@link ConsoleLoginBrowserTest} drives the same
 * login in a real browser.)
 */
@Timeout(120)
class ConsoleSessionStoreTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    Path dir;

    @Test
    void aSessionSurvivesARestartEndsAtLogoutAndAtItsEnd() throws Exception {
        try (TestIssuer issuer = TestIssuer.start().publicClient("mpfl-console")) {
            String cookie;
            try (Engine engine = start(issuer)) {
                assertEquals(401, get(engine, "/api/runs", null).statusCode(), "reads need a login");
                cookie = login(engine, issuer, "alice");
                assertEquals(200, get(engine, "/api/runs", cookie).statusCode());
                assertTrue(get(engine, "/api/auth", cookie).body().contains("alice"));
            }
            assertStoreHoldsNoSecret(cookie, issuer.token("x", "viewer").split("\\.")[0]);

            try (Engine restarted = start(issuer)) {
                HttpResponse<String> runs = get(restarted, "/api/runs", cookie);
                assertEquals(200, runs.statusCode(), "still logged in after the restart: " + runs.body());
                assertTrue(get(restarted, "/api/auth", cookie).body().contains("alice"));

                HttpResponse<String> out = logout(restarted, cookie, restarted.url());
                assertEquals(303, out.statusCode(), out.body());
                assertEquals(401, get(restarted, "/api/runs", cookie).statusCode(), "the old cookie after logout");
            }
            assertTrue(stored(cookie).isEmpty(), "logout deleted the session's row");

            String second;
            try (Engine engine = start(issuer)) {
                second = login(engine, issuer, "bob");
                assertEquals(200, get(engine, "/api/runs", second).statusCode());
            }
            try (EngineDatabase db = EngineDatabase.openEmbedded(dir)) {
                ConsoleSessionStore.StoredSession row = db.consoleSessions().find(sha256(second)).orElseThrow();
                long now = System.currentTimeMillis();
                // the session's end (8 hours after the login) passed: as the clock would make it
                db.consoleSessions().save(new ConsoleSessionStore.StoredSession(row.idHash(), row.createdMs() - 9 * 3_600_000L,
                        now - 1, row.tokenExpiresMs(), row.tokens()));
            }
            try (Engine engine = start(issuer)) {
                assertEquals(401, get(engine, "/api/runs", second).statusCode(), "an ended session's cookie");
            }
            assertTrue(stored(second).isEmpty(), "the ended session's row was deleted");
        }
    }

    private Engine start(TestIssuer issuer) throws Exception {
        return Engine.start(new EngineConfig().port(0).bindHost("127.0.0.1").dataDir(dir).token("admin")
                .oidc(OidcSettings.of(issuer.issuer(), "mpfl-engine").withConsoleClientId("mpfl-console")));
    }

    /**
     * The attack of RFC 6749 §10.12 (login CSRF): the attacker starts a login in their own browser, answers the issuer
     * as themselves, and sends the callback link to a victim. Opened in the victim's browser — no login cookie, or the
     * victim's own from a login of theirs — it makes no session, and the code is not spent on the victim's behalf.
     */
    @Test
    void aCallbackLinkFromAnotherBrowsersLoginMakesNoSession() throws Exception {
        try (TestIssuer issuer = TestIssuer.start().publicClient("mpfl-console"); Engine engine = start(issuer)) {
            Started attacker = startLogin(engine);
            URI attackersCallback = answerIssuer(attacker, "mallory");
            Started victim = startLogin(engine);
            for (String victimsCookie : java.util.Arrays.asList(null, victim.loginCookie())) {
                HttpResponse<String> opened = callback(attackersCallback, victimsCookie);
                assertEquals(400, opened.statusCode(), opened.body());
                assertTrue(opened.body().contains("started in another browser") || opened.body().contains("unknown or expired login"),
                        opened.body());
                assertTrue(opened.headers().allValues("Set-Cookie").stream().noneMatch(c -> c.startsWith("mpfl_session=")),
                        "no session: " + opened.headers());
            }
            // the victim's own login still works with the victim's cookie
            assertEquals(200, get(engine, "/api/runs", sessionOf(callback(answerIssuer(victim, "alice"), victim.loginCookie()))).statusCode());
        }
    }

    /**
     * Cross-site request forgery: another site's page makes the browser send alice's session cookie with a mutation.
     * Refused (the Origin is not the console's), and on the audit trail under alice's name: an attempt to act as her.
     */
    @Test
    void aMutationFromAnotherSitesPageIsRefusedAndAuditedUnderTheSessionsUser() throws Exception {
        try (TestIssuer issuer = TestIssuer.start().publicClient("mpfl-console"); Engine engine = start(issuer)) {
            String cookie = login(engine, issuer, "alice");
            HttpResponse<String> forged = HTTP.send(HttpRequest.newBuilder(URI.create(engine.url() + "/api/runs/any/cancel"))
                    .timeout(Duration.ofSeconds(30)).header("Cookie", "mpfl_session=" + cookie).header("Origin", "http://evil.example")
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(403, forged.statusCode(), forged.body());
            engine.audit().flush(Duration.ofSeconds(10));
            String trail = HTTP.send(HttpRequest.newBuilder(URI.create(engine.url() + "/api/audit")).header("Authorization", "Bearer admin")
                    .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(trail.contains("\"who\":\"alice\"") && trail.contains("POST /api/runs/any/cancel") && trail.contains("403"), trail);
        }
    }

    /**
     * The login's nonce is checked: an issuer's answer whose ID token carries another login's nonce (one an attacker
     * replays) makes no session. Before, the nonce was sent and never compared, and the ID token ignored.
     */
    @Test
    void anIdTokenOfAnotherLoginMakesNoSession() throws Exception {
        try (TestIssuer issuer = TestIssuer.start().publicClient("mpfl-console"); Engine engine = start(issuer)) {
            Started started = startLogin(engine);
            issuer.idTokenNonce("the-nonce-of-another-login");
            HttpResponse<String> back = callback(answerIssuer(started, "alice"), started.loginCookie());
            assertEquals(400, back.statusCode(), back.body());
            assertTrue(back.body().contains("not for this login"), back.body());
            assertTrue(back.headers().allValues("Set-Cookie").stream().noneMatch(c -> c.startsWith("mpfl_session=") && !c.startsWith("mpfl_session=;")),
                    "no session: " + back.headers());
            issuer.idTokenNonce(null);
            assertEquals(200, get(engine, "/api/runs", login(engine, issuer, "alice")).statusCode(), "a login with its own nonce");
        }
    }

    /**
     * Logout CSRF: a link or an image on another site ({@code GET}) and another site's form ({@code POST} with its
     * {@code Origin}) end no session and clear no cookie. Before, logout was a GET: {@code <img src=…/logout>} on any
     * page logged the user out (its answer cleared the cookie even where SameSite kept the cookie from the request).
     * Only a POST from the console's own page (or from no page at all) logs out.
     */
    @Test
    void onlyAPostFromTheConsolesOwnPageLogsOut() throws Exception {
        try (TestIssuer issuer = TestIssuer.start().publicClient("mpfl-console"); Engine engine = start(issuer)) {
            String cookie = login(engine, issuer, "alice");
            HttpResponse<String> byLink = get(engine, "/api/session/logout", cookie);
            assertEquals(405, byLink.statusCode(), "a GET ends nothing: " + byLink.body());
            for (String withCookie : new String[] {cookie, null}) {
                for (String origin : List.of("http://evil.example", "null")) {
                    HttpResponse<String> forged = logout(engine, withCookie, origin);
                    assertEquals(403, forged.statusCode(), origin + ": " + forged.body());
                    assertTrue(forged.headers().allValues("Set-Cookie").isEmpty(), "no cookie cleared: " + forged.headers());
                }
            }
            assertEquals(200, get(engine, "/api/runs", cookie).statusCode(), "alice is still logged in");
            assertEquals(0, issuer.logouts());
            HttpResponse<String> own = logout(engine, cookie, engine.url());
            assertEquals(303, own.statusCode(), own.body());
            assertTrue(own.headers().allValues("Set-Cookie").stream().anyMatch(c -> c.startsWith("mpfl_session=;")), own.headers().toString());
            assertTrue(own.headers().firstValue("Location").orElse("").startsWith(issuer.issuer() + "/logout"), own.headers().toString());
            assertEquals(401, get(engine, "/api/runs", cookie).statusCode(), "the session ended");
        }
    }

    /**
     * A stranger who starts console logins and never finishes them — more than the 1,000 pending logins the engine
     * keeps, from an address of its own (127.0.0.2) — neither refuses a later user's login (it used to: 503 "too many
     * logins under way" for everyone, for the 10 minutes a pending login lasts) nor displaces a login another address
     * started before the flood.
     */
    @Test
    void loginsAStrangerStartsAndNeverFinishesLockNobodyOut() throws Exception {
        try (TestIssuer issuer = TestIssuer.start().publicClient("mpfl-console"); Engine engine = start(issuer)) {
            Started before = startLogin(engine);
            URI url = URI.create(engine.url());
            int flood = 1_100;
            try (java.net.Socket s = new java.net.Socket()) {
                s.bind(new java.net.InetSocketAddress("127.0.0.2", 0));
                s.connect(new java.net.InetSocketAddress(url.getHost(), url.getPort()), 10_000);
                s.setSoTimeout(30_000);
                // pipelined on one kept-alive connection: every answer must be the redirect to the issuer
                byte[] request = ("GET /api/session/login HTTP/1.1\r\nHost: " + url.getAuthority() + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII);
                java.io.OutputStream out = s.getOutputStream();
                for (int i = 0; i < flood; i++) {
                    out.write(request);
                }
                out.flush();
                java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(s.getInputStream(),
                        StandardCharsets.US_ASCII));
                for (int answered = 0; answered < flood; ) {
                    String line = in.readLine();
                    assertNotNull(line, "the engine closed the connection after " + answered + " answers");
                    if (line.startsWith("HTTP/1.1 ")) {
                        answered++;
                        assertTrue(line.startsWith("HTTP/1.1 302"), "answer " + answered + ": " + line);
                    }
                }
            }
            assertEquals(200, get(engine, "/api/runs", sessionOf(callback(answerIssuer(before, "alice"), before.loginCookie())))
                    .statusCode(), "a login started before the flood");
            assertEquals(200, get(engine, "/api/runs", login(engine, issuer, "bob")).statusCode(), "a login started after it");
        }
    }

    /** A login started in a browser: where the issuer's page is, and the login cookie the engine set. */
    private record Started(URI authorize, String loginCookie) {
    }

    private static Started startLogin(Engine engine) throws Exception {
        HttpResponse<String> toIssuer = get(engine, "/api/session/login", null);
        assertEquals(302, toIssuer.statusCode(), toIssuer.body());
        String set = toIssuer.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("mpfl_login="))
                .findFirst().orElseThrow(() -> new AssertionError("no login cookie: " + toIssuer.headers()));
        assertTrue(set.contains("HttpOnly") && set.contains("SameSite=Lax") && set.contains("Path=/api/session/callback"), set);
        return new Started(URI.create(toIssuer.headers().firstValue("Location").orElseThrow()),
                set.substring("mpfl_login=".length(), set.indexOf(';')));
    }

    /** The user's answer on the issuer's page; the callback URL the issuer sends the browser back to. */
    private static URI answerIssuer(Started login, String user) throws Exception {
        Map<String, String> form = new LinkedHashMap<>(query(login.authorize()));
        form.put("user", user);
        form.put("role", "operator");
        form.put("projects", "a");
        HttpResponse<String> back = HTTP.send(HttpRequest.newBuilder(URI.create(login.authorize().toString().replaceFirst("\\?.*$", "")))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form.entrySet().stream()
                        .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                        .collect(Collectors.joining("&")))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(302, back.statusCode(), back.body());
        return URI.create(back.headers().firstValue("Location").orElseThrow());
    }

    private static HttpResponse<String> callback(URI url, String loginCookie) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(30)).GET();
        if (loginCookie != null) {
            b.header("Cookie", "mpfl_login=" + loginCookie);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The session cookie a successful callback set. */
    private static String sessionOf(HttpResponse<String> callback) {
        assertEquals(302, callback.statusCode(), callback.body());
        String setCookie = callback.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("mpfl_session="))
                .findFirst().orElseThrow(() -> new AssertionError("no session cookie: " + callback.headers()));
        assertTrue(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), setCookie);
        String value = setCookie.substring("mpfl_session=".length(), setCookie.indexOf(';'));
        assertFalse(value.isEmpty());
        return value;
    }

    /** The browser's part of the login: engine → issuer's page → the user's answer → engine's callback; the session cookie. */
    private static String login(Engine engine, TestIssuer issuer, String user) throws Exception {
        Started started = startLogin(engine);
        return sessionOf(callback(answerIssuer(started, user), started.loginCookie()));
    }

    private static HttpResponse<String> get(Engine engine, String path, String cookie) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(engine.url() + path)).timeout(Duration.ofSeconds(30)).GET();
        if (cookie != null) {
            b.header("Cookie", "mpfl_session=" + cookie);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The console's Log out form as a browser sends it from a page of {@code origin} ({@code null}: no page). */
    private static HttpResponse<String> logout(Engine engine, String cookie, String origin) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(engine.url() + "/api/session/logout")).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.noBody());
        if (cookie != null) {
            b.header("Cookie", "mpfl_session=" + cookie);
        }
        if (origin != null) {
            b.header("Origin", origin);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Map<String, String> query(URI uri) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String pair : uri.getRawQuery().split("&")) {
            int eq = pair.indexOf('=');
            m.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return m;
    }

    private Optional<ConsoleSessionStore.StoredSession> stored(String cookie) throws Exception {
        try (EngineDatabase db = EngineDatabase.openEmbedded(dir)) {
            return db.consoleSessions().find(sha256(cookie));
        }
    }

    /**
     * The row is found by the SHA-256 of the cookie's value; neither that value nor a token (whose
     * first part is {@code jwtHeader}, the same for every token of the issuer) is in the store's files.
     */
    private void assertStoreHoldsNoSecret(String cookie, String jwtHeader) throws Exception {
        ConsoleSessionStore.StoredSession row = stored(cookie).orElseThrow(() -> new AssertionError("no stored session"));
        assertNotNull(row.tokens());
        // the tokens' common header, not any "eyJ": three given characters turn up in a random base64 ciphertext of n
        // characters with a chance of about n / 262,144 (this check once failed so on a correctly encrypted row)
        assertFalse(row.tokens().contains(jwtHeader) || row.tokens().contains(cookie), "the tokens are stored encrypted");
        try (var files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String bytes = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                assertFalse(bytes.contains(cookie), "the session id is in " + f);
                assertFalse(bytes.contains(jwtHeader), "a token is in " + f);
            }
        }
    }

    private static String sha256(String s) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    }
}
