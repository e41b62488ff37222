package org.mpfl.engine.rest;

import io.vertx.core.MultiMap;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * The headers every answer of the engine's HTTP port carries, so that a browser treats its pages and data as what
 * they are (docs/security.md, "What a browser is told"):
 * <ul>
 * <li>{@code Content-Security-Policy}: the console's pages run only the console's own scripts and styles from this
 *     origin (no inline script, no {@code eval}, no plug-ins), talk only to this origin and take no {@code <base>};
 *     an API answer (JSON, text, a graph's SVG opened on its
 *     own) runs nothing at all ({@code default-src 'none'}, {@code sandbox}): a workflow's SVG or a run's log text
 *     is data, never a page of this origin. Neither may be framed by another site ({@code frame-ancestors
 *     'none'}, and {@code X-Frame-Options: DENY} for browsers without CSP level 2): no click-jacking of the
 *     console's Cancel and Resume buttons.</li>
 * <li>{@code X-Content-Type-Options: nosniff}: a browser takes the declared type, never guesses a script or a page
 *     from a run's log or an uploaded document.</li>
 * <li>{@code Referrer-Policy: same-origin}: run ids in the console's URLs do not leave in a link to another site.</li>
 * </ul>
 * They are put just before an answer's headers are written, so they are on every answer, whoever writes it
 * (Camel's routes, the console's files, the event stream, a refusal of the access filter, Vert.x's own 404).
 */
public final class SecurityHeaders {
    /**
     * The console's policy. {@code img-src blob:} is the workflow graph (fetched, shown as an object URL); styles are
     * set by the scripts through the CSSOM ({@code node.style}), which {@code style-src 'self'} allows.
     * No {@code form-action}: the console's Log out form is answered with a redirect to the issuer's logout, whose
     * origin the policy cannot name, and browsers check {@code form-action} on redirects too; the console builds no
     * form from run data (no {@code innerHTML}).
     */
    static final String CONSOLE_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
            + "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
    /** The API's policy: nothing an answer holds runs or loads anything. */
    static final String API_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox";

    private SecurityHeaders() {
    }

    /** Installs the headers in front of every route of {@code router}. */
    public static void install(Router router) {
        router.route().order(Integer.MIN_VALUE + 1).handler(SecurityHeaders::onRequest);
    }

    private static void onRequest(RoutingContext ctx) {
        // a path that does not decode is refused as an API request would be (UndecodableTargets): the strict policy
        boolean api = !UndecodableTargets.pathDecodes(ctx) || ctx.normalizedPath().startsWith("/api/");
        ctx.addHeadersEndHandler(v -> put(ctx.response().headers(), api));
        ctx.next();
    }

    private static void put(MultiMap h, boolean api) {
        h.set("Content-Security-Policy", api ? API_POLICY : CONSOLE_POLICY);
        h.set("X-Content-Type-Options", "nosniff");
        h.set("X-Frame-Options", "DENY");
        h.set("Referrer-Policy", "same-origin");
    }
}
