package org.mpfl.engine.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine's token verification against a real issuer over HTTP ({@link TestIssuer}): each token
 * is accepted or refused as it must be, and key rotation at the issuer is followed.
 */
@Timeout(60)
class OidcVerifierTest {
    private TestIssuer issuer;
    private OidcVerifier verifier;

    @BeforeEach
    void start() throws Exception {
        issuer = TestIssuer.start();
        // no rate limit between key-set fetches here, so the rotation test needs no wait
        verifier = new OidcVerifier(OidcSettings.of(issuer.issuer(), "mpfl-engine").withJwksRefetchMin(Duration.ZERO));
    }

    @AfterEach
    void stop() {
        issuer.close();
    }

    @Test
    void aValidTokenPerRoleGivesThatRoleAndTheProjects() throws Exception {
        for (Role role : Role.values()) {
            Caller c = verifier.verify(issuer.token("u-" + role, role.name().toLowerCase(), "/a", "b"));
            assertEquals(role, c.role());
            assertEquals("u-" + role, c.name());
            assertEquals(Set.of("a", "b"), c.projects(), "a leading / of a group path is dropped");
            assertEquals(role == Role.ADMIN, c.allProjects(), "only admins see every project");
            assertEquals(Caller.Kind.USER, c.kind());
        }
    }

    @Test
    void expiredAndNotYetValidTokensAreRefusedBeyondTheSkew() throws Exception {
        Instant now = Instant.now();
        assertRefused(issuer.token(b -> b.expirationTime(Date.from(now.minusSeconds(120)))), "the token has expired (at ");
        assertRefused(issuer.token(b -> b.notBeforeTime(Date.from(now.plusSeconds(120)))), "the token is not valid yet");
        // within the 30 s skew both are accepted: the bound is the skew, not an accident of timing
        assertEquals(Role.OPERATOR, verifier.verify(issuer.token(b -> b.expirationTime(Date.from(now.minusSeconds(5))))).role());
        assertEquals(Role.OPERATOR, verifier.verify(issuer.token(b -> b.notBeforeTime(Date.from(now.plusSeconds(5))))).role());
        assertRefused(issuer.token(b -> b.expirationTime(null)), "the token lacks the claims [exp]");
    }

    @Test
    void wrongAudienceAndWrongIssuerAreRefused() throws Exception {
        assertRefused(issuer.token(b -> b.audience("another-service")), "the token's audience [another-service] does not include 'mpfl-engine'");
        assertRefused(issuer.token(b -> b.audience(List.of())), "the token's audience [] does not include 'mpfl-engine'");
        assertRefused(issuer.token(b -> b.issuer(issuer.issuer() + "-evil")), "the token's issuer '" + issuer.issuer() + "-evil' is not this engine's issuer");
    }

