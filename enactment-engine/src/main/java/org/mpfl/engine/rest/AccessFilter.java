package org.mpfl.engine.rest;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import org.apache.camel.Exchange;
import org.mpfl.engine.access.AccessDenied;
import org.mpfl.engine.access.AccessPolicy;
import org.mpfl.engine.access.Audit;
import org.mpfl.engine.access.Caller;
import org.mpfl.engine.access.ConsoleSessions;
import org.mpfl.engine.access.OidcVerifier;
import org.mpfl.engine.store.AccessStore;
import org.mpfl.protocol.EngineRefusal;

/**
 * The one access check in front of every {@code /api/} route (Camel's REST routes and the Vert.x ones
 * alike): classifies the request by method and path ({@link AccessPolicy#target}), authenticates its
 * {@code Authorization} header and applies the policy before any of its body is read, so a refused
 * request costs no more than its head; admitted requests go on with their {@link Caller} attached as
 * the Vert.x user, which Camel hands to the routes ({@link #caller}). Authentication can block (a
 * token's key set, a run's owner), so it runs on a worker thread, never on the event loop. Mutations of
 * authenticated callers go to the {@link Audit} trail once answered. Also serves {@code GET /api/audit}
 * (admins: {@code ?after=ID&limit=N}).
 */
public final class AccessFilter {
    /** The Camel header platform-http puts the Vert.x user in. */
    private static final String USER_HEADER = "CamelVertxPlatformHttpAuthenticatedUser";

    private AccessFilter() {
    }

    /**
     * Installs the check in front of every {@code /api/} route of {@code router}, the audit route and,
     * with {@code sessions}, the console's login routes ({@code GET /api/session/login}, {@code callback},
     * {@code POST logout}; {@link ConsoleSessions}).
     *
     * @param url the engine's public base URL (the console's login comes back to it)
     */
    public static void install(Router router, AccessPolicy policy, Audit audit, AccessStore store, ConsoleSessions sessions,
                               java.util.function.Supplier<String> url) {
        router.route("/api/*").order(-1000).handler(ctx -> admit(ctx, policy, audit, sessions));
        if (sessions != null) {
            installSessions(router, sessions, url);
        }
        router.get("/api/auth").handler(ctx -> ctx.response().putHeader("Content-Type", "application/json")
                .end(authInfo(policy, ctx.user() == null ? Caller.nobody() : Caller.fromPrincipal(ctx.user().principal()), proxied(ctx))
                        .encode()));
        router.get("/api/audit").handler(ctx -> ctx.vertx().executeBlocking(() -> auditPage(ctx, store), false)
                .onComplete(ar -> {
                    if (ar.succeeded()) {
                        ctx.response().putHeader("Content-Type", "application/json").end(ar.result().encode());
                    } else if (ar.cause() instanceof IllegalArgumentException bad) {
                        refuse(ctx, 400, bad.getMessage(), false);
                    } else {
                        // the store failed: its SQL stays in the log
                        refuse(ctx, 500, Incidents.report("audit page", ar.cause()).message(), false);
                    }
                }));
    }

