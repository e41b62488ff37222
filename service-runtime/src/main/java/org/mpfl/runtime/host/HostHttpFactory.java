package org.mpfl.runtime.host;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.transport.http.server.DefaultConnectionListener;
import org.apache.axis2.transport.http.server.DefaultConnectionListenerFailureHandler;
import org.apache.axis2.transport.http.server.HttpConnectionManager;
import org.apache.axis2.transport.http.server.HttpFactory;
import org.apache.axis2.transport.http.server.IOProcessor;
import org.apache.axis2.transport.http.server.WorkerFactory;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.http.io.SocketConfig;
import org.mpfl.protocol.guard.ConnectionGuard;
import org.mpfl.protocol.tls.TlsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Axis2's {@link HttpFactory} with three changes for a service host: it listens on a server socket
 * bound before start (so a host can bind one address and use an ephemeral port, which the stock
 * listener cannot), it uses the MPIWS worker, its socket and session buffers are 128 KB instead
 * of Axis2's 8 KB, which throttled large messages, and its request pool is bounded: {@code mpfl.host.threads}
 * threads (64) and a queue of {@code mpfl.host.connectionQueue} connections (256); more are closed.
 * And every accepted connection goes through the host's {@link ConnectionGuard} before a byte is read
 * or a TLS handshake starts: refused ones are closed at once, admitted ones become
 * {@link GuardedConnection}s (TLS layered over the TCP socket here, so that the guard can always close
 * the TCP socket under a stalled handshake).
 */
final class HostHttpFactory extends HttpFactory {
    private static final Logger LOG = LoggerFactory.getLogger(HostHttpFactory.class);
    private final ServerSocket serverSocket;
    private final TlsSettings tls;
    private final ConnectionGuard guard;

    /** @param serverSocket a plain TCP socket, bound; {@code tls} is layered over each connection it accepts */
    HostHttpFactory(ConfigurationContext ctx, ServerSocket serverSocket, WorkerFactory workers, TlsSettings tls,
                    ConnectionGuard guard) throws AxisFault {
        super(ctx, serverSocket.getLocalPort(), workers);
        this.serverSocket = serverSocket;
        this.tls = tls;
        this.guard = guard;
        setRequestTcpNoDelay(true);
        // each open keep-alive connection holds one worker thread; peers keep a few each
        setRequestCoreThreadPoolSize(RuntimeSettings.HOST_THREADS.get());
        setRequestMaxThreadPoolSize(RuntimeSettings.HOST_THREADS.get());
        setRequestSocketTimeout(60_000);
    }

    /**
     * Request threads as Axis2 makes them, except that an exception escaping a connection's
     * processor is logged instead of printed: Axis2 2.0 throws a NullPointerException from
     * {@code AxisHttpConnectionImpl.close} when it closes a connection the peer already closed —
     * harmless (the thread is replaced), but it flooded the host logs.
     */
    @Override
    public ExecutorService newRequestExecutor(int port) {
        AtomicInteger n = new AtomicInteger();
        ThreadFactory threads = r -> {
            Thread t = new Thread(r, "HttpConnection-" + port + "-" + n.incrementAndGet());
            t.setDaemon(true);
            t.setUncaughtExceptionHandler((thread, e) -> {
                if (e instanceof NullPointerException && String.valueOf(e.getMessage()).contains("socketHolder")) {
                    LOG.debug("Axis2 closed an already closed connection", e);
                } else {
                    LOG.warn("request thread {} failed", thread.getName(), e);
                }
            });
            return t;
        };
        // bounded: connections beyond the threads wait in a bounded queue; beyond that the executor refuses and
        // the listener closes the connection at once (AbortPolicy → the listener's catch), instead of queueing
        // without limit for whoever opens connections fastest
        return new ThreadPoolExecutor(getRequestCoreThreadPoolSize(), getRequestMaxThreadPoolSize(),
                getThreadKeepAliveTime(), getThreadKeepAliveTimeUnit(),
                new LinkedBlockingQueue<>(RuntimeSettings.HOST_CONNECTION_QUEUE.get()), threads);
    }

