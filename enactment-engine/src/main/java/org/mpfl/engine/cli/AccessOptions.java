package org.mpfl.engine.cli;

import java.net.URI;
import java.time.Duration;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.access.OidcSettings;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.UsageException;

/**
 * The engine's access options, declared once: the OpenID Connect issuer it trusts and how its tokens
 * are read, anonymous reads, and how long the audit trail is kept (docs/security.md, "Users, roles and
 * projects").
 */
final class AccessOptions {
    private AccessOptions() {
    }

    /** {@code --oidc-issuer URL --oidc-audience A [--oidc-alg ALG] [claims] [--anonymous-read] [--audit-retention-days D]}. */
    static ArgumentSpec serving(ArgumentSpec spec) {
        return spec
                .value("--oidc-issuer", "URL", "the one OpenID Connect issuer whose users the engine accepts")
                .value("--oidc-audience", "A", "what the tokens' aud must contain (with --oidc-issuer)")
                .value("--oidc-alg", "ALG", "RS256", "the only signature algorithm accepted (never taken from a token)")
                .value("--oidc-user-claim", "C", "preferred_username", "the claim naming the user (else sub)")
                .value("--oidc-roles-claim", "C", "roles", "the claim listing roles (dotted path, e.g. realm_access.roles)")
                .value("--oidc-role-prefix", "P", "", "what role values start with (P + viewer/operator/admin)")
                .value("--oidc-projects-claim", "C", "groups", "the claim listing the user's projects")
                .value("--oidc-client-id", "ID", "the public client the console logs in with")
                .flag("--anonymous-read", "serve reads without a credential on a non-loopback address too (prints a warning)")
                .value("--audit-retention-days", "D", "90", "how long the audit trail keeps an entry");
    }

    /** Applies the options to an engine's configuration. */
    static EngineConfig apply(Arguments a, EngineConfig config) throws UsageException {
        if (a.has("--oidc-issuer") != a.has("--oidc-audience")) {
            throw new UsageException("--oidc-issuer and --oidc-audience go together");
        }
        if (a.has("--oidc-issuer")) {
            URI issuer;
            try {
                issuer = URI.create(a.value("--oidc-issuer"));
            } catch (IllegalArgumentException e) {
                throw new UsageException("--oidc-issuer: not a URL: " + e.getMessage());
            }
            if (!"https".equals(issuer.getScheme()) && !"http".equals(issuer.getScheme())) {
                throw new UsageException("--oidc-issuer must be an http(s) URL, got '" + issuer + "'");
            }
            config.oidc(OidcSettings.of(issuer, a.value("--oidc-audience")).withAlgorithm(a.value("--oidc-alg"))
                    .withClaims(a.value("--oidc-user-claim"), a.value("--oidc-roles-claim"), a.value("--oidc-role-prefix"),
                            a.value("--oidc-projects-claim"))
                    .withConsoleClientId(a.value("--oidc-client-id")));
        }
        int days = a.intValue("--audit-retention-days");
        if (days < 1) {
            throw new UsageException("--audit-retention-days must be at least 1");
        }
        return config.anonymousRead(a.has("--anonymous-read")).auditRetention(Duration.ofDays(days));
    }
}