    @Test
    void algNoneAndAlgorithmConfusionAreRefused() throws Exception {
        JWTClaimsSet good = issuer.claims("mallory", "admin", "a").build();
        assertRefused(new PlainJWT(good).serialize(), "unsigned token (alg none) refused");
        // HS256 with the issuer's public key as the MAC secret: the classic confusion attack
        SignedJWT hs = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(issuer.key().getKeyID()).build(), good);
        hs.sign(new MACSigner(issuer.key().toPublicJWK().toRSAPublicKey().getEncoded()));
        assertRefused(hs.serialize(), "signed with a key the issuer does not publish, or with another algorithm than RS256");
        // the control: the same claims signed properly pass
        assertEquals(Role.ADMIN, verifier.verify(TestIssuer.sign(good, issuer.key())).role());
    }

    @Test
    void aTokenSignedWithAnUnknownKeyIsRefused() throws Exception {
        JWTClaimsSet good = issuer.claims("mallory", "admin", "a").build();
        assertRefused(TestIssuer.sign(good, TestIssuer.newKey()), "signed with a key the issuer does not publish");
        // a stranger's key under the issuer's own key id
        RSAKey forged = new com.nimbusds.jose.jwk.gen.RSAKeyGenerator(2048).keyID(issuer.key().getKeyID()).generate();
        assertRefused(TestIssuer.sign(good, forged), "the token's signature does not verify with the issuer's key");
    }

    @Test
    void keysRotatedAtTheIssuerAreFollowed() throws Exception {
        String before = issuer.token("alice", "viewer", "a");
        assertEquals(Role.VIEWER, verifier.verify(before).role());
        int fetches = issuer.jwksFetches();
        RSAKey old = issuer.rotate();
        // a token of the new key: the cache lacks its key id, so the verifier fetches the key set again
        assertEquals(Role.VIEWER, verifier.verify(issuer.token("alice", "viewer", "a")).role());
        assertTrue(issuer.jwksFetches() > fetches, "the key set was fetched again");
        // the retired key is gone from the key set the verifier now holds
        assertRefused(TestIssuer.sign(issuer.claims("alice", "viewer", "a").build(), old), "");
    }

    /**
     * A token of a key the cached set lacks while the issuer is down: the verifier cannot tell a rotated key
     * from a forged one, so it says the issuer is unavailable (503: try again), not that the token is bad (401).
     * A token of a cached key still passes meanwhile.
     */
    @Test
    void aTokenOfAnUncachedKeyWhileTheIssuerIsDownIsUnavailableNotRefused() throws Exception {
        String cached = issuer.token("alice", "viewer", "a");
        assertEquals(Role.VIEWER, verifier.verify(cached).role());
        issuer.rotate();
        String rotated = issuer.token("alice", "viewer", "a");
        issuer.close();
        OidcVerifier.TokenRefused e = assertThrows(OidcVerifier.TokenRefused.class, () -> verifier.verify(rotated));
        assertTrue(e.unavailable(), e.getMessage());
        assertTrue(e.getMessage().contains("could not be reached to fetch the key this token is signed with"), e.getMessage());
        assertEquals(Role.VIEWER, verifier.verify(cached).role(), "a cached key is still good while the issuer is down");
    }

    @Test
    void aTokenWithoutAnMpflRoleIsRefused() throws Exception {
        assertRefused(issuer.token(b -> b.claim("roles", List.of("offline_access"))), "no MPFL role");
    }

    @Test
    void keycloakStyleClaimsAreReadThroughDottedPaths() throws Exception {
        OidcVerifier kc = new OidcVerifier(OidcSettings.of(issuer.issuer(), "mpfl-engine")
                .withClaims("preferred_username", "resource_access.mpfl-engine.roles", "mpfl-", "groups"));
        String t = issuer.token(b -> b.claim("roles", null)
                .claim("resource_access", java.util.Map.of("mpfl-engine", java.util.Map.of("roles", List.of("mpfl-operator")))));
        assertEquals(Role.OPERATOR, kc.verify(t).role());
    }

    @Test
    void anUnreachableIssuerIsReportedAsUnavailableNotAsABadToken() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        OidcVerifier gone = new OidcVerifier(OidcSettings.of(URI.create("http://127.0.0.1:" + port + "/realms/x"), "mpfl-engine"));
        OidcVerifier.TokenRefused e = assertThrows(OidcVerifier.TokenRefused.class, () -> gone.verify(issuer.token("a", "admin")));
        assertTrue(e.unavailable(), e.getMessage());
        OidcVerifier.TokenRefused bad = assertThrows(OidcVerifier.TokenRefused.class, () -> verifier.verify("a.b.c"));
        assertFalse(bad.unavailable());
    }

    /** In plain words, never the JWT library's ("JWT aud claim rejected", "extend class to handle"). */
    private void assertRefused(String token, String reasonContains) {
        OidcVerifier.TokenRefused e = assertThrows(OidcVerifier.TokenRefused.class, () -> verifier.verify(token));
        assertFalse(e.unavailable(), e.getMessage());
        assertTrue(e.getMessage().contains(reasonContains), e.getMessage());
        assertFalse(e.getMessage().contains("JWT") || e.getMessage().contains("extend class"), e.getMessage());
    }
}
