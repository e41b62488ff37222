package org.mpfl.engine.access;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jose.util.JSONObjectUtils;
import com.nimbusds.jose.util.ResourceRetriever;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.ConfigurableJWTProcessor;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.text.ParseException;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Verifies bearer JWTs of the one configured OpenID Connect issuer with nimbus-jose-jwt: the issuer's
 * key set (JWKS, found through its discovery document) is cached and fetched again when a token names
 * a key the cache lacks (rotation), at most once per {@link OidcSettings#jwksRefetchMin}; the accepted
 * JWS algorithm is the configured one only (a token's own {@code alg}, {@code none} included, chooses
 * nothing); {@code iss} must equal the issuer, {@code aud} contain the audience, {@code exp} lie ahead
 * and {@code nbf} behind, within the clock skew. Roles and projects come from the configured claims.
 *
 * <p>Blocking: a verification may fetch the discovery document or the key set (each bounded by 5 s
 * connect and 5 s read); call it off the event loop. While the issuer cannot be reached, tokens whose
 * key is cached are still verified (for up to an hour); others are refused as {@linkplain TokenRefused#unavailable
 * unavailable}, and discovery is tried again at most every 10 s.
 */
public final class OidcVerifier {
    private static final int HTTP_TIMEOUT_MS = 5_000;
    private static final int HTTP_SIZE_LIMIT = 512 * 1024;
    private static final long DISCOVERY_RETRY_MS = 10_000;

    private final OidcSettings settings;
    private final ResourceRetriever http = new DefaultResourceRetriever(HTTP_TIMEOUT_MS, HTTP_TIMEOUT_MS, HTTP_SIZE_LIMIT);
    private volatile ConfigurableJWTProcessor<SecurityContext> processor;
    private volatile Map<String, Object> discovery;
    private long nextDiscoveryMs;

    public OidcVerifier(OidcSettings settings) {
        this.settings = settings;
    }

    public OidcSettings settings() {
        return settings;
    }

    /** A token the engine does not accept, and why (the reason is safe to show the client). */
    public static final class TokenRefused extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean unavailable;

        TokenRefused(String reason, boolean unavailable) {
            super(reason);
            this.unavailable = unavailable;
        }

        /** Whether the issuer could not be reached (the token may be fine: try again later). */
        public boolean unavailable() {
            return unavailable;
        }
    }

    /** The caller a token proves, or why it proves nothing. */
    public Caller verify(String jwt) throws TokenRefused {
        JWTClaimsSet claims;
        Verification verification = new Verification();
        try {
            claims = processor().process(jwt, verification);
        } catch (com.nimbusds.jose.jwk.source.RateLimitReachedException e) {
            // the key set was fetched again moments ago and lacks this token's key: not an issuer out of reach (503 with
            // "cannot be fetched: null" it was, for the second forged token within 10 s), but a key it does not publish
            throw new TokenRefused("signed with a key the issuer does not publish, or with another algorithm than " + settings.algorithm()
                    + " (its key set was fetched less than " + settings.jwksRefetchMin().toSeconds() + " s ago; a key it has just"
                    + " rotated to is found once that has passed)", false);
        } catch (KeySourceException e) {
            throw new TokenRefused("the issuer's keys cannot be fetched: " + e.getMessage(), true);
        } catch (ParseException e) {
            throw new TokenRefused("not a JWT: " + e.getMessage(), false);
        } catch (BadJOSEException | com.nimbusds.jose.JOSEException e) {
            if (verification.issuerUnreachable) {
                // the key set was to be fetched again for this token (its key is not among the cached ones), and the
                // issuer did not answer: the token may be signed with a key the issuer has just rotated to
                throw new TokenRefused("the OIDC issuer " + settings.issuer() + " could not be reached to fetch the key"
                        + " this token is signed with; try again shortly", true);
            }
            throw new TokenRefused(refusal(jwt, e), false);
        }
        String user = Caller.userName(Optional.ofNullable(stringClaim(claims, settings.userClaim())).filter(n -> !n.isBlank())
                .orElse(claims.getSubject()));
        Role role = null;
        for (String v : values(claims, settings.rolesClaim())) {
            Optional<Role> r = Role.named(v, settings.rolePrefix());
            if (r.isPresent() && (role == null || r.get().includes(role))) {
                role = r.get();
            }
        }
        if (role == null) {
            throw new TokenRefused("the token names no MPFL role in claim '" + settings.rolesClaim() + "'", false);
        }
        Set<String> projects = new LinkedHashSet<>();
        for (String v : values(claims, settings.projectsClaim())) {
            String p = v.startsWith("/") ? v.substring(1) : v;
            if (!p.isBlank()) {
                projects.add(p);
            }
        }
        return new Caller(user, Caller.Kind.USER, role, projects, role == Role.ADMIN,
                claims.getExpirationTime() == null ? 0 : claims.getExpirationTime().getTime());
    }

    /**
     * One token's verification, as nimbus hands it to the key source: marked when the key set was to be fetched
     * again during it and the issuer did not answer (the outage-tolerant source then serves its cached keys).
     */
    private static final class Verification implements SecurityContext {
        volatile boolean issuerUnreachable;
    }

    /**
     * Why nimbus refused a token, in words its holder can act on: nimbus names its own check ("JWT aud
     * claim rejected", "Another algorithm expected, or no matching key(s) found"), not what was expected.
     * The token's own claims, read unverified, are the caller's to see.
     */
    private String refusal(String jwt, Exception e) {
        String said = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        JWTClaimsSet claims = null;
        try {
            claims = com.nimbusds.jwt.JWTParser.parse(jwt).getJWTClaimsSet();
        } catch (ParseException | RuntimeException unreadable) {
            // the words of nimbus are all there is
        }
        if (said.startsWith("Unsecured (plain)") || said.startsWith("Plain JWT")) {
            return "unsigned token (alg none) refused";
        }
        if (said.startsWith("Encrypted JWT")) {
            return "encrypted tokens (JWE) are not accepted: the issuer must sign the access token (" + settings.algorithm() + ")";
        }
        if (said.contains("no matching key(s) found") || said.contains("No matching verifier")) {
            return "signed with a key the issuer does not publish, or with another algorithm than " + settings.algorithm();
        }
        if (said.contains("Invalid signature")) {
            return "the token's signature does not verify with the issuer's key (altered or forged)";
        }
        if (said.contains("aud claim")) {
            List<String> aud = claims == null || claims.getAudience() == null ? List.of() : claims.getAudience();
            return "the token's audience " + aud + " does not include '" + settings.audience() + "'";
        }
        if (said.contains("iss claim")) {
            return "the token's issuer '" + (claims == null ? null : claims.getIssuer()) + "' is not this engine's issuer '"
                    + settings.issuer() + "'";
        }
        if (said.equals("Expired JWT")) {
            return "the token has expired" + (claims == null || claims.getExpirationTime() == null ? ""
                    : " (at " + claims.getExpirationTime().toInstant() + ")");
        }
        if (said.equals("JWT before use time")) {
            return "the token is not valid yet" + (claims == null || claims.getNotBeforeTime() == null ? ""
                    : " (not before " + claims.getNotBeforeTime().toInstant() + ")");
        }
        if (said.startsWith("JWT missing required claims")) {
            return "the token lacks the claims " + said.substring(said.indexOf(':') + 1).strip();
        }
        if (said.startsWith("Payload of JWS object")) {
            return "not a JWT: its payload is not a JSON object of claims";
        }
        if (said.startsWith("JOSE header typ") || said.startsWith("Required JOSE header typ")) {
            return "not an access token: its header's typ is neither JWT nor at+jwt";
        }
        return "token refused: " + said;
    }

    /** The issuer's discovery document (fetched on first use), for the command line's and console's flows. */
    public Map<String, Object> discovery() throws TokenRefused {
        processor();
        return discovery;
    }

    private ConfigurableJWTProcessor<SecurityContext> processor() throws TokenRefused {
        ConfigurableJWTProcessor<SecurityContext> p = processor;
        if (p != null) {
            return p;
        }
        synchronized (this) {
            if (processor != null) {
                return processor;
            }
            long now = System.currentTimeMillis();
            if (now < nextDiscoveryMs) {
                throw new TokenRefused("the OIDC issuer " + settings.issuer() + " could not be reached; retrying shortly", true);
            }
            nextDiscoveryMs = now + DISCOVERY_RETRY_MS;
            Map<String, Object> doc = fetchDiscovery();
            processor = build(doc);
            discovery = doc;
            return processor;
        }
    }

    private Map<String, Object> fetchDiscovery() throws TokenRefused {
        String issuer = settings.issuer().toString();
        URI where = URI.create((issuer.endsWith("/") ? issuer : issuer + "/") + ".well-known/openid-configuration");
        Map<String, Object> doc;
        try {
            doc = JSONObjectUtils.parse(http.retrieveResource(where.toURL()).getContent());
        } catch (IOException | ParseException e) {
            throw new TokenRefused("the OIDC issuer " + issuer + " could not be reached: " + e.getMessage(), true);
        }
        if (!issuer.equals(doc.get("issuer"))) {
            // OpenID Connect Discovery 1.0, 4.3: the document must name the issuer it was fetched for
            throw new TokenRefused("the discovery document of " + issuer + " names issuer '" + doc.get("issuer") + "'", true);
        }
        if (!(doc.get("jwks_uri") instanceof String)) {
            throw new TokenRefused("the discovery document of " + issuer + " has no jwks_uri", true);
        }
        return doc;
    }

    private ConfigurableJWTProcessor<SecurityContext> build(Map<String, Object> doc) throws TokenRefused {
        URL jwks;
        try {
            jwks = URI.create((String) doc.get("jwks_uri")).toURL();
        } catch (IOException | IllegalArgumentException e) {
            throw new TokenRefused("the issuer's jwks_uri is not a URL: " + e.getMessage(), true);
        }
        long refetch = settings.jwksRefetchMin().toMillis();
        JWKSourceBuilder<SecurityContext> b = JWKSourceBuilder.<SecurityContext>create(jwks, http)
                .cache(TimeUnit.MINUTES.toMillis(5), HTTP_TIMEOUT_MS * 2L)
                .outageTolerant(TimeUnit.HOURS.toMillis(1), event -> {
                    if (event.getContext() instanceof Verification v) {
                        v.issuerUnreachable = true;
                    }
                })
                .retrying(false);
        b = refetch > 0 ? b.rateLimited(refetch) : b.rateLimited(false);
        JWKSource<SecurityContext> keys = b.build();
        ConfigurableJWTProcessor<SecurityContext> p = new DefaultJWTProcessor<>();
        p.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(JOSEObjectType.JWT, new JOSEObjectType("at+jwt"), null));
        p.setJWSKeySelector(new JWSVerificationKeySelector<>(JWSAlgorithm.parse(settings.algorithm()), keys));
        DefaultJWTClaimsVerifier<SecurityContext> claims = new DefaultJWTClaimsVerifier<>(Set.of(settings.audience()),
                new JWTClaimsSet.Builder().issuer(settings.issuer().toString()).build(), Set.of("sub", "exp"), null);
        claims.setMaxClockSkew((int) settings.clockSkew().toSeconds());
        p.setJWTClaimsSetVerifier(claims);
        return p;
    }

    private static String stringClaim(JWTClaimsSet claims, String path) {
        List<String> v = values(claims, path);
        return v.isEmpty() ? null : v.get(0);
    }

    /** The string values at a dotted claim path: one string, or the strings of a list. */
    static List<String> values(JWTClaimsSet claims, String path) {
        if (path == null || path.isBlank()) {
            return List.of();
        }
        Object v = claims.getClaims();
        for (String part : path.split("\\.")) {
            if (!(v instanceof Map<?, ?> m)) {
                return List.of();
            }
            v = m.get(part);
        }
        if (v instanceof String s) {
            return List.of(s);
        }
        if (v instanceof Collection<?> c) {
            return c.stream().filter(String.class::isInstance).map(String.class::cast).toList();
        }
        return List.of();
    }
}
