package org.mpfl.engine.rest;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Refuses a request whose target does not decode (a {@code %} not followed by two hex digits, as in
 * {@code /api/runs/%ZZ} or {@code ?q=%}) with 400 and the API's JSON error, before any route looks at it. Vert.x
 * decodes the path when a handler first asks for it and the query when a handler first reads a parameter; a path
 * that did not decode escaped from the first handler as an exception and was answered 500 {@code Internal Server
 * Error} in plain text (and a stack trace in the engine's log), a query 400 {@code Bad Request} in plain text: a
 * client's typo answered as the engine's failure, or without saying what was wrong.
 */
public final class UndecodableTargets {
    private UndecodableTargets() {
    }

    /** Installs the check in front of every route of {@code router} (after the security headers and bodiless reads). */
    public static void install(Router router) {
        router.route().order(Integer.MIN_VALUE + 3).handler(UndecodableTargets::onRequest);
    }

    private static void onRequest(RoutingContext ctx) {
        String part = "path";
        try {
            ctx.normalizedPath();
            part = "query";
            ctx.queryParams();
        } catch (IllegalArgumentException | io.vertx.ext.web.handler.HttpException e) {
            // Vert.x's words for a path (IllegalArgumentException) and for a query (HttpException 400); the body
            // (if any) is never read: the connection ends with the answer
            ctx.request().pause();
            CheckpointUploads.refuse(ctx, 400, "the request's " + part + " has a malformed percent escape ('%' must be "
                    + "followed by two hex digits; a literal '%' is sent as %25)");
            return;
        }
        ctx.next();
    }

    /** Whether {@code ctx}'s path decodes (for the handlers in front of this check). */
    static boolean pathDecodes(RoutingContext ctx) {
        try {
            ctx.normalizedPath();
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
