package org.mpfl.engine.rest;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.impl.HttpServerRequestInternal;
import io.vertx.core.http.impl.HttpServerRequestWrapper;
import java.util.Map;
import org.mpfl.engine.json.Json;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Refuses a read ({@code GET}, {@code HEAD}, {@code OPTIONS}) that announces a body, before a byte of it is read
 * (docs/security.md, "Admission before allocation"). Reads are admitted without a credential wherever they are open
 * ({@code /api/engine}, {@code /api/auth} and the console's files on every engine; every read on a local one), and
 * the platform's body handler buffers a route's whole body (up to the engine's 256 MB bound) before the route runs: a
 * {@code GET /api/engine} with an endless chunked body made the engine hold whatever a stranger sent — on a known
 * address without any deadline. No read of the engine takes a body, so one that announces one ({@code
 * Content-Length} above 0, or {@code Transfer-Encoding}) is answered 400 and its connection closed. Over HTTP/2 (h2c,
 * which the engine speaks) a body needs no such header: there the first byte of a read's data is refused
 * ({@link #watchingHttp2Reads}, in front of the router).
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

    /**
     * {@code request} as the router is to see it: an HTTP/2 read whose first byte of data is refused. Over HTTP/2 a body
     * comes in DATA frames that need no {@code Content-Length} or {@code Transfer-Encoding} (the check above cannot see
     * it), so the data handler the platform's body handler installs is watched instead: the first byte answers 400 and
     * resets the stream, nothing of it is passed on, and what flow control let the client send meanwhile (one stream
     * window, 64 KiB) is all that is read. (Vert.x's own request wrapper, an internal class like the server in
     * {@link GuardedHttpServer}: the router offers no hook under the body handler; {@code BodilessReadsTest} fails if an
     * upgrade breaks it.)
     */
    public static HttpServerRequest watchingHttp2Reads(HttpServerRequest request) {
        if (request.version() == HttpVersion.HTTP_2 && isRead(request.method())
                && request instanceof HttpServerRequestInternal internal) {
            return new DataRefused(internal);
        }
        return request;
    }

    private static boolean isRead(HttpMethod m) {
        return m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS;
    }

    /** An HTTP/2 read whose data, the first byte of it, is refused rather than handed on. */
    private static final class DataRefused extends HttpServerRequestWrapper {
        private boolean refused;

        DataRefused(HttpServerRequestInternal delegate) {
            super(delegate);
        }

        @Override
        public HttpServerRequest handler(Handler<Buffer> handler) {
            delegate.handler(handler == null ? null : data -> {
                if (refused) {
                    return;
                }
                if (data.length() == 0) {
                    handler.handle(data);
                    return;
                }
                refuse();
            });
            return this;
        }

        @Override
        public HttpServerRequest endHandler(Handler<Void> handler) {
            // a refused stream's end, should it come, routes nothing
            delegate.endHandler(handler == null ? null : end -> {
                if (!refused) {
                    handler.handle(end);
                }
            });
            return this;
        }

        private void refuse() {
            refused = true;
            delegate.pause();
            HttpServerResponse response = delegate.response();
            if (response.ended() || response.closed()) {
                return;
            }
            // after the answer a reset with NO_ERROR asks the client to stop sending (RFC 9113, 8.1)
            response.setStatusCode(400).putHeader("Content-Type", "application/json")
                    .end(Json.write(Map.of("error", "a " + delegate.method().name() + " request takes no body")) + "\n")
                    .onComplete(x -> response.reset(0));
        }
    }

    private static boolean announcesBody(RoutingContext ctx) {
        if (ctx.request().getHeader("Transfer-Encoding") != null) {
            return true;
        }
        String length = ctx.request().getHeader("Content-Length");
        return length != null && !length.strip().equals("0");
    }
}
