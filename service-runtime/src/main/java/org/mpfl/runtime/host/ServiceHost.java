package org.mpfl.runtime.host;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.context.MessageContext;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.runtime.p2p.MessagingHost;
import org.mpfl.runtime.p2p.MessagingSettings;
import org.mpfl.runtime.p2p.RankRegistry;
import org.mpfl.runtime.p2p.RankInstance;
import org.mpfl.runtime.topology.CollectiveCommunicator;
import org.mpfl.runtime.transport.Inbox;
import org.mpfl.runtime.transport.MemoryBudget;
import org.mpfl.runtime.transport.TransportSelector;
import org.mpfl.runtime.transport.soap.SoapTransport;

/**
 * An MPFL service host: one JVM's Axis2 {@code SimpleHTTPServer} publishing MPIWS service types,
 * the registry of the rank instances living here, and the transports their messages use (assembled by
 * {@link MessagingHost}, the same as for an in-process host without HTTP).
 *
 * <p>A <b>service type</b> is a name bound to a {@link RankProgram} factory; it is published at
 * {@code http://ADDR:PORT/axis2/services/NAME} with the operations {@code run}, {@code store},
 * {@code bstore}, {@code status}, {@code abort} and its WSDL at {@code …/NAME?wsdl}. Types come from
 * {@link #registerServiceType} or from {@code .aar} archives in the services directory whose
 * {@code services.xml} names the program class in the service parameter {@value #PROGRAM_PARAMETER}.
 *
 * <p>One host per JVM (Axis2 wants one {@link ConfigurationContext} per JVM); several hosts run side
 * by side as separate processes on different ports or addresses.
 *
 * <p>The host is a composition; each step has one owner: {@link Axis2Lifecycle} (repository,
 * configuration context, HTTP server, shutdown), {@link ServiceArchives} (receiving, unpacking and
 * binding {@code .aar} archives), {@link CallerAuthentication} (who may make the host act),
 * {@link MpiwsDispatch} (the service types and their MPIWS operations) and {@link RankTable} (the
 * ranks that {@code run}, {@code status} and {@code abort} act on).
 */
public final class ServiceHost implements AutoCloseable, MpiwsHandler {
    static {
        HostMain.quietLogging();
    }

    /** Axis2 service parameter holding the {@link ServiceHost} that serves it. */
    public static final String HOST_PARAMETER = "mpfl.serviceHost";
    /** Axis2 service parameter (services.xml) naming the {@link RankProgram} class of a service type. */
    public static final String PROGRAM_PARAMETER = "mpfl.rankProgram";

    /**
     * How to start a host.
     *
     * @param bind        address to listen on ({@code 127.0.0.1} by default)
     * @param port        HTTP port, 0 for an ephemeral one
     * @param servicesDir directory of {@code .aar} service archives, or {@code null}
     * @param hostId      unique id, or {@code null} to generate one
     * @param advertise   host name or address put into service URLs, or {@code null} for {@code bind}
     * @param binary      whether to offer the binary channel (on {@code bind})
     * @param binaryPort  the binary channel's port, 0 for an ephemeral one (a fixed one lets a firewall open it)
     * @param tls         TLS of the SOAP endpoint, of the binary channel and of every client this host uses
     *                    ({@link TlsSettings#NONE}: plaintext)
     * @param awaitCredential whether the credential comes after the start ({@link #setCredential}, e.g. from
     *                    the launcher on standard input): until it does, the host refuses every call that
     *                    makes it act (deploy, {@code run}, extensions), also from this machine
     */
    public record Options(String bind, int port, Path servicesDir, String hostId, String advertise, boolean binary,
                          int binaryPort, TlsSettings tls, boolean awaitCredential) {
        /** Options of a host whose credential, if any, is set before it serves an engine. */
        public Options(String bind, int port, Path servicesDir, String hostId, String advertise, boolean binary,
                       int binaryPort, TlsSettings tls) {
            this(bind, port, servicesDir, hostId, advertise, binary, binaryPort, tls, false);
        }

        /** Plaintext options (TLS off), the binary channel on an ephemeral port. */
        public Options(String bind, int port, Path servicesDir, String hostId, String advertise, boolean binary) {
            this(bind, port, servicesDir, hostId, advertise, binary, TlsSettings.NONE);
        }

        /** The binary channel on an ephemeral port. */
        public Options(String bind, int port, Path servicesDir, String hostId, String advertise, boolean binary,
                       TlsSettings tls) {
            this(bind, port, servicesDir, hostId, advertise, binary, 0, tls);
        }

        public Options {
            tls = tls == null ? TlsSettings.NONE : tls;
            if (port < 0 || port > 65535 || binaryPort < 0 || binaryPort > 65535) {
                throw new IllegalArgumentException("ports are 0..65535 (0: any free port), got " + port + " and " + binaryPort);
            }
        }

        public static Options loopback() {
            return new Options("127.0.0.1", 0, null, null, null, true);
        }
    }

