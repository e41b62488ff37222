package org.mpfl.engine.rest;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.impl.HttpServerRequestInternal;
import io.vertx.core.http.impl.HttpServerRequestWrapper;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The methods an {@code /api/} path takes, read from the router's own routes (Camel's REST routes and the Vert.x ones
 * alike, so the answer cannot drift from the route table), and what a client asks of them with the methods HTTP gives
 * every resource (RFC 9110, 9.3.2 and 9.3.7):
 * <ul>
 * <li>{@code HEAD} of a path that takes {@code GET} is that {@code GET} without its body: the request is routed as the
 *     {@code GET} (the same access check, status and headers) and whatever body it writes is dropped
 *     ({@link #bodilessHeads}). An event stream answers its headers and ends ({@link #head}).</li>
 * <li>{@code OPTIONS} is answered 204 with {@code Allow}, once the access filter admitted it as the read it is.</li>
 * <li>A method the path does not take is answered 405 with {@code Allow} by {@link UnroutedRequests}.</li>
 * </ul>
 * They were all 405, {@code HEAD} and {@code OPTIONS} with an empty body. A read announcing a body is still refused
 * first ({@link BodilessReads}).
 */
public final class AllowedMethods {
    /** The routing context's mark of a {@code HEAD} routed as a {@code GET}. */
    private static final String HEAD = "mpfl.head";
    /** The order methods are listed in. */
    private static final List<String> ORDER = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");

    private AllowedMethods() {
    }

    /** Installs the {@code HEAD} and {@code OPTIONS} answers of {@code router}'s {@code /api/} paths. */
    public static void install(Router router) {
        // before the access filter: the request is then admitted once, as the GET it is answered as
        router.route("/api/*").order(Integer.MIN_VALUE + 4).handler(ctx -> {
            if (ctx.request().method() == HttpMethod.HEAD && ctx.get(HEAD) == null && of(router, ctx.normalizedPath()).contains("GET")) {
                ctx.put(HEAD, Boolean.TRUE);
                String query = ctx.request().query();
                // the path and query, not uri(): a request in absolute form (GET http://host/api/…) names scheme and host
                ctx.reroute(HttpMethod.GET, ctx.request().path() + (query == null ? "" : "?" + query));
                return;
            }
            ctx.next();
        });
        // after the access filter (order -1000): an OPTIONS needs what a GET of the path needs
        router.route("/api/*").order(-999).handler(ctx -> {
            Set<String> allowed = ctx.request().method() == HttpMethod.OPTIONS ? of(router, ctx.normalizedPath()) : Set.of();
            if (allowed.isEmpty()) {
                // not an OPTIONS, or a path no route takes (404)
                ctx.next();
                return;
            }
            if (!ctx.request().isEnded()) {
                // paused by the access filter until admitted; an OPTIONS has no body (BodilessReads)
                ctx.request().resume();
            }
            ctx.response().setStatusCode(204).putHeader("Allow", header(allowed)).end();
        });
    }

    /**
     * {@code request} as the router is to see it: a {@code HEAD} whose answer carries no body, whatever the route answering
     * it as a {@code GET} writes. Vert.x leaves out a {@code HEAD}'s body over HTTP/1.1 but sends it over HTTP/2 (h2c,
     * which the engine speaks); there the body's bytes are a protocol error. The response is Vert.x's own, behind a proxy
     * that ends it where a body would be written or sent (Vert.x's request wrapper, an internal class as in
     * {@link BodilessReads#watchingHttp2Reads}; {@code HttpMethodsTest} fails if an upgrade breaks it).
     */
    public static HttpServerRequest bodilessHeads(HttpServerRequest request) {
        if (request.method() == HttpMethod.HEAD && request instanceof HttpServerRequestInternal internal) {
            return new HeadRequest(internal);
        }
        return request;
    }

    /** A {@code HEAD} whose response writes no body. */
    private static final class HeadRequest extends HttpServerRequestWrapper {
        private HttpServerResponse response;

        HeadRequest(HttpServerRequestInternal delegate) {
            super(delegate);
        }

        @Override
        public synchronized HttpServerResponse response() {
            if (response == null) {
                HttpServerResponse real = delegate.response();
                response = (HttpServerResponse) Proxy.newProxyInstance(HttpServerResponse.class.getClassLoader(),
                        new Class<?>[] {HttpServerResponse.class}, (proxy, m, args) -> withoutBody(real, proxy, m, args));
            }
            return response;
        }
    }

    /** {@code m} of {@code real}, except that a body written ({@code write}) is dropped and one sent ({@code end}, {@code send}, {@code sendFile}) is left out. */
    @SuppressWarnings("unchecked")
    private static Object withoutBody(HttpServerResponse real, Object proxy, Method m, Object[] args) throws Throwable {
        String name = m.getName();
        int n = args == null ? 0 : args.length;
        Handler<AsyncResult<Void>> handler = n > 0 && args[n - 1] instanceof Handler<?> h ? (Handler<AsyncResult<Void>>) h : null;
        boolean body = name.equals("write") || name.startsWith("send") || name.equals("end") && n > (handler == null ? 0 : 1);
        if (!body) {
            try {
                Object r = m.invoke(real, args);
                // a fluent call goes on through the proxy: resp.setStatusCode(200).end(body) must drop the body too
                return r == real ? proxy : r;
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
        Future<Void> done = name.equals("write") ? Future.succeededFuture() : real.end();
        if (handler != null) {
            done.onComplete(handler);
        }
        return m.getReturnType() == void.class ? null : m.getReturnType().isInstance(proxy) ? proxy : done;
    }

    /** Whether the request is a {@code HEAD} being answered as a {@code GET} (a handler that streams ends after the headers). */
    public static boolean head(RoutingContext ctx) {
        return ctx.get(HEAD) != null;
    }

    /**
     * The methods {@code path} takes on {@code router}, in the order {@code Allow} lists them ({@code HEAD} with
     * {@code GET}, and {@code OPTIONS} with any); empty when no route takes the path.
     */
    static Set<String> of(Router router, String path) {
        Set<String> methods = new TreeSet<>(java.util.Comparator.comparingInt(m -> ORDER.indexOf(m) < 0 ? ORDER.size() : ORDER.indexOf(m)));
        for (Route r : router.getRoutes()) {
            if (r.methods() != null && !r.methods().isEmpty() && takes(r, path)) {
                r.methods().forEach(m -> methods.add(m.name()));
            }
        }
        if (methods.contains("GET")) {
            methods.add("HEAD");
        }
        if (!methods.isEmpty()) {
            methods.add("OPTIONS");
        }
        return methods;
    }

    /** {@code Allow}'s value for {@code methods}. */
    static String header(Set<String> methods) {
        return String.join(", ", methods);
    }

    /** Whether {@code route}'s path ({@code /api/runs/:id/log}: a parameter is one segment) takes {@code path}. */
    private static boolean takes(Route route, String path) {
        String template = route.getPath();
        if (template == null) {
            return false;
        }
        if (!route.isExactPath()) {
            return path.startsWith(template);
        }
        String[] want = template.split("/", -1);
        String[] got = path.split("/", -1);
        if (want.length != got.length) {
            return false;
        }
        for (int i = 0; i < want.length; i++) {
            boolean param = want[i].startsWith(":") && !got[i].isEmpty();
            if (!param && !want[i].equals(got[i])) {
                return false;
            }
        }
        return true;
    }
}
