package org.mpfl.engine.rest;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Set;
import java.util.regex.Pattern;
import org.mpfl.engine.registry.HostCredentials;

/**
 * Refuses a mutating REST request that carries neither the admin token nor a valid host credential
 * before its body is read: the routes' own checks run after the platform has buffered the body (up
 * to its size limit), so without this an anonymous client could make the engine allocate that much
 * per request. Authenticated requests go on to the routes, which decide what the credential may do
 * (401/403 there). Rank events are the one exception: they are authorised by the run's unguessable
 * domain ID, which is in their body.
 */
public final class EarlyAuthorization {
    private static final Set<HttpMethod> READS = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS);
    private static final Pattern RANK_EVENTS = Pattern.compile("^/api/runs/[^/]+/ranks/events/?$");

    private EarlyAuthorization() {
    }

    /** Installs the check in front of every {@code /api/} route of {@code router}. */
    public static void install(Router router, String adminToken, HostCredentials credentials) {
        byte[] admin = ("Bearer " + adminToken).getBytes(StandardCharsets.UTF_8);
        router.route("/api/*").order(-1000).handler(ctx -> {
            if (READS.contains(ctx.request().method()) || RANK_EVENTS.matcher(ctx.normalizedPath()).matches()) {
                ctx.next();
                return;
            }
            String auth = ctx.request().getHeader("Authorization");
            boolean known = auth != null && (MessageDigest.isEqual(auth.strip().getBytes(StandardCharsets.UTF_8), admin)
                    || credentials.authenticate(auth).isPresent());
            if (known) {
                ctx.next();
                return;
            }
            ctx.response().setStatusCode(401).putHeader("Content-Type", "application/json")
                    .putHeader("WWW-Authenticate", "Bearer realm=\"mpfl-engine\"").putHeader("Connection", "close")
                    .end("{\"error\":\"" + (auth == null ? "this request needs 'Authorization: Bearer <engine token>'"
                            : "wrong engine token") + "\"}\n");
        });
    }
}