    /**
     * What an attacker on the network can do to a host that listens without TLS (the start-up
     * warning, see {@link TlsSettings#plaintextWarning}).
     */
    static final String PLAINTEXT_EXPOSURE = "can read and alter every message between ranks (workflow data, domain "
            + "tokens and proofs, service archives with their deploy credential) and can impersonate this host";


    private final String hostId;
    private final TlsSettings tls;
    /** The registry, the local/binary/SOAP transports and their selector: assembled by {@link MessagingHost}. */
    private final MessagingHost messaging;
    /** The source addresses this host's guards serve from the reserve before they prove anything. */
    private final KnownSources knownSources;
    private final RankRegistry registry;
    private final String binaryAddress;
    private final TransportSelector selector;
    /** Who may make this host act. */
    private final CallerAuthentication callers;
    /** The service types and their MPIWS operations. */
    private final MpiwsDispatch dispatch;
    /** The ranks started here ({@code run}, {@code status}, {@code abort}). */
    private final RankTable rankTable;
    private final ExecutorService eventThreads;
    /** The Axis2 context, the repository and the HTTP server ({@code null} only while starting failed). */
    private final Axis2Lifecycle axis2;
    private final ServiceArchives archives;
    private volatile Function<RankInstance, Communicator> worldFactory = CollectiveCommunicator::world;
    private volatile boolean closed;

