package org.mpfl.engine;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;
import org.apache.camel.impl.DefaultCamelContext;
import org.mpfl.engine.access.AccessPolicy;
import org.mpfl.engine.access.Audit;
import org.mpfl.engine.access.OidcVerifier;
import org.mpfl.engine.capacity.CapacityManager;
import org.mpfl.engine.deploy.DeploymentService;
import org.mpfl.engine.deploy.HttpArchiveDeployer;
import org.mpfl.engine.registry.HostCredentials;
import org.mpfl.engine.registry.HostFile;
import org.mpfl.engine.registry.HostRegistry;
import org.mpfl.engine.rest.CheckpointUploads;
import org.mpfl.engine.rest.AllowedMethods;
import org.mpfl.engine.rest.AccessFilter;
import org.mpfl.engine.rest.EngineRoutes;
import org.mpfl.engine.rest.EventStream;
import org.mpfl.engine.rest.GuardedHttpServer;
import org.mpfl.engine.rest.RankEventAdmission;
import org.mpfl.engine.settings.EngineSettings;
import org.mpfl.engine.rest.BodilessReads;
import org.mpfl.engine.rest.SecurityHeaders;
import org.mpfl.engine.rest.StaticConsole;
import org.mpfl.engine.rest.UndecodableTargets;
import org.mpfl.engine.rest.UnroutedRequests;
import org.mpfl.engine.run.RankFanOut;
import org.mpfl.engine.run.RankInvoker;
import org.mpfl.engine.run.Reattachment;
import org.mpfl.engine.run.RunService;
import org.mpfl.engine.run.SoapRankInvoker;
import org.mpfl.engine.run.checkpoint.CheckpointStore;
import org.mpfl.engine.store.EngineDatabase;
import org.mpfl.engine.store.HostCredentialStore;
import org.mpfl.engine.workflow.WorkflowService;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.guard.ConnectionGuard;
import org.mpfl.protocol.tls.TlsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The enactment engine in one object and its composition root: creates the store, registry,
 * deployments, run and workflow services and the HTTP server (REST API, event stream and console on
 * one port) and wires them together. Nothing in the engine's packages depends on this class.
 * {@link #start} returns once it serves; {@link #close} stops everything it started.
 */
public final class Engine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);
    /** The HTTP server's bound on a request body (a larger one is answered 413). */
    static final long MAX_BODY_BYTES = 256L * 1024 * 1024;
    /** File in the data directory holding the engine token (mode 0600). */
    public static final String TOKEN_FILE = "engine.token";
    /** File in the data directory holding the URL of the engine last started there. */
    public static final String URL_FILE = "engine.url";

    private final EngineConfig config;
    private final String token;
    private final String url;
    private final EngineDatabase database;
    private final HostRegistry registry;
    private final HostCredentials credentials;
    private final RunService runs;
    private final Reattachment reattachment;
    private final DeploymentService deployments;
    private final WorkflowService workflows;
    private final CamelContext camel;
    private final ExecutorService fanOutPool;
    private final RankFanOut fanOut;
    private final AccessPolicy access;
    private final Audit audit;
    /** Brings hosts from a scheduler for queued runs, or {@code null}. */
    private final CapacityManager capacity;
    private final GuardedHttpServer httpServer;

    /** @param port where the HTTP server listens (a free one reserved by {@link #start} when the configuration says 0) */
    private Engine(EngineConfig config, int port) throws Exception {
        this.config = config;
        createDataDirectory(config.dataDir());
        // before the database opens: an unusable one stops the start with nothing left open (one line naming it and why)
        DeploymentService.archiveDirectory(config.dataDir().resolve("archives"));
        this.token = config.token() != null ? config.token() : loadOrCreateToken(config.dataDir());
        TlsSettings tls = config.tls();
        TlsSettings.plaintextWarning("the engine", config.bindHost(), tls.serves(), PLAINTEXT_EXPOSURE).ifPresent(w -> {
            // stderr, not the log: the one line an operator must not miss, whatever the log settings
            System.err.println("mpflc: " + w);
            System.err.flush();
        });
        String host = config.bindHost().equals("0.0.0.0") ? InetAddress.getLocalHost().getHostName() : config.bindHost();
        this.url = config.publicUrl() != null ? stripSlash(config.publicUrl()) : tls.scheme() + "://" + host + ":" + port;

        this.database = config.isThrowawayDatabase() ? EngineDatabase.openThrowaway()
                : config.jdbcUrl() != null ? EngineDatabase.open(config.jdbcUrl(), config.jdbcUser(), config.jdbcPassword())
                : EngineDatabase.openEmbedded(config.dataDir());
        this.registry = new HostRegistry(config.heartbeatTimeout());
        registry.engineLossGrace(config.engineLossGrace());
        registry.relays().relayReturn(config.relayReturn());
        this.credentials = new HostCredentials(credentialStore(database.credentials()));
        if (config.hostFile() != null) {
            registry.addStatic(HostFile.read(config.hostFile()));
        }
        // before any HTTP client to hosts exists: hosts behind a relay are called through it
        registry.relays().engineDialer(credentials);
        this.deployments = new DeploymentService(config.dataDir().resolve("archives"), registry,
                new HttpArchiveDeployer(config.runSettings().fanOutTimeout(), credentials::engineAuthorization, tls));

        this.camel = new DefaultCamelContext();
        camel.getCamelContextExtension().setName("mpfl-engine");
        // bounded stop: in-flight requests get 10 s (Camel's default would wait 45 s)
        camel.getShutdownStrategy().setTimeout(10);
        VertxPlatformHttpServerConfiguration http = new VertxPlatformHttpServerConfiguration();
        http.setBindHost(config.bindHost());
        http.setBindPort(port);
        http.setMaxBodySize(MAX_BODY_BYTES);
        // TLS is the guarded server's own (Vert.x options), not Camel's SSLContextParameters
        this.httpServer = new GuardedHttpServer(http, tls, new ConnectionGuard("engine-http", guardLimits()));
        camel.addService(httpServer);
        camel.getRestConfiguration().setComponent("platform-http");
        // a failure outside a route's own handling (EngineRoutes answers every exception it sees) is answered as a
        // bare 500: platform-http would otherwise send the exception's stack trace to the client
        camel.getRestConfiguration().setEndpointProperties(java.util.Map.of("muteException", "true"));
        this.fanOutPool = Executors.newFixedThreadPool(config.fanOutThreads(), daemonThreads("mpfl-fan-out"));
        this.fanOut = RankFanOut.install(camel, fanOutPool, config.runSettings().fanOutTimeout());
        RankInvoker invoker = config.invoker() != null ? config.invoker() : new SoapRankInvoker(config.runSettings().fanOutTimeout(),
                credentials::engineAuthorization, tls);
        this.runs = new RunService(registry, database.runs(), database.liveDomains(), invoker, deployments, fanOut,
                config.runSettings(), () -> url,
                new CheckpointStore(config.checkpointDir(), config.checkpointMaxBytes()));
        // runs the previous engine left RUNNING are taken over before the API serves (their hosts'
        // redelivered events must find them); the others still going are marked FAILED
        this.reattachment = new Reattachment(runs, database.runs(), database.liveDomains(), invoker, registry,
                config.reattachGrace());
        reattachment.adopt();
        // the compiler's diagnostics name a run's param values by the REST request's field, not the command line's --param
        this.workflows = new WorkflowService(database.workflows(),
                config.compiler().namingParams(org.mpfl.ir.plan.ParamValues.Naming.JSON_FIELD), deployments, runs);
        this.access = accessPolicy(config, token, credentials, database);
        this.audit = new Audit(database.access(), config.auditRetention());
        // made before the routes (GET /api/capacity reads it), started after the orphaned domains are gone as before
        this.capacity = config.capacityProvider() == null ? null : new CapacityManager(config.capacityProvider(),
                config.capacitySettings(), runs, registry, credentials, database.capacityJobs(), () -> url);
        camel.addRoutes(new EngineRoutes(new EngineRoutes.Api(() -> url, token, registry, credentials, runs,
                workflows, deployments, access, capacity)));
        camel.start();
        runs.abortOrphanedDomains();
        reattachment.start();
        if (capacity != null) {
            capacity.start();
        }

        VertxPlatformHttpRouter router = VertxPlatformHttpRouter.lookup(camel, VertxPlatformHttpRouter.getRouterNameFromPort(port));
        if (router == null) {
            throw new IllegalStateException("the HTTP server did not start on port " + port);
        }
        httpServer.install(router);
        SecurityHeaders.install(router);
        BodilessReads.install(router);
        UndecodableTargets.install(router);
        UnroutedRequests.install(router);
        AllowedMethods.install(router);
        AccessFilter.install(router, access, audit, database.access(), access.users()
                .map(users -> new org.mpfl.engine.access.ConsoleSessions(users, database.consoleSessions()))
                .filter(org.mpfl.engine.access.ConsoleSessions::enabled).orElse(null), () -> url);
        CheckpointUploads.install(router, runs.checkpoints());
        RankEventAdmission.install(router, runs.eventIntake(), MAX_BODY_BYTES);
        EventStream.install(router, runs, database.runs(), access);
        StaticConsole.install(router);
        Files.writeString(config.dataDir().resolve(URL_FILE), url + "\n", StandardCharsets.UTF_8);
        LOG.info("MPFL engine at {} (data {})", url, config.dataDir());
    }

    /**
     * The access policy: reads are open only on loopback without an issuer, or when the operator turned
     * anonymous reads on (which on any other address prints a warning: anyone who reaches the port reads
     * every run).
     */
    private static AccessPolicy accessPolicy(EngineConfig config, String token, HostCredentials credentials, EngineDatabase db)
            throws IOException {
        boolean loopback = InetAddress.getByName(config.bindHost()).isLoopbackAddress();
        if (config.anonymousRead() && !loopback) {
            System.err.println("mpflc: WARNING: --anonymous-read: anyone who reaches " + config.bindHost() + " reads every run, "
                    + "workflow and log of every project without a credential");
            System.err.flush();
        }
        OidcVerifier users = config.oidc() == null ? null : new OidcVerifier(config.oidc());
        return new AccessPolicy(token, credentials::authenticate, users, config.anonymousRead(), loopback && config.oidc() == null,
                db.access());
    }

    /**
     * What an attacker on the network can do to an engine that listens without TLS (the start-up
     * warning, see {@link TlsSettings#plaintextWarning}).
     */
    static final String PLAINTEXT_EXPOSURE = "can read and alter its traffic — the engine token and host credentials "
            + "sent with requests, workflows, parameters and results — and can impersonate the engine to hosts and the "
            + "command line";

    /** The limits of the HTTP port's {@link ConnectionGuard} (docs/cli.md, {@code mpfl.engine.*}). */
    static ConnectionGuard.Limits guardLimits() {
        return new ConnectionGuard.Limits(java.time.Duration.ofMillis(EngineSettings.GUARD_PROOF_DEADLINE_MS.get()),
                EngineSettings.GUARD_PER_SOURCE.get(), EngineSettings.GUARD_STRANGERS.get(), java.time.Duration.ofMinutes(30));
    }

    /** Starts an engine; returns once it serves HTTP. */
    public static Engine start(EngineConfig config) throws Exception {
        if (config.port() != 0) {
            ensureFree(config.bindHost(), config.port());
        }
        Socket reservation = config.port() == 0 ? reservePort(config.bindHost()) : null;
        try {
            return new Engine(config, reservation == null ? config.port() : reservation.getLocalPort());
        } finally {
            // the server listens now (or never will): the port is its own
            if (reservation != null) {
                reservation.close();
            }
        }
    }

    private static java.util.concurrent.ThreadFactory daemonThreads(String name) {
        java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * A free port, reserved: the platform-http router is registered under the configured port, so the
     * engine must know its port before the server starts (port 0 would leave REST routes unbound). The
     * returned socket is bound to it (with SO_REUSEADDR, not listening) until the server listens there
     * (also with SO_REUSEADDR, which Linux allows next to a bound socket that does not listen): the
     * kernel gives a reserved port to no one binding port 0 meanwhile — such as the local hosts, which
     * now start at the same time as their engine and took its port once in a while.
     */
    /**
     * A given port that another server listens on fails the start here, saying so: Vert.x only logs
     * that it could not bind, and the engine would start and serve nothing. (A port left in TIME_WAIT
     * by an engine that just stopped is free: SO_REUSEADDR, as Vert.x binds.)
     */
    static void ensureFree(String bindHost, int port) throws IOException {
        try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(InetAddress.getByName(bindHost), port));
        } catch (java.net.BindException e) {
            throw new IOException("cannot listen on " + bindHost + ":" + port + ": the port is in use (another engine?); "
                    + "stop what listens there or choose another port with --port", e);
        }
    }

    static Socket reservePort(String bindHost) throws IOException {
        Socket s = new Socket();
        try {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getByName(bindHost), 0));
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    private static String stripSlash(String s) {
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    /**
     * Creates an engine's data directory as the engine does (for a caller that puts something there before
     * the engine starts): a directory created here holds the token and live domains' credentials, so it
     * is the owner's only (0700) where POSIX; an existing one given with --data keeps its permissions.
     */
    public static Path createDataDirectory(Path dir) throws IOException {
        boolean fresh = !Files.exists(dir);
        DeploymentService.usableDirectory("the data directory", dir);
        if (fresh) {
            restrictToOwner(dir);
        }
        return dir;
    }

    private static void restrictToOwner(Path dir) {
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException | IOException e) {
            LOG.debug("cannot restrict {}: {}", dir, e.getMessage());
        }
    }

    /** Reads {@code DIR/engine.token}, creating it (random 256 bits, mode 0600) when absent. */
    static String loadOrCreateToken(Path dataDir) throws IOException {
        Path file = dataDir.resolve(TOKEN_FILE);
        if (Files.isRegularFile(file)) {
            String t = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (!t.isEmpty()) {
                return t;
            }
        }
        String t = RunService.randomId(32);
        Path tmp = dataDir.resolve(TOKEN_FILE + ".tmp");
        Files.deleteIfExists(tmp);
        try {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(tmp); // not a POSIX file system: rely on the directory's protection
        }
        Files.writeString(tmp, t + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return t;
    }

    /** Host credentials kept in the engine's database (verifier and engine key of each, never a secret). */
    private static HostCredentials.Persistence credentialStore(HostCredentialStore store) {
        return new HostCredentials.Persistence() {
            @Override
            public java.util.List<HostCredentials.Entry> loadAll() {
                return store.all().stream().map(c -> new HostCredentials.Entry(c.id(), c.hostId(), c.verifier(),
                        c.engineKey(), c.createdMs(), HostCredentials.Kind.of(c.kind()))).toList();
            }

            @Override
            public void save(HostCredentials.Entry e) {
                store.save(new HostCredentialStore.StoredCredential(e.id(), e.hostId(), e.verifier(), e.engineKey(), e.createdMs(),
                        e.kind().wire()));
            }

            @Override
            public void delete(String id) {
                store.delete(id);
            }
        };
    }

    /**
     * Issues a credential for a host this engine's caller starts ({@code null} host id: a fresh one),
     * e.g. the local hosts of {@code mpflc up}; its text goes to the host in its environment.
     */
    public HostCredential issueHostCredential(String hostId) throws HostCredentials.HostIdTakenException {
        return credentials.issue(hostId, url);
    }

    /** Issues a relay's credential ({@code mpflc host-token --relay}): it runs {@code mpflc relay}, never a host. */
    public HostCredential issueRelayCredential(String relayId) throws HostCredentials.HostIdTakenException {
        return credentials.issue(relayId, url, HostCredentials.Kind.RELAY);
    }

    /** The host credentials: issue, revoke, and the key for one host (for the engine's own callers). */
    public HostCredentials credentials() {
        return credentials;
    }

    /** Base URL, e.g. {@code http://127.0.0.1:8080}. */
    public String url() {
        return url;
    }

    /**
     * The admin token: mutating REST requests and the command line carry it. It never leaves the
     * engine: no request the engine makes carries it (hosts get keys of their own).
     */
    public String token() {
        return token;
    }

    public HostRegistry registry() {
        return registry;
    }

    public RunService runs() {
        return runs;
    }

    /** The engine's database: runs, live domains, host credentials, workflow versions. */
    public EngineDatabase database() {
        return database;
    }

    public DeploymentService deployments() {
        return deployments;
    }

    /** Stored workflows and run starts (what {@code POST /api/workflows} and {@code /api/runs} call). */
    public WorkflowService workflows() {
        return workflows;
    }

    public EngineConfig config() {
        return config;
    }

    /**
     * The engine is about to stop: from now on a host leaving the registry (its goodbye, a removal, a lost heartbeat)
     * fails over no run; the runs stay as stored, for the engine started next. For whoever stops the engine's hosts
     * before or while it closes ({@code mpflc up}'s own hosts); {@link #close} says it first too.
     */
    public void stopping() {
        runs.stopping();
    }

    @Override
    public void close() {
        // first: the hosts of the jobs released below say goodbye, and runs on them are the next engine's to take up
        stopping();
        if (capacity != null) {
            // an engine stopped on purpose leaves no job behind (a killed one leaves them to its successor)
            capacity.close(true);
        }
        reattachment.stop();
        // before the runs' last records: a relay lost now must not fail a run into the store closed below
        if (!registry.relays().close(Duration.ofSeconds(5))) {
            LOG.warn("stopping relay watches: some still under way after 5 s");
        }
        try {
            runs.close();
        } catch (RuntimeException e) {
            LOG.warn("stopping runs: {}", e.getMessage());
        }
        // calls to hosts still under way (run, abort) end now rather than hold Camel's stop for its 10 s: what they
        // would have answered no longer matters (the runs stay as they are for the engine started next)
        fanOut.stop(Duration.ofSeconds(5));
        try {
            camel.close();
        } catch (Exception e) {
            LOG.warn("stopping Camel: {}", e.getMessage());
        }
        fanOutPool.shutdownNow();
        try {
            fanOutPool.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        audit.close();
        database.close();
    }

    /** The capacity provider's jobs, or empty without a provider. */
    public java.util.Optional<CapacityManager> capacity() {
        return java.util.Optional.ofNullable(capacity);
    }

    /** Who may do what: the admin token, the OpenID Connect issuer's users (if configured), projects. */
    public AccessPolicy access() {
        return access;
    }

    /** The audit trail of mutations (admins read it at {@code GET /api/audit}). */
    public Audit audit() {
        return audit;
    }
}
