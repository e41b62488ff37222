package org.mpfl.engine.rest;

import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.KeyCertOptions;
import io.vertx.ext.web.RoutingContext;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;
import org.mpfl.protocol.guard.ConnectionGuard;
import org.mpfl.protocol.tls.TlsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's HTTP server: Camel's platform-http server on Vert.x, whose Vert.x {@link HttpServer}
 * this class creates itself (Camel's own {@code startServer} gives no access to its
 * {@link HttpServerOptions} nor a connection handler; its router, its routes and body handling are
 * Camel's, unchanged). What it adds is the {@link ConnectionGuard} of docs/security.md ("Slow and
 * flooding clients"):
 * <ul>
 * <li>every TCP connection is {@linkplain ConnectionGuard#admit admitted} as Netty accepts it, before
 *     Vert.x adds its TLS handler: a stranger over the per-source or overall limit, or over their
 *     rates of new connections, is closed at once, nothing read and no handshake made — so a flood
 *     of TLS handshakes is bounded in CPU, not only in connections. This is the one place where the
 *     server reaches into Vert.x's internals ({@link AdmittingServer}: Vert.x 4.5 offers no public
 *     hook before the handshake; its {@code connectionHandler} runs after it);</li>
 * <li>the TLS handshake must end within the proof deadline (Vert.x's {@code sslHandshakeTimeout},
 *     and the guard closes the channel at its deadline in any case);</li>
 * <li>until a request on it authenticates ({@link #prove}: the admin token, a host credential, a
 *     user's token, called by {@link AccessFilter}; a run's domain token proving a rank-event post or a
 *     checkpoint part from its headers, called by {@link RankEventAdmission} and {@link CheckpointUploads}
 *     before the body is read) the connection must send each request head, and
 *     have its answer written, within the deadline of its start, and may idle at most that long
 *     between requests; else it is closed. A proven connection is as before (no idle limit: event
 *     streams stay open).</li>
 * </ul>
 * Being event-driven, the server spends no thread on a stalled connection; what the guard bounds is
 * sockets and buffers held by strangers, and it keeps room for the hosts and users that proved who
 * they are.
 */
public final class GuardedHttpServer extends VertxPlatformHttpServer {
    private static final Logger LOG = LoggerFactory.getLogger(GuardedHttpServer.class);
    private static final String PASS = "mpfl.guard.pass";

    private final VertxPlatformHttpServerConfiguration configuration;
    private final TlsSettings tls;
    private final ConnectionGuard guard;
    private final Map<HttpConnection, ConnectionGuard.Pass> passes = new ConcurrentHashMap<>();
    /** Admitted TCP connections by their remote address, until Vert.x made an {@link HttpConnection} of them. */
    private final Map<java.net.InetSocketAddress, ConnectionGuard.Pass> accepted = new ConcurrentHashMap<>();
    private volatile HttpServer server;

    public GuardedHttpServer(VertxPlatformHttpServerConfiguration configuration, TlsSettings tls, ConnectionGuard guard) {
        super(configuration);
        this.configuration = configuration;
        this.tls = tls;
        this.guard = guard;
    }

    public ConnectionGuard guard() {
        return guard;
    }

    @Override
    protected void startServer() throws Exception {
        HttpServerOptions options = new HttpServerOptions()
                .setHost(configuration.getBindHost())
                .setPort(configuration.getBindPort())
                .setSslHandshakeTimeout(guard.limits().proofDeadline().toMillis())
                .setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS);
        if (tls.serves()) {
            options.setSsl(true).setKeyCertOptions(KeyCertOptions.wrap(keyManagers(tls)));
        }
        HttpServer s = new AdmittingServer((io.vertx.core.impl.VertxInternal) getVertx(), options);
        s.connectionHandler(this::admit);
        VertxPlatformHttpRouter router = VertxPlatformHttpRouter.lookup(getCamelContext(),
                VertxPlatformHttpRouter.getRouterNameFromPort(configuration.getBindPort()));
        // an HTTP/2 read's body needs no header announcing it: watched under the router's body handler; a HEAD's answer
        // has no body whoever writes it
        s.requestHandler(request -> router.handle(AllowedMethods.bodilessHeads(BodilessReads.watchingHttp2Reads(request))));
        s.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        this.server = s;
    }

    /** The Vert.x server (platform-http's engine reads the port its routes serve on from it). */
    @Override
    public HttpServer getServer() {
        return server;
    }

    @Override
    protected void stopServer() {
        HttpServer s = server;
        server = null;
        if (s != null) {
            try {
                s.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.debug("closing the HTTP server", e);
            }
        }
        guard.close();
    }

    /**
     * Closes the Vert.x instance Camel created for this server (the engine never gives it one of its
     * own): Camel's own stop would hand the close to the executor its {@code startServer} makes, which
     * this class's does not.
     */
    @Override
    protected void stopVertx() {
        io.vertx.core.Vertx v = getVertx();
        if (v != null) {
            try {
                v.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.debug("closing Vert.x", e);
            }
        }
    }

    private static KeyManagerFactory keyManagers(TlsSettings tls) throws GeneralSecurityException {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(tls.keyStore(), tls.keyPassword());
        return kmf;
    }

    /**
     * Vert.x's HTTP server, with every accepted channel put before the guard first: Vert.x's own
     * {@code childHandler} (TLS handler, HTTP codec) sees only admitted channels.
     */
    private final class AdmittingServer extends io.vertx.core.http.impl.HttpServerImpl {
        AdmittingServer(io.vertx.core.impl.VertxInternal vertx, HttpServerOptions options) {
            super(vertx, options);
        }

        @Override
        protected java.util.function.BiConsumer<io.netty.channel.Channel, io.vertx.core.net.impl.SslChannelProvider> childHandler(
                io.vertx.core.impl.ContextInternal context, io.vertx.core.net.SocketAddress address,
                io.netty.handler.traffic.GlobalTrafficShapingHandler trafficShaping) {
            java.util.function.BiConsumer<io.netty.channel.Channel, io.vertx.core.net.impl.SslChannelProvider> vertx =
                    super.childHandler(context, address, trafficShaping);
            return (channel, ssl) -> {
                if (admit(channel)) {
                    vertx.accept(channel, ssl);
                }
            };
        }
    }

    /** Admits a channel just accepted, or closes it at once; its pass ends when the channel closes. */
    private boolean admit(io.netty.channel.Channel channel) {
        if (!(channel.remoteAddress() instanceof java.net.InetSocketAddress remote) || remote.getAddress() == null) {
            channel.close();
            return false;
        }
        Optional<ConnectionGuard.Pass> pass = guard.admit(remote.getAddress(), channel::close);
        if (pass.isEmpty()) {
            channel.close();
            return false;
        }
        accepted.put(remote, pass.get());
        channel.closeFuture().addListener(f -> {
            accepted.remove(remote);
            pass.get().close();
        });
        return true;
    }

    /** Vert.x made an HTTP connection of an admitted channel (after its TLS handshake): its requests find its pass. */
    private void admit(HttpConnection c) {
        java.net.InetSocketAddress remote;
        try {
            // a literal address: no lookup
            remote = new java.net.InetSocketAddress(java.net.InetAddress.getByName(c.remoteAddress().hostAddress()),
                    c.remoteAddress().port());
        } catch (java.net.UnknownHostException | RuntimeException e) {
            c.close();
            return;
        }
        ConnectionGuard.Pass pass = accepted.get(remote);
        if (pass == null) {
            c.close(); // closed by the guard meanwhile
            return;
        }
        passes.put(c, pass);
        c.closeHandler(v -> passes.remove(c));
    }

    /**
     * The first handler of every request (installed by {@link #install}): an unproven connection's
     * request has the deadline from now until its answer is written, and the connection that long
     * again to send its next one.
     */
    private void requestStarted(RoutingContext ctx) {
        ConnectionGuard.Pass p = passes.get(ctx.request().connection());
        if (p != null && p.stranger()) {
            p.arm();
            ctx.put(PASS, p);
            ctx.addEndHandler(v -> p.arm());
        }
        ctx.next();
    }

    /** Installs {@link #requestStarted} in front of every other handler of the router. */
    public void install(io.vertx.ext.web.Router router) {
        router.route().order(Integer.MIN_VALUE).handler(this::requestStarted);
    }

    /**
     * The request's connection authenticated (a credential, or a run's domain token): it leaves the
     * strangers' limits and its source is known for the guard's {@code trustFor}. Call it only once the
     * proof verified; a refused request must leave its connection a stranger's.
     */
    public static void prove(RoutingContext ctx) {
        ConnectionGuard.Pass p = ctx.get(PASS);
        if (p != null) {
            p.prove();
        }
    }
}
