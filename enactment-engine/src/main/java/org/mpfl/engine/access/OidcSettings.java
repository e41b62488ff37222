package org.mpfl.engine.access;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * The one OpenID Connect issuer the engine trusts and how its tokens are read.
 *
 * @param issuer          the issuer URL ({@code iss} must equal it; discovery at {@code ISSUER/.well-known/openid-configuration})
 * @param audience        what {@code aud} must contain
 * @param algorithm       the only JWS algorithm accepted (e.g. {@code RS256}); never taken from the token
 * @param userClaim       the claim naming the user (falls back to {@code sub})
 * @param rolesClaim      the claim listing roles; a dotted path reaches into objects ({@code realm_access.roles})
 * @param rolePrefix      what role values start with ({@code ""}: the values are {@code viewer}, {@code operator}, {@code admin})
 * @param projectsClaim   the claim listing the user's projects (groups; a leading {@code /} is dropped)
 * @param clockSkew       tolerance on {@code exp} and {@code nbf}
 * @param jwksRefetchMin  the shortest time between two fetches of the key set (a token naming an unknown key fetches
 *                        it again, so a stranger cannot make the engine hammer the issuer)
 * @param consoleClientId the public client the console logs in with ({@code null}: no console login)
 */
public record OidcSettings(URI issuer, String audience, String algorithm, String userClaim, String rolesClaim, String rolePrefix,
                           String projectsClaim, Duration clockSkew, Duration jwksRefetchMin, String consoleClientId) {
    public OidcSettings {
        Objects.requireNonNull(issuer, "issuer");
        Objects.requireNonNull(audience, "audience");
        Objects.requireNonNull(algorithm, "algorithm");
    }

    /** The defaults for an issuer and audience: RS256, {@code preferred_username}, {@code roles}, {@code groups}, 30 s skew. */
    public static OidcSettings of(URI issuer, String audience) {
        return new OidcSettings(issuer, audience, "RS256", "preferred_username", "roles", "", "groups", Duration.ofSeconds(30),
                Duration.ofSeconds(10), null);
    }

    public OidcSettings withClaims(String user, String roles, String prefix, String projects) {
        return new OidcSettings(issuer, audience, algorithm, user, roles, prefix, projects, clockSkew, jwksRefetchMin, consoleClientId);
    }

    public OidcSettings withAlgorithm(String alg) {
        return new OidcSettings(issuer, audience, alg, userClaim, rolesClaim, rolePrefix, projectsClaim, clockSkew, jwksRefetchMin,
                consoleClientId);
    }

    public OidcSettings withJwksRefetchMin(Duration d) {
        return new OidcSettings(issuer, audience, algorithm, userClaim, rolesClaim, rolePrefix, projectsClaim, clockSkew, d,
                consoleClientId);
    }

    public OidcSettings withConsoleClientId(String id) {
        return new OidcSettings(issuer, audience, algorithm, userClaim, rolesClaim, rolePrefix, projectsClaim, clockSkew,
                jwksRefetchMin, id);
    }
}
