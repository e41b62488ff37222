package org.mpfl.engine.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.nimbusds.jwt.PlainJWT;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mpfl.engine.Engine;
import org.mpfl.testing.Http;

/**
 * Every way a bearer credential can fail, sent over real HTTP to a real engine with a real issuer
 * ({@link TestIssuer}): each is a 401 with a JSON reason and the challenge RFC 6750 (section 3) describes — a
 * request without a credential gets {@code Bearer realm=…} alone, one whose token failed also
 * {@code error="invalid_token"} and the reason as {@code error_description} — never a 500 or a stack trace; a role
 * too low is 403 with {@code error="insufficient_scope"}.
 */
@Timeout(120)
class BearerRefusalsTest {
    @TempDir
    Path dir;
    TestIssuer issuer;
    Engine engine;

    @BeforeEach
    void start() throws Exception {
        issuer = TestIssuer.start();
        engine = Engine.start(issuer.engineConfig(dir));
    }

    @AfterEach
    void stop() {
        engine.close();
        issuer.close();
    }

    private static String b64(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    /** Tokens that were sent and prove nothing, each with the words its refusal must contain. */
    private Map<String, String> badTokens() throws Exception {
        Instant past = Instant.now().minusSeconds(3600);
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put(issuer.token(b -> b.issueTime(Date.from(past.minusSeconds(300))).notBeforeTime(Date.from(past.minusSeconds(300)))
                .expirationTime(Date.from(past))), "the token has expired");
        bad.put(issuer.token(b -> b.issuer(issuer.issuer() + "-other")), "is not this engine's issuer");
        bad.put(issuer.token(b -> b.audience("another-service")), "does not include 'mpfl-engine'");
        bad.put(TestIssuer.sign(issuer.claims("alice", "operator", "a").build(), TestIssuer.newKey()), "a key the issuer does not publish");
        bad.put(new PlainJWT(issuer.claims("alice", "admin").build()).serialize(), "alg none");
        bad.put(issuer.token(b -> b.claim("roles", List.of("superuser"))), "names no MPFL role");
        // garbled: three dot-separated parts that are no JWT, a header that is not JSON, a payload that is not an object
        bad.put("a.b.c", "not a JWT");
        bad.put(b64("{\"alg\":") + "." + b64("{}") + ".x", "not a JWT");
        bad.put(b64("{\"alg\":\"RS256\",\"typ\":\"JWT\"}") + "." + b64("[1,2]") + ".x", "not a JWT");
        bad.put(b64("{\"alg\":\"RS256\",\"typ\":\"JWT\"}") + "." + b64("{\"sub\":42,\"exp\":\"soon\"}") + ".x", "member exp");
        return bad;
    }

    private void assertInvalidToken(Http.Answer a, String what, String reason) {
        assertEquals(401, a.status(), what + ": " + a.body());
        assertTrue(a.body().contains(reason), what + ": the reason '" + reason + "' is said: " + a.body());
        assertFalse(a.body().contains("Exception") || a.body().contains("\tat ") || a.body().contains("nimbus"),
                what + ": no stack trace or library internals: " + a.body());
        String challenge = a.header("WWW-Authenticate").orElse("");
        assertTrue(challenge.startsWith("Bearer realm=\"mpfl-engine\""), what + ": " + challenge);
        assertTrue(challenge.contains("error=\"invalid_token\""), what + ": RFC 6750 3.1 names the error: " + challenge);
        assertTrue(challenge.contains("error_description=\""), what + ": and describes it: " + challenge);
    }

    @Test
    void everyRefusedTokenIsA401WithAnRfc6750ChallengeAndItsReason() throws Exception {
        for (Map.Entry<String, String> bad : badTokens().entrySet()) {
            String auth = "Bearer " + bad.getKey();
            String what = bad.getValue();
            assertInvalidToken(Http.send("GET", engine.url() + "/api/runs", auth, null), "GET " + what, what);
            assertInvalidToken(Http.send("POST", engine.url() + "/api/runs", auth, Map.of()), "POST " + what, what);
            assertInvalidToken(Http.send("GET", engine.url() + "/api/auth", auth, null), "GET /api/auth " + what, what);
            assertInvalidToken(Http.send("POST", engine.url() + "/api/registry/credentials", auth, Map.of("hostId", "x")),
                    "credentials " + what, what);
        }
        // nothing was created by any of them
        assertEquals(0, Http.send("GET", engine.url() + "/api/runs", "Bearer admin-token", null).json().size());
    }

    @Test
    void aMissingOrGarbledAuthorizationHeaderIsA401WithAChallenge() throws Exception {
        Http.Answer none = Http.send("GET", engine.url() + "/api/runs", null, null);
        assertEquals(401, none.status(), none.body());
        // no credential at all: the bare challenge (RFC 6750 3.1: no error code when the request carried none)
        assertEquals("Bearer realm=\"mpfl-engine\"", none.header("WWW-Authenticate").orElse(""));
        assertTrue(none.body().contains("needs 'Authorization: Bearer <token>'"), none.body());
        for (String garbled : List.of("Bearer", "Bearer ", "Basic YWxpY2U6c2VjcmV0", "Token abc", "Bearer two words",
                "Bearer \u00e9t\u00e9", "Bearer ......")) {
            Http.Answer a = Http.send("GET", engine.url() + "/api/runs", garbled, null);
            assertEquals(401, a.status(), garbled + ": " + a.body());
            assertTrue(a.header("WWW-Authenticate").orElse("").startsWith("Bearer realm=\"mpfl-engine\""), garbled);
            assertFalse(a.body().contains("Exception"), garbled + ": " + a.body());
            assertTrue(a.json().get("error").asText().length() > 0, garbled + ": " + a.body());
        }
        // the scheme's name is case-insensitive (RFC 7235 2.1)
        Http.Answer lower = Http.send("GET", engine.url() + "/api/runs", "bearer " + issuer.token("vera", "viewer", "a"), null);
        assertEquals(200, lower.status(), lower.body());
    }

    @Test
    void aRoleTooLowIs403WithAnInsufficientScopeChallenge() throws Exception {
        Http.Answer a = Http.send("POST", engine.url() + "/api/runs", "Bearer " + issuer.token("vera", "viewer", "a"), Map.of());
        assertEquals(403, a.status(), a.body());
        assertTrue(a.body().contains("needs the operator role; vera is viewer"), a.body());
        String challenge = a.header("WWW-Authenticate").orElse("");
        assertTrue(challenge.startsWith("Bearer realm=\"mpfl-engine\"") && challenge.contains("error=\"insufficient_scope\""), challenge);
    }

    /**
     * Service archives are code for every host: admins only. The route table lets an operator start a run or store a
     * workflow, and the route itself refuses the archives it sends (the body tells); that 403 carries the same
     * challenge as the access filter's (a viewer asking the admin-only archive upload), not a bare 403.
     */
    @Test
    void aRefusedArchiveIs403WithAnInsufficientScopeChallengeAsEveryRoleTooLow() throws Exception {
        Map<String, Object> archive = Map.of("service", "Ring", "archive", Base64.getEncoder().encodeToString(new byte[] {1}));
        Http.Answer viewer = Http.send("POST", engine.url() + "/api/deployments", "Bearer " + issuer.token("vera", "viewer", "a"),
                archive);
        assertInsufficientScope(viewer, "needs the admin role; vera is viewer");
        String olga = "Bearer " + issuer.token("olga", "operator", "a");
        Map<String, Object> plan = Map.of("workflow", "ring", "processes", List.of(Map.of("name", "ring", "ranks", 1)));
        assertInsufficientScope(Http.send("POST", engine.url() + "/api/runs", olga, Map.of("plan", plan, "archives", List.of(archive))),
                "sending service archives (code for the hosts) needs the admin role; olga is operator");
        assertInsufficientScope(Http.send("POST", engine.url() + "/api/workflows", olga,
                Map.of("name", "w", "plan", plan, "archives", List.of(archive))),
                "sending service archives (code for the hosts) needs the admin role; olga is operator");
    }

    private static void assertInsufficientScope(Http.Answer a, String says) throws Exception {
        assertEquals(403, a.status(), a.body());
        assertTrue(a.body().contains(says), a.body());
        assertEquals(AccessDenied.challenge(AccessDenied.INSUFFICIENT_SCOPE, a.json().get("error").asText()),
                a.header("WWW-Authenticate").orElse(""), a.headers().toString());
    }
}