    private static void installSessions(Router router, ConsoleSessions sessions, java.util.function.Supplier<String> url) {
        router.get("/api/session/login").handler(ctx -> ctx.vertx()
                .executeBlocking(() -> sessions.loginRedirect(url.get() + "/api/session/callback", source(ctx)), false)
                .onComplete(ar -> {
                    if (ar.succeeded()) {
                        // Lax, not Strict: the issuer's redirect back to the callback is a cross-site navigation
                        ctx.response().putHeader("Set-Cookie", ConsoleSessions.LOGIN_COOKIE + "=" + ar.result().browser()
                                + "; Path=/api/session/callback; Max-Age=" + ConsoleSessions.LOGIN_SECONDS + "; HttpOnly; SameSite=Lax"
                                + (url.get().startsWith("https:") ? "; Secure" : ""));
                    }
                    redirectOr(ctx, ar.succeeded() ? ar.result().redirect() : null, ar.cause());
                }));
        router.get("/api/session/callback").handler(ctx -> ctx.vertx()
                .executeBlocking(() -> {
                    io.vertx.core.http.Cookie browser = ctx.request().getCookie(ConsoleSessions.LOGIN_COOKIE);
                    return sessions.complete(ctx.request().getParam("state"), ctx.request().getParam("code"),
                            browser == null ? null : browser.getValue(), url.get() + "/api/session/callback");
                }, false)
                .onComplete(ar -> {
                    // added, not put: a successful login sets the session cookie as well
                    ctx.response().headers().add("Set-Cookie", ConsoleSessions.LOGIN_COOKIE + "=; Path=/api/session/callback; Max-Age=0;"
                            + " HttpOnly; SameSite=Lax");
                    if (ar.succeeded()) {
                        ctx.response().headers().add("Set-Cookie", ConsoleSessions.COOKIE + "=" + ar.result()
                                + "; Path=/; HttpOnly; SameSite=Strict" + (url.get().startsWith("https:") ? "; Secure" : ""));
                    }
                    redirectOr(ctx, ar.succeeded() ? url.get() + "/" : null, ar.cause());
                }));
        // POST only, from the console's own page: a GET (an image tag or a link on any site) logged the user out, and a
        // cross-site form's answer would clear the cookie even though SameSite keeps the cookie from being sent with it
        router.post("/api/session/logout").handler(ctx -> {
            if (!ctx.request().isEnded()) {
                // paused by the filter until admitted; a logout reads nothing of its body
                ctx.request().resume();
            }
            if (foreignOrigin(ctx)) {
                refuse(ctx, 403, "log out from the console's own page", true);
                return;
            }
            io.vertx.core.http.Cookie c = ctx.request().getCookie(ConsoleSessions.COOKIE);
            ctx.vertx().executeBlocking(() -> Optional.ofNullable(sessions.logout(c == null ? null : c.getValue(), url.get() + "/")),
                    false).onComplete(ar -> {
                        ctx.response().putHeader("Set-Cookie", ConsoleSessions.COOKIE + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict");
                        // 303: the browser follows with a GET (to the issuer's logout, or the console)
                        redirect(ctx, 303, ar.succeeded() ? ar.result().orElse(url.get() + "/") : url.get() + "/");
                    });
        });
    }

    private static void redirect(RoutingContext ctx, int status, String location) {
        ctx.response().setStatusCode(status).putHeader("Location", location).putHeader("Cache-Control", "no-store").end();
    }

    private static void redirectOr(RoutingContext ctx, String location, Throwable failure) {
        if (location != null) {
            redirect(ctx, 302, location);
        } else {
            boolean unavailable = failure instanceof OidcVerifier.TokenRefused t && t.unavailable();
            refuse(ctx, unavailable ? 503 : 400, failure == null ? "login failed" : failure.getMessage(), false);
        }
    }

    /**
     * The {@code Authorization} a request proves: its header, else the console session its cookie names.
     * A mutation carried by the cookie must come from the console's own origin (a page of another site
     * cannot make the browser act for the user; {@code SameSite=Strict} already keeps the cookie from
     * such requests in current browsers).
     */
    private static String authorization(RoutingContext ctx, ConsoleSessions sessions, boolean read, AccessPolicy policy)
            throws AccessDenied {
        String auth = ctx.request().getHeader("Authorization");
        io.vertx.core.http.Cookie c = ctx.request().getCookie(ConsoleSessions.COOKIE);
        if (auth != null || sessions == null || c == null) {
            return auth;
        }
        if (!read && foreignOrigin(ctx)) {
            throw policy.foreignOriginRefusal(sessions.accessToken(c.getValue()).map(t -> "Bearer " + t).orElse(null));
        }
        return sessions.accessToken(c.getValue()).map(t -> "Bearer " + t).orElse(null);
    }

    /**
     * Whether a browser sent the request from another site's page: its {@code Origin} (browsers send one with every
     * POST; {@code null} from a page that hides it) is not this engine. A request without one comes from no page.
     */
    private static boolean foreignOrigin(RoutingContext ctx) {
        String origin = ctx.request().getHeader("Origin");
        // the Host header, or HTTP/2's :authority (an HTTP/2 request has no Host header: the JDK's client upgrades to h2c)
        String host = ctx.request().getHeader("Host");
        io.vertx.core.net.HostAndPort authority = ctx.request().authority();
        if (host == null && authority != null) {
            host = authority.host() + (authority.port() >= 0 ? ":" + authority.port() : "");
        }
        return origin != null && (host == null || !origin.replaceFirst("^https?://", "").equals(host));
    }

    @SuppressWarnings("deprecation") // RoutingContext.setUser, below
    private static void admit(RoutingContext ctx, AccessPolicy policy, Audit audit, ConsoleSessions sessions) {
        String method = ctx.request().method().name();
        String path = ctx.normalizedPath();
        AccessPolicy.Target target = AccessPolicy.target(method, path);
        if (target.need() == AccessPolicy.Need.DOMAIN) {
            // proved by the domain token, checked from the headers ahead of this filter (RankEventAdmission, CheckpointUploads)
            ctx.next();
            return;
        }
        boolean read = method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS");
        String source = source(ctx);
        // paused while the check runs off the event loop: no body byte is read, nor the request's end
        // consumed, before it is admitted; the platform's body handler resumes it
        ctx.request().pause();
        boolean proxied = proxied(ctx);
        ctx.vertx().executeBlocking(() -> policy.admit(authorization(ctx, sessions, read, policy),
                ctx.request().getHeader("Authorization") != null, target, proxied), false).onComplete(ar -> {
            if (ar.succeeded()) {
                Caller caller = ar.result();
                // deprecated in Vert.x 4.5 with no public replacement (UserContext gained a setter only in 5); Camel's
                // platform-http hands the routing context's user to the exchange (USER_HEADER), so it stays
                ctx.setUser(User.create(caller.toPrincipal()));
                if (caller.kind() != Caller.Kind.ANONYMOUS || policy.openReads(proxied)) {
                    // a credential (or reads open to anyone by configuration): no stranger's limits any more
                    GuardedHttpServer.prove(ctx);
                }
                if (target.audited()) {
                    // what a request created (its Location: the run, the workflow version) is part of what it did
                    ctx.addEndHandler(v -> {
                        if (!target.audits(ctx.response().getStatusCode())) {
                            return;
                        }
                        if (target.refusalsOnly()) {
                            audit.recordRefusal(caller, source, method, path, ctx.response().getStatusCode());
                            return;
                        }
                        String created = ctx.response().headers().get("Location");
                        audit.record(caller, source, method, created == null ? path : path + " → " + created,
                                ctx.response().getStatusCode());
                    });
                }
                ctx.next();
            } else if (ar.cause() instanceof AccessDenied d) {
                if (target.refusalsOnly()) {
                    // a host or relay that keeps beating or checking with a credential the engine no longer knows (revoked)
                    // is on the trail too, bounded; one without any credential is a stranger, only counted
                    boolean credentialSent = ctx.request().getHeader("Authorization") != null;
                    audit.recordRefusal(d.who() == null && credentialSent ? Caller.unknownCredential() : d.who(), source, method,
                            path, d.status());
                } else if (target.audited()) {
                    // an authenticated caller refused is on the trail; a stranger's refusal is only counted
                    audit.record(d.who(), source, method, path, d.status());
                }
                if (target.need() == AccessPolicy.Need.HOST_OR_ADMIN && d.status() == 401) {
                    // the registry refuses a host's or relay's credential: its mark, on which alone they stop announcing
                    ctx.response().putHeader(EngineRefusal.HEADER, EngineRefusal.CREDENTIAL_REFUSED.value());
                }
                d.challenge().ifPresent(c -> ctx.response().putHeader("WWW-Authenticate", c));
                refuse(ctx, d.status(), d.getMessage(), target.audited());
            } else {
                refuse(ctx, 500, Incidents.report("access check of " + method + " " + path, ar.cause()).message(), true);
            }
        });
    }

    /**
     * Whether a reverse proxy forwarded the request: it names the client it came from. Such a request is no local
     * caller's even when it arrives from loopback ({@link AccessPolicy#openReads(boolean)}).
     */
    private static boolean proxied(RoutingContext ctx) {
        var h = ctx.request().headers();
        return h.contains("Forwarded") || h.contains("X-Forwarded-For") || h.contains("X-Forwarded-Host") || h.contains("X-Real-IP");
    }

    /** The address a request came from, as the connection shows it. */
    private static String source(RoutingContext ctx) {
        return ctx.request().remoteAddress() == null ? "?" : ctx.request().remoteAddress().hostAddress();
    }

    private static void refuse(RoutingContext ctx, int status, String message, boolean close) {
        var resp = ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json");
        if (status == 401 && !resp.headers().contains("WWW-Authenticate")) {
            resp.putHeader("WWW-Authenticate", AccessDenied.challenge(null, null));
        }
        if (status == 503) {
            resp.putHeader("Retry-After", "10");
        }
        if (close) {
            // the body of a refused mutation is never read: the connection cannot carry another request
            resp.putHeader("Connection", "close");
        }
        resp.end(new JsonObject().put("error", message).encode() + "\n");
    }

    /**
     * {@code GET /api/auth}: how to log in (the issuer, the audience, the public client of the console
     * and {@code mpflc login}; all null without an issuer) and, with a valid credential, who one is.
     */
    private static JsonObject authInfo(AccessPolicy policy, Caller c, boolean proxied) {
        JsonObject o = new JsonObject();
        policy.users().ifPresentOrElse(u -> o.put("issuer", u.settings().issuer().toString()).put("audience", u.settings().audience())
                .put("clientId", u.settings().consoleClientId()), () -> o.putNull("issuer"));
        o.put("openReads", policy.openReads(proxied));
        if (c.kind() != Caller.Kind.ANONYMOUS) {
            o.put("user", c.name()).put("role", c.role().name().toLowerCase(java.util.Locale.ROOT))
                    .put("projects", new JsonArray(c.projects().stream().sorted().toList())).put("allProjects", c.allProjects());
        }
        return o;
    }

    private static JsonArray auditPage(RoutingContext ctx, AccessStore store) {
        String after = ctx.request().getParam("after");
        String limit = ctx.request().getParam("limit");
        long a = -1;
        int n = 0;
        try {
            a = after == null ? 0 : Long.parseLong(after);
            n = limit == null ? 1000 : Integer.parseInt(limit);
        } catch (NumberFormatException e) {
            // answered below
        }
        // a limit out of range was quietly served as 1 or 10000 (limit=-5: one entry), as if it had been asked for
        if (a < 0 || n < 1 || n > 10_000) {
            throw new IllegalArgumentException("'after' and 'limit' are entry numbers (?after=ID&limit=N; ID at least 0, N from 1 to"
                    + " 10000), got " + (after == null ? "" : "after=" + after + (limit == null ? "" : ", ")) + (limit == null ? "" : "limit=" + limit));
        }
        JsonArray out = new JsonArray();
        for (AccessStore.AuditEntry e : store.audit(a, n)) {
            out.add(new JsonObject().put("id", e.id()).put("timeMs", e.timeMs()).put("who", e.who()).put("source", e.source())
                    .put("action", e.action()).put("status", e.status()));
        }
        return out;
    }

    /**
     * The caller the filter admitted for a Camel exchange; one that sees nothing when the exchange did
     * not pass the filter (fail closed).
     */
    public static Caller caller(Exchange ex) {
        Object u = ex.getIn().getHeader(USER_HEADER);
        if (u instanceof User user) {
            return Caller.fromPrincipal(user.principal());
        }
        return Caller.nobody();
    }
}
