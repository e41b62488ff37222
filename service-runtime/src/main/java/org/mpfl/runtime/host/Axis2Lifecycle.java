package org.mpfl.runtime.host;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.transport.http.server.SimpleHttpServer;
import org.apache.axis2.transport.http.server.WorkerFactory;
import org.mpfl.ir.files.FileTrees;
import org.mpfl.ir.files.Orphans;
import org.mpfl.protocol.guard.ConnectionGuard;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.runtime.settings.HostGuardLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Axis2 side of a {@link ServiceHost}, from start to end: the host's private repository
 * directory, its one {@link ConfigurationContext} ({@link Axis2Setup}), and the HTTP server that
 * carries SOAP to it — either the host's own {@code SimpleHTTPServer} on a socket bound here
 * ({@link #listen}), or a servlet container's {@code AxisServlet} ({@link #serveThroughContainer}).
 * {@link #stopServing} stops the server; {@link #close} then terminates the context and deletes the
 * repository.
 */
final class Axis2Lifecycle implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Axis2Lifecycle.class);

    private final Path repository;
    private final ConfigurationContext context;
    private volatile ServerSocket serverSocket;
    /** What strangers' connections to the SOAP port may cost; {@code null} in a servlet container. */
    private volatile ConnectionGuard guard;
    // Axis2's embedded server itself, not its SimpleHTTPServer listener wrapper: the wrapper's stop() prints
    // "[SimpleHTTPServer] Stop called" on standard output, an extra line after every host's last words
    private volatile SimpleHttpServer http;
    private volatile String baseUrl;

    private Axis2Lifecycle(Path repository, ConfigurationContext context) {
        this.repository = repository;
        this.context = context;
    }

    /**
     * Creates the repository (a temporary directory; {@code services/} links to {@code servicesDir}
     * if given) and the configuration context, which deploys the archives found there.
     */
    static Axis2Lifecycle create(String hostId, Path servicesDir, boolean inServletContainer) throws IOException {
        if (SWEPT.compareAndSet(false, true)) {
            sweepOrphans(Path.of(System.getProperty("java.io.tmpdir")));
        }
        Path repository = Files.createTempDirectory(Orphans.named(REPOSITORY_PREFIX + hostId + "-pid"));
        // a JVM that exits before the host is closed still deletes the repository: 'run --local' gives up the
        // start of its embedded host when the document does not compile, and exits while the host is starting
        Thread atExit = new Thread(() -> FileTrees.deleteQuietly(repository), "mpfl-host-repository-delete");
        Runtime.getRuntime().addShutdownHook(atExit);
        try {
            Axis2Lifecycle lifecycle = new Axis2Lifecycle(repository, Axis2Setup.create(repository, servicesDir, inServletContainer));
            lifecycle.atExit = atExit;
            return lifecycle;
        } catch (IOException | RuntimeException e) {
            FileTrees.deleteQuietly(repository);
            removeHook(atExit);
            throw e;
        }
    }

    /** Repositories are {@code mpfl-host-HOSTID-pidPID-N}: the PID tells a killed host's from a live one's. */
    private static final String REPOSITORY_PREFIX = "mpfl-host-";
    private static final java.util.regex.Pattern ORPHAN = java.util.regex.Pattern.compile("mpfl-host-.+-pid(\\d+)-\\d+");
    private static final java.util.concurrent.atomic.AtomicBoolean SWEPT = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * Removes the repositories of hosts that are gone ({@link Orphans}): a host killed by SIGKILL or the OOM killer
     * leaves the workflow's archives and jars in the temporary directory.
     */
    static void sweepOrphans(Path directory) {
        Orphans.sweep(directory, REPOSITORY_PREFIX + "*", ORPHAN);
    }

    /** The shutdown hook that deletes the repository if the JVM exits before {@link #close}. */
    private Thread atExit;

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs or ran: it deletes what close deletes
        }
    }

    /** The servlet container listens (and does TLS, if configured there): no socket of ours. */
    void serveThroughContainer(String containerBaseUrl) {
        this.baseUrl = containerBaseUrl.endsWith("/") ? containerBaseUrl.substring(0, containerBaseUrl.length() - 1)
                : containerBaseUrl;
    }

    /** Binds {@code bind:port} and serves SOAP there with the given workers; service URLs name {@code advertise}. */
    void listen(TlsSettings tls, String bind, int port, String advertise, WorkerFactory workers) throws IOException {
        // plain TCP: TLS is layered over each accepted connection once the guard admitted it (HostHttpFactory)
        ServerSocket socket = new ServerSocket();
        this.serverSocket = socket; // closed by close() if anything below fails
        socket.setReuseAddress(true);
        try {
            socket.bind(new InetSocketAddress(InetAddress.getByName(bind), port), 256);
        } catch (IOException e) {
            throw new IOException("cannot open the SOAP endpoint on " + bind + ":" + port + ": " + e.getMessage(), e);
        }
        this.baseUrl = tls.scheme() + "://" + advertise + ":" + socket.getLocalPort();
        this.guard = new ConnectionGuard("soap-" + socket.getLocalPort(), HostGuardLimits.fromSettings());
        HostHttpFactory factory = new HostHttpFactory(context, socket, workers, tls, guard);
        SimpleHttpServer server = new SimpleHttpServer(factory, factory.getPort());
        this.http = server;
        server.init();
        server.start();
    }

    ConfigurationContext context() {
        return context;
    }

    /** The private repository ({@code services/} holds the deployed archives). */
    Path repository() {
        return repository;
    }

    /** {@code http(s)://ADDR:PORT} of whoever serves SOAP. */
    String baseUrl() {
        return baseUrl;
    }

    /** The HTTP port: the host's own, or the servlet container's (from its base URL). */
    int port() {
        ServerSocket s = serverSocket;
        return s != null ? s.getLocalPort() : java.net.URI.create(baseUrl).getPort();
    }

    /**
     * Whether a servlet container carries the requests: its {@code AxisServlet} keeps a request's
     * headers in the message context, the host's own worker does not.
     */
    boolean servedByContainer() {
        return serverSocket == null;
    }

    /** The guard of the SOAP port, or {@code null} in a servlet container. */
    ConnectionGuard guard() {
        return guard;
    }

    /** Stops taking requests (the HTTP server and its socket); the context stays until {@link #close}. */
    void stopServing() {
        SimpleHttpServer server = http;
        http = null; // stopped once, whoever calls first
        try {
            if (server != null) {
                server.destroy();
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("stopping HTTP", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.debug("stopping HTTP", e);
        }
        try {
            if (serverSocket != null) {
                serverSocket.close();
            }
        } catch (IOException ignored) {
            // closing
        }
        if (guard != null) {
            guard.close();
        }
    }

    @Override
    public void close() {
        stopServing();
        java.util.Set<Path> tempJars = Axis2TempJars.of(context.getAxisConfiguration());
        try {
            context.terminate();
        } catch (AxisFault e) {
            LOG.debug("terminating Axis2", e);
        }
        Axis2TempJars.delete(tempJars);
        // services/ may be a link to the user's directory: the helper deletes the link, never its content
        FileTrees.deleteQuietly(repository);
        if (atExit != null) {
            removeHook(atExit);
        }
    }
}
