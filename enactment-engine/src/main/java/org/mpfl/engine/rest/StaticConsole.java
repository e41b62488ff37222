package org.mpfl.engine.rest;

import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/**
 * Serves the web console: files from the class-path folder {@code org/mpfl/engine/console/} at
 * {@code /} ({@code /} itself is {@code index.html}). Read from the class loader directly rather than
 * with Vert.x's StaticHandler, which would unpack class-path files into a cache directory in the
 * working directory.
 */
public final class StaticConsole {
    static final String ROOT = "org/mpfl/engine/console/";
    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("html", "text/html; charset=utf-8"), Map.entry("js", "text/javascript; charset=utf-8"),
            Map.entry("mjs", "text/javascript; charset=utf-8"), Map.entry("css", "text/css; charset=utf-8"),
            Map.entry("json", "application/json"), Map.entry("svg", "image/svg+xml"), Map.entry("png", "image/png"),
            Map.entry("ico", "image/x-icon"), Map.entry("woff2", "font/woff2"), Map.entry("map", "application/json"),
            Map.entry("txt", "text/plain; charset=utf-8"));

    private StaticConsole() {
    }

    /** Adds a GET handler for every path outside {@code /api/}. */
    public static void install(Router router) {
        router.getWithRegex("^/(?!api/).*").handler(ctx -> {
            String path = ctx.normalizedPath();
            if (path.endsWith("/")) {
                path = path + "index.html";
            }
            String rel = path.substring(1);
            if (rel.contains("..") || rel.contains("\\")) {
                ctx.response().setStatusCode(400).end();
                return;
            }
            ClassLoader cl = StaticConsole.class.getClassLoader();
            try (InputStream in = cl.getResourceAsStream(ROOT + rel)) {
                if (in == null) {
                    ctx.response().setStatusCode(404).putHeader("Content-Type", "text/plain").end("not found: " + path + "\n");
                    return;
                }
                byte[] bytes = in.readAllBytes();
                String ext = rel.contains(".") ? rel.substring(rel.lastIndexOf('.') + 1) : "";
                ctx.response().putHeader("Content-Type", TYPES.getOrDefault(ext, "application/octet-stream"))
                        .putHeader("Cache-Control", "no-cache")
                        .end(Buffer.buffer(bytes));
            } catch (IOException e) {
                ctx.response().setStatusCode(500).putHeader("Content-Type", "text/plain; charset=utf-8")
                        .end(Incidents.report("console file " + path, e).message() + "\n");
            }
        });
    }
}