    @Override
    public SocketConfig newSocketConfig() {
        return SocketConfig.custom()
                .setSoTimeout(getRequestSocketTimeout(), TimeUnit.MILLISECONDS)
                .setTcpNoDelay(true)
                // also the size of the connection's session buffers
                .setSndBufSize(128 * 1024)
                .setRcvBufSize(128 * 1024)
                .build();
    }

    @Override
    public IOProcessor newRequestConnectionListener(String scheme, int port, HttpConnectionManager manager,
                                                    Http1Config http1Config, SocketConfig socketConfig) throws IOException {
        return new Listener(serverSocket, tls, guard, scheme, manager, http1Config, socketConfig);
    }

    /**
     * Accepts connections on the pre-bound socket and hands them to Axis2's connection manager.
     * (A subclass of Axis2's listener only because {@code SimpleHttpServer.start} casts to it.)
     */
    private static final class Listener extends DefaultConnectionListener {
        private final ServerSocket socket;
        private final TlsSettings tls;
        private final ConnectionGuard guard;
        private final String scheme;
        private final HttpConnectionManager manager;
        private final Http1Config http1Config;
        private final SocketConfig socketConfig;
        private volatile boolean destroyed;

        Listener(ServerSocket socket, TlsSettings tls, ConnectionGuard guard, String scheme, HttpConnectionManager manager,
                 Http1Config http1Config, SocketConfig socketConfig) throws IOException {
            super(scheme, socket.getLocalPort(), manager, new DefaultConnectionListenerFailureHandler(), http1Config,
                    socketConfig);
            this.socket = socket;
            this.tls = tls;
            this.guard = guard;
            this.scheme = scheme;
            this.manager = manager;
            this.http1Config = http1Config;
            this.socketConfig = socketConfig;
        }

        @Override
        public void run() {
            while (!destroyed && !Thread.currentThread().isInterrupted()) {
                Socket s;
                try {
                    s = socket.accept();
                } catch (IOException e) {
                    if (!destroyed && !socket.isClosed()) {
                        LOG.warn("accept failed on {}", socket.getLocalSocketAddress(), e);
                        continue;
                    }
                    return;
                }
                Socket raw = s;
                Optional<ConnectionGuard.Pass> pass = guard.admit(raw.getInetAddress(), () -> GuardedConnection.closeRaw(raw));
                if (pass.isEmpty()) {
                    // a stranger over its limits: nothing read, no thread, no handshake (counted by the guard)
                    GuardedConnection.closeRaw(raw);
                    continue;
                }
                try {
                    raw.setTcpNoDelay(true);
                    Socket http = tls.serves() ? tls.serverSocket(raw) : raw;
                    manager.process(new GuardedConnection(scheme, raw, http, http1Config, socketConfig, pass.get()));
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    LOG.warn("all request threads busy and the queue full: closed a connection from {}",
                            raw.getRemoteSocketAddress());
                    pass.get().close();
                    GuardedConnection.closeRaw(raw);
                } catch (IOException | RuntimeException e) {
                    LOG.warn("cannot serve a connection from {}", raw.getRemoteSocketAddress(), e);
                    pass.get().close();
                    GuardedConnection.closeRaw(raw);
                }
            }
        }

        @Override
        public void awaitSocketOpen() {
            // bound before the server started
        }

        @Override
        public int getPort() {
            return socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            destroy();
        }

        @Override
        public boolean isDestroyed() {
            return destroyed;
        }

        @Override
        public void destroy() {
            destroyed = true;
            try {
                socket.close();
            } catch (SocketException ignored) {
                // closing
            } catch (IOException e) {
                LOG.debug("closing the listener", e);
            }
        }
    }
}
