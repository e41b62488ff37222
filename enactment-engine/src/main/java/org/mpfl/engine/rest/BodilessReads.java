package org.mpfl.engine.rest;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Refuses a read ({@code GET}, {@code HEAD}, {@code OPTIONS}) that announces a body, before a byte of it is read
 * (docs/security.md, "Admission before allocation"). Reads are admitted without a credential wherever they are open
 * ({@code /api/engine}, {@code /api/auth} and the console's files on every engine; every read on a local one), and
 * the platform's body handler buffers a route's whole body (up to the engine's 256 MB bound) before the route runs: a
 * {@code GET /api/engine} with an endless chunked body made the engine hold whatever a stranger sent — on a known
 * address without any deadline. No read of the engine takes a body, so one that announces one ({@code
 * Content-Length} above 0, or {@code Transfer-Encoding}) is answered 400 and its connection closed.
 */
public final class BodilessReads {
    private BodilessReads() {
    }

    /** Installs the check in front of every route of {@code router}. */
    public static void install(Router router) {
        router.route().order(Integer.MIN_VALUE + 2).handler(BodilessReads::onRequest);
    }

    private static void onRequest(RoutingContext ctx) {
        HttpMethod m = ctx.request().method();
        boolean read = m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS;
        if (read && announcesBody(ctx)) {
            // nothing of the body is read: the connection ends with the answer (over HTTP/2 the stream is reset)
            ctx.request().pause();
            CheckpointUploads.refuse(ctx, 400, "a " + m.name() + " request takes no body");
            return;
        }
        ctx.next();
    }

    private static boolean announcesBody(RoutingContext ctx) {
        if (ctx.request().getHeader("Transfer-Encoding") != null) {
            return true;
        }
        String length = ctx.request().getHeader("Content-Length");
        return length != null && !length.strip().equals("0");
    }
}
