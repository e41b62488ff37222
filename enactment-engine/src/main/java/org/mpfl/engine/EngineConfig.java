package org.mpfl.engine;

import java.nio.file.Path;
import java.time.Duration;
import org.mpfl.engine.run.RankInvoker;
import org.mpfl.engine.run.RunSettings;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * How to start an {@link Engine}. Defaults: loopback on port 8080, data in {@code ~/.mpfl/engine},
 * embedded H2, a generated token, 10 s heartbeat timeout, no host file. The host registry is always
 * closed: hosts announce with their own credential (see {@code docs/security.md}).
 */
public final class EngineConfig {
    private String bindHost = "127.0.0.1";
    private int port = 8080;
    private String publicUrl;
    private Path dataDir = Path.of(System.getProperty("user.home"), ".mpfl", "engine");
    private String jdbcUrl;
    private boolean throwawayDatabase;
    private String jdbcUser = "sa";
    private String jdbcPassword = "";
    private String token;
    private Path hostFile;
    private Duration heartbeatTimeout = Duration.ofSeconds(10);
    private RunSettings runSettings = RunSettings.defaults();
    private RankInvoker invoker;
    private int fanOutThreads = 64;
    private Path checkpointDir;
    private long checkpointMaxBytes = org.mpfl.engine.run.checkpoint.CheckpointStore.DEFAULT_MAX_PART_BYTES;
    private org.mpfl.ir.spi.WorkflowCompiler compiler = org.mpfl.engine.workflow.Compilers.standard();
    private TlsSettings tls = TlsSettings.NONE;
    private Duration reattachGrace = Duration.ofSeconds(60);
    private Duration engineLossGrace = Duration.ofSeconds(120);
    private Duration relayReturn = org.mpfl.engine.registry.Relays.RELAY_RETURN;
    private org.mpfl.engine.access.OidcSettings oidc;
    private boolean anonymousRead;
    private Duration auditRetention = Duration.ofDays(90);
    private org.mpfl.engine.capacity.CapacityProvider capacityProvider;
    private org.mpfl.engine.capacity.CapacitySettings capacitySettings;

    /**
     * Capacity on demand: the engine asks this provider (a scheduler) for hosts for the runs waiting in
     * its queue, within these settings ({@code mpflc up --provider slurm}).
     */
    public EngineConfig capacity(org.mpfl.engine.capacity.CapacityProvider provider, org.mpfl.engine.capacity.CapacitySettings settings) {
        this.capacityProvider = provider;
        this.capacitySettings = settings;
        return this;
    }

    /** The capacity provider, or {@code null}: only the hosts that enrol by themselves. */
    public org.mpfl.engine.capacity.CapacityProvider capacityProvider() {
        return capacityProvider;
    }

    public org.mpfl.engine.capacity.CapacitySettings capacitySettings() {
        return capacitySettings;
    }

    /** The one OpenID Connect issuer whose users the engine accepts ({@code null}: none, only the admin token). */
    public EngineConfig oidc(org.mpfl.engine.access.OidcSettings v) {
        oidc = v;
        return this;
    }

    public org.mpfl.engine.access.OidcSettings oidc() {
        return oidc;
    }

    /**
     * Reads without any credential even on a non-loopback address (a warning at start). Without it, an
     * engine on loopback without an issuer serves reads to anyone (as {@code mpflc up} and {@code run
     * --local} do) and any other engine demands a credential for every request.
     */
    public EngineConfig anonymousRead(boolean v) {
        anonymousRead = v;
        return this;
    }

    public boolean anonymousRead() {
        return anonymousRead;
    }

    /** How long the audit trail keeps an entry (default 90 days). */
    public EngineConfig auditRetention(Duration v) {
        auditRetention = v;
        return this;
    }

    public Duration auditRetention() {
        return auditRetention;
    }

    /**
     * How long a restarted engine waits for the hosts of a run it re-attaches to (answering
     * {@code status}) before it fails the run naming the host that did not come back (default 60 s).
     */
    public EngineConfig reattachGrace(Duration v) {
        reattachGrace = v;
        return this;
    }

    public Duration reattachGrace() {
        return reattachGrace;
    }

    /**
     * How long hosts keep running ranks while they cannot reach this engine (default 120 s): an
     * engine restarted within it re-attaches to its runs; past it the hosts abort the ranks.
     */
    public EngineConfig engineLossGrace(Duration v) {
        engineLossGrace = v;
        return this;
    }

    public Duration engineLossGrace() {
        return engineLossGrace;
    }