    /**
     * @param containerBaseUrl {@code null}: this host serves HTTP itself (Axis2's {@code SimpleHTTPServer}
     *                         on {@code o.port()}); else the {@code http(s)://ADDR:PORT} of the servlet
     *                         container whose {@code AxisServlet} serves this host's Axis2 context
     */
    private ServiceHost(Options o, String containerBaseUrl) throws IOException {
        this.hostId = o.hostId() != null ? o.hostId() : "host-" + UUID.randomUUID().toString().substring(0, 8);
        this.tls = o.tls();
        if (tls.enabled() && !tls.serves()) {
            throw new IOException("TLS: a host needs its own certificate and key (--tls-cert/--tls-key or --tls-keystore), "
                    + "not only --tls-ca");
        }
        this.eventThreads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "mpfl-events-" + hostId);
            t.setDaemon(true);
            return t;
        });
        String bind = o.bind() == null ? "127.0.0.1" : o.bind();
        String advertise = o.advertise() != null ? o.advertise()
                : (InetAddress.getByName(bind).isAnyLocalAddress() ? InetAddress.getLocalHost().getHostAddress() : bind);
        // also used directly for abort fan-out to the other hosts of a domain (closed by the messaging host)
        SoapTransport soap = new SoapTransport(tls);
        try {
            // with TLS on, the binary channel runs over TLS too (same certificate, same CA)
            this.messaging = MessagingHost.start(hostId, o.binary() ? bind : null, o.binaryPort(), advertise,
                    MessagingSettings.fromSystemProperties(), MemoryBudget.fromSystemProperties(), soap, tls);
        } catch (java.io.UncheckedIOException e) {
            eventThreads.shutdownNow();
            soap.close();
            // "cannot open the binary channel on ADDR:PORT: Address already in use": which socket, and why
            throw new IOException(e.getMessage() + ": " + e.getCause().getMessage(), e.getCause());
        }
        this.registry = messaging.registry();
        this.selector = messaging.selector();
        this.binaryAddress = messaging.binaryAddress();
        this.dispatch = new MpiwsDispatch(this);
        this.rankTable = new RankTable(hostId, registry, selector, soap, eventThreads, tls, dispatch::programs,
                () -> worldFactory, () -> closed);
        Axis2Lifecycle started = null;
        try {
            started = Axis2Lifecycle.create(hostId, o.servicesDir(), containerBaseUrl != null);
            Axis2Lifecycle lifecycle = started;
            this.callers = new CallerAuthentication(o.awaitCredential(), lifecycle::servedByContainer);
            this.archives = new ServiceArchives(lifecycle.repository(), lifecycle.context(), dispatch);
            archives.bindDeployed();
            if (containerBaseUrl != null) {
                lifecycle.serveThroughContainer(containerBaseUrl);
            } else {
                lifecycle.listen(tls, bind, o.port(), advertise, () -> new MpiwsWorker(this));
            }
        } catch (IOException | RuntimeException e) {
            if (started != null) {
                started.close();
            }
            messaging.close();
            eventThreads.shutdownNow();
            throw e;
        }
        this.axis2 = started;
        this.knownSources = new KnownSources(started.guard(), messaging.binaryGuard());
    }

    /** Starts a host (the HTTP endpoint accepts requests when this returns). */
    public static ServiceHost start(Options options) throws IOException {
        return new ServiceHost(options, null);
    }

    /**
     * Starts a host whose HTTP a servlet container serves (the MPIWS web application in Tomcat): no
     * socket of its own for SOAP; the container's {@code AxisServlet}, mapped at
     * {@value MpiwsNames#SERVICES_PATH}, must be given {@link #axis2Context()} (its servlet-context
     * attribute {@code CONFIGURATION_CONTEXT}) so that it dispatches to this host's services.
     * Everything else — the rank table, the binary channel ({@code options.binary()} on
     * {@code options.bind()}), deployments, the credential — is as in {@link #start}.
     *
     * @param containerBaseUrl the container's {@code http(s)://ADDR:PORT} as the engine and the other
     *                         hosts reach it (service URLs are {@code containerBaseUrl/axis2/services/TYPE})
     */
    public static ServiceHost startInContainer(Options options, String containerBaseUrl) throws IOException {
        if (containerBaseUrl == null || !containerBaseUrl.matches("https?://[^/?#]+/?")) {
            throw new IOException("the container's base URL must be http(s)://ADDR:PORT, got " + containerBaseUrl);
        }
        return new ServiceHost(options, containerBaseUrl);
    }

    // ------------------------------------------------------------------ identity and addresses

    public String hostId() {
        return hostId;
    }

    /** The TLS settings of this host (its clients of the engine and of other hosts use them too). */
    public TlsSettings tls() {
        return tls;
    }

    /** {@code http://ADDR:PORT}, or {@code https://…} with TLS on. */
    public String baseUrl() {
        return axis2.baseUrl();
    }

    /** The HTTP port: this host's own, or the servlet container's (from its base URL). */
    public int port() {
        return axis2.port();
    }

    /** The SOAP address of a service type in this host. */
    public String serviceUrl(String serviceType) {
        return baseUrl() + MpiwsNames.SERVICES_PATH + serviceType;
    }

    /** {@code host:port} of this host's binary channel, or {@code null} when it offers none. */
    public String binaryAddress() {
        return binaryAddress;
    }

    /** Logs {@code message} (info) as every rank of this host that still runs; how many there were ({@link RankTable#tellLiveRanks}). */
    int tellLiveRanks(String message) {
        return rankTable.tellLiveRanks(message);
    }

    /** Serves a binary-channel connection a relay spliced to this host ({@link HostRelay}), without a copy through loopback. */
    void adoptBinary(java.nio.channels.SocketChannel ch) throws java.io.IOException {
        messaging.adoptBinary(ch);
    }

    /** Where a rank of {@code serviceType} placed in this host can be reached. */
    public Endpoint endpoint(String serviceType) {
        return new Endpoint(serviceUrl(serviceType), binaryAddress, hostId);
    }

    /** This JVM's Axis2 configuration context (clients in this JVM must share it, see the Axis2 notes). */
    public ConfigurationContext axis2Context() {
        return axis2.context();
    }

    /** The receiving side of every transport in this host. */
    @Override
    public Inbox inbox() {
        return registry;
    }

    public RankRegistry registry() {
        return registry;
    }

    /** The transport selector the ranks of this host use. */
    public TransportSelector selector() {
        return selector;
    }

    /**
     * Replaces how the world communicator of a new rank is made from its instance (default: the
     * collectives layer's {@link CollectiveCommunicator#world}).
     */
    public void setWorldFactory(Function<RankInstance, Communicator> factory) {
        this.worldFactory = factory;
    }

    // ------------------------------------------------------------------ service types

    /** Publishes a service type (idempotent for the same name: the factory is replaced). */
    public synchronized void registerServiceType(String name, Supplier<RankProgram> factory) throws AxisFault {
        dispatch.register(axis2.context(), name, factory);
    }

    public boolean hasServiceType(String name) {
        return dispatch.has(name);
    }

    public Set<String> serviceTypes() {
        return dispatch.names();
    }

    /** Path of the deployment endpoint ({@code POST …?service=NAME}, body: the {@code .aar}). */
    public static final String DEPLOY_PATH = MpiwsNames.SERVICES_PATH + "mpfl-deploy";

    /** Where the engine POSTs service archives. */
    public String deployUrl() {
        return baseUrl() + DEPLOY_PATH;
    }

    // ------------------------------------------------------------------ callers

    /**
     * The message-context property under which the host's HTTP worker leaves a request's
     * {@code Authorization} header for the message receivers (Axis2's simple server keeps no headers).
     */
    public static final String AUTHORIZATION_PROPERTY = "mpfl.authorization";

    /**
     * Sets the host's credential: from now on deployments, {@code run} and extensions' operations need
     * the engine's key for this host ({@link HostCredential#acceptsEngine}). Until then a host started
     * with {@link Options#awaitCredential} refuses them all; one started without serves this machine.
     */
    public void setCredential(HostCredential credential) {
        callers.setCredential(credential);
        if (credential != null) {
            knownSources.trustEngine(credential.engineUrl());
        }
    }

    /**
     * Whether a call that makes this host act (deploy, {@code run}, an extension's operation) comes
     * from the engine: with a credential, the {@code Authorization} header must carry the engine's key
     * for this host; without one (a host that serves no engine), the caller must be on this machine.
     *
     * @param authorization the request's {@code Authorization} header, or {@code null}
     * @param remoteAddress the caller's address as Axis2 reports it ({@link MessageContext#REMOTE_ADDR})
     */
    public boolean acceptsEngineCall(String authorization, Object remoteAddress) {
        return callers.acceptsEngineCall(authorization, remoteAddress);
    }

    /** {@link #acceptsEngineCall} for the request of a message context (as the host's receivers see it). */
    public boolean acceptsEngineCall(MessageContext mc) {
        return callers.acceptsEngineCall(mc);
    }

    // ------------------------------------------------------------------ service archives

    /** The largest service archive a deploy request may carry. */
    public static final int MAX_ARCHIVE_BYTES = 256 * 1024 * 1024;

    /**
     * The HTTP answer to a deploy request.
     *
     * @param status 201 deployed, 403 not the engine of this host, 400 the archive was refused
     * @param text   what happened, for the caller (plain text)
     */
    public record DeployAnswer(int status, String text) {
    }

    /**
     * A deploy request ({@code POST …/mpfl-deploy?service=NAME}, body: the {@code .aar}), whichever
     * HTTP server carries it (this host's own, or a servlet container's): the caller is authorised
     * ({@link #acceptsEngineCall(String, Object)}) <em>before</em> a byte of the body is read, and the
     * body is read up to {@link #MAX_ARCHIVE_BYTES}.
     */
    public DeployAnswer handleDeploy(String name, String authorization, Object remoteAddress, java.io.InputStream body)
            throws IOException {
        if (!acceptsEngineCall(authorization, remoteAddress)) {
            return new DeployAnswer(403, "deployment refused: not the engine of this host (missing or wrong host key)");
        }
        synchronized (this) {
            return archives.receive(name, body);
        }
    }

    /**
     * Deploys a service archive ({@code .aar}: a jar with {@code META-INF/services.xml} naming the
     * program class in the parameter {@value #PROGRAM_PARAMETER}) under {@code name} and publishes
     * its service type.
     */
    public synchronized void deployArchive(String name, byte[] archive) throws IOException {
        archives.deploy(name, archive);
    }

    /** Called after each successful deployment (the engine announcer re-announces the service types). */
    public void onDeploy(Runnable listener) {
        archives.onDeploy(listener);
    }

    // ------------------------------------------------------------------ operations

    /** {@code run}: creates the rank instance and starts its program; answers at once. */
    @Override
    public String handleRun(String serviceType, String runXml) throws OperationFault {
        String answer = rankTable.handleRun(serviceType, runXml);
        try {
            // accepted, so the engine sent it: the peers it names are known to this host's guards
            knownSources.rememberPeers(org.mpfl.protocol.RunMessages.parseRun(runXml).endpoints());
        } catch (javax.xml.stream.XMLStreamException | RuntimeException e) {
            // rankTable parsed it already; the peers then prove themselves as strangers do
        }
        return answer;
    }

    /** Starts one rank of {@code serviceType} in this host (what {@code run} does). */
    public String startRank(String serviceType, RunRequest req) throws OperationFault {
        return rankTable.startRank(serviceType, req);
    }

    /** {@code status}: the state of one rank instance ({@code unknown} if this host has none). */
    @Override
    public String handleStatus(String statusXml) throws OperationFault {
        return rankTable.handleStatus(statusXml);
    }

    /** The status of one rank instance of this host. */
    public RankStatus status(String domainId, int rank) {
        return rankTable.status(domainId, rank);
    }

    /** {@code abort}: aborts the domain in this host if the proof is valid. */
    @Override
    public void handleAbort(String abortXml) throws OperationFault {
        rankTable.handleAbort(abortXml);
    }

    // ------------------------------------------------------------------ shutdown

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // as before the split: no new requests, then the ranks' messaging, then Axis2 and its repository
        axis2.stopServing();
        messaging.close();
        eventThreads.shutdownNow();
        axis2.close();
    }
}
