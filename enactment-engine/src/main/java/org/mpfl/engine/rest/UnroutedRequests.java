package org.mpfl.engine.rest;

import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.mpfl.engine.json.Json;

/**
 * The API's answer where no route of it answers: an unknown {@code /api/} path (404) and a failure no route caught
 * (500, an {@link Incidents incident}) are said in the API's JSON error like every other refusal. They were Vert.x's
 * defaults: an HTML page ({@code <h1>Resource not found</h1>}) and {@code Internal Server Error} in plain text, which a
 * client reading {@code error} could not show. A method the path does not take (405) is said the same way, with
 * {@code Allow} naming the methods it takes ({@link AllowedMethods}): it was Vert.x's 405 with an empty body. Paths
 * outside {@code /api/} (the console's files) keep Vert.x's answers.
 */
public final class UnroutedRequests {
    private UnroutedRequests() {
    }

    /** Installs the answers as {@code router}'s error handlers. */
    public static void install(Router router) {
        router.errorHandler(404, ctx -> answer(ctx, 404, "no such API endpoint: " + ctx.request().method().name() + " "
                + ctx.request().path() + " (GET /api/openapi lists them)"));
        router.errorHandler(405, ctx -> methodNotAllowed(router, ctx));
        router.errorHandler(500, UnroutedRequests::failed);
    }

    private static void methodNotAllowed(Router router, RoutingContext ctx) {
        HttpServerResponse resp = ctx.response();
        if (resp.ended() || resp.closed()) {
            return;
        }
        if (api(ctx)) {
            String allowed = AllowedMethods.header(AllowedMethods.of(router, ctx.normalizedPath()));
            resp.putHeader("Allow", allowed);
            write(ctx, 405, Json.write(java.util.Map.of("error", ctx.request().method().name() + " is not allowed on "
                    + ctx.request().path() + ": it takes " + allowed)));
        } else {
            // the console's files, served to GET alone (StaticConsole's route, a pattern the router does not show):
            // Vert.x's own answer, which an error handler replaces
            resp.setStatusCode(405).putHeader("Allow", "GET").end();
        }
    }

    private static void failed(RoutingContext ctx) {
        if (api(ctx)) {
            Incidents.Incident incident = Incidents.report(ctx.request().method().name() + " " + ctx.request().path(), ctx.failure());
            write(ctx, 500, Json.write(incident.body()));
        }
    }

    private static void answer(RoutingContext ctx, int status, String message) {
        if (api(ctx)) {
            write(ctx, status, Json.write(java.util.Map.of("error", message)));
        }
    }

    /** Whether the request is the API's (its path decodes and is under {@code /api/}). */
    private static boolean api(RoutingContext ctx) {
        return UndecodableTargets.pathDecodes(ctx) && ctx.normalizedPath().startsWith("/api/");
    }

    private static void write(RoutingContext ctx, int status, String body) {
        HttpServerResponse resp = ctx.response();
        if (resp.ended() || resp.closed()) {
            return;
        }
        resp.setStatusCode(status).putHeader("Content-Type", "application/json");
        resp.end(body + "\n");
    }
}