    /**
     * How long, once a relay is lost, the engine waits for it and for the hosts behind it before it gives up on
     * them (default 60 s): a restart waits this long for the relay and retries its abort of those hosts within the
     * same bound, a failed run's abort of them is retried within it, and hosts behind a relay abort their ranks
     * themselves when their link to it has been down this long (told to each host as {@code relayReturnMs}).
     */
    public EngineConfig relayReturn(Duration v) {
        relayReturn = v;
        return this;
    }

    public Duration relayReturn() {
        return relayReturn;
    }

    /**
     * TLS: with key material the REST API and console are served on {@code https}; the CA
     * ({@code --tls-ca}) is what the engine trusts when it deploys to and calls {@code https} hosts.
     */
    public EngineConfig tls(TlsSettings v) {
        tls = v == null ? TlsSettings.NONE : v;
        return this;
    }

    public TlsSettings tls() {
        return tls;
    }

    /** Address to listen on ({@code 0.0.0.0} for all interfaces). */
    public EngineConfig bindHost(String v) {
        bindHost = v;
        return this;
    }

    /** Port; 0 picks a free one. */
    public EngineConfig port(int v) {
        port = v;
        return this;
    }

    /** Base URL ranks and hosts use to reach the engine, when it differs from {@code http://bindHost:port}. */
    public EngineConfig publicUrl(String v) {
        publicUrl = v;
        return this;
    }

    public EngineConfig dataDir(Path v) {
        dataDir = v;
        return this;
    }

    /** A JDBC URL for a server database instead of the embedded one under the data directory. */
    public EngineConfig jdbc(String url, String user, String password) {
        jdbcUrl = url;
        jdbcUser = user;
        jdbcPassword = password;
        return this;
    }

    /**
     * A database in this JVM's memory instead of a file, for an engine whose records are thrown away with it
     * ({@code mpflc run --local}): no file to create, write and close, and its schema from a snapshot instead
     * of Flyway ({@code EngineDatabase.openThrowaway}); together about a fifth of the README's first run's
     * database work. It ends with the engine.
     */
    public EngineConfig throwawayDatabase() {
        throwawayDatabase = true;
        return this;
    }

    /** A fixed engine token instead of the one stored in (or generated into) {@code DATA/engine.token}. */
    public EngineConfig token(String v) {
        token = v;
        return this;
    }

    /** A static host file (see {@link org.mpfl.engine.registry.HostFile}). */
    public EngineConfig hostFile(Path v) {
        hostFile = v;
        return this;
    }

    public EngineConfig heartbeatTimeout(Duration v) {
        heartbeatTimeout = v;
        return this;
    }

    public EngineConfig runSettings(RunSettings v) {
        runSettings = v;
        return this;
    }

    /** How ranks are called ({@code null}: SOAP to the service hosts). */
    public EngineConfig invoker(RankInvoker v) {
        invoker = v;
        return this;
    }

    /** How the engine compiles documents sent instead of plans. */
    public EngineConfig compiler(org.mpfl.ir.spi.WorkflowCompiler v) {
        compiler = v;
        return this;
    }

    public org.mpfl.ir.spi.WorkflowCompiler compiler() {
        return compiler;
    }

    /** Where checkpoints are kept ({@code null}: {@code DATA/checkpoints}). */
    public EngineConfig checkpointDir(Path v) {
        checkpointDir = v;
        return this;
    }

    public Path checkpointDir() {
        return checkpointDir != null ? checkpointDir : dataDir.resolve("checkpoints");
    }

    /** The largest checkpoint part accepted from one rank, in bytes. */
    public EngineConfig checkpointMaxBytes(long v) {
        if (v < 1) {
            throw new IllegalArgumentException("the checkpoint part limit must be at least 1 byte");
        }
        checkpointMaxBytes = v;
        return this;
    }

    public long checkpointMaxBytes() {
        return checkpointMaxBytes;
    }

    public EngineConfig fanOutThreads(int v) {
        fanOutThreads = v;
        return this;
    }

    public String bindHost() {
        return bindHost;
    }

    public int port() {
        return port;
    }

    public String publicUrl() {
        return publicUrl;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Whether the engine's database lives in memory and ends with it ({@link #throwawayDatabase()}). */
    public boolean isThrowawayDatabase() {
        return throwawayDatabase;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public String jdbcUser() {
        return jdbcUser;
    }

    public String jdbcPassword() {
        return jdbcPassword;
    }

    public String token() {
        return token;
    }

    public Path hostFile() {
        return hostFile;
    }

    public Duration heartbeatTimeout() {
        return heartbeatTimeout;
    }

    public RunSettings runSettings() {
        return runSettings;
    }

    public RankInvoker invoker() {
        return invoker;
    }

    public int fanOutThreads() {
        return fanOutThreads;
    }
}
