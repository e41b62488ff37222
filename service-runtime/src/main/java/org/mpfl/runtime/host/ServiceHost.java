package org.mpfl.runtime.host;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.xml.namespace.QName;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.context.MessageContext;
import org.apache.axis2.description.AxisOperation;
import org.apache.axis2.description.AxisOperationFactory;
import org.apache.axis2.description.AxisService;
import org.apache.axis2.description.InOutAxisOperation;
import org.apache.axis2.description.WSDL2Constants;
import org.apache.axis2.engine.AxisConfiguration;
import org.apache.axis2.transport.http.SimpleHTTPServer;
import org.apache.axis2.wsdl.WSDLConstants;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.HostCredential;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.SoapFault;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 */
public final class ServiceHost implements AutoCloseable, MpiwsHandler {
    static {
        HostMain.quietLogging();
    }

    private static final Logger LOG = LoggerFactory.getLogger(ServiceHost.class);
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
    private final Path repository;
    private final ConfigurationContext axis2;
    private final ServerSocket serverSocket;
    private final SimpleHTTPServer http;
    private final String baseUrl;
    /** The registry, the local/binary/SOAP transports and their selector: assembled by {@link MessagingHost}. */
    private final MessagingHost messaging;
    /** Also used directly for abort fan-out to the other hosts of a domain (closed by {@link #messaging}). */
    private final SoapTransport soap;
    private final RankRegistry registry;
    private final String binaryAddress;
    private final TransportSelector selector;
    private final Map<String, Supplier<RankProgram>> serviceTypes = new ConcurrentHashMap<>();
    /** The ranks started here ({@code run}, {@code status}, {@code abort}). */
    private final RankTable rankTable;
    private final ExecutorService eventThreads;
    private volatile Function<RankInstance, Communicator> worldFactory = CollectiveCommunicator::world;
    private volatile boolean closed;

    private ServiceHost(Options o) throws IOException {
        this(o, null);
    }

    /**
     * @param containerBaseUrl {@code null}: this host serves HTTP itself (Axis2's {@code SimpleHTTPServer}
     *                         on {@code o.port()}); else the {@code http(s)://ADDR:PORT} of the servlet
     *                         container whose {@code AxisServlet} serves this host's Axis2 context
     */
    private ServiceHost(Options o, String containerBaseUrl) throws IOException {
        this.hostId = o.hostId() != null ? o.hostId() : "host-" + UUID.randomUUID().toString().substring(0, 8);
        this.tls = o.tls();
        this.awaitingCredential = o.awaitCredential();
        if (tls.enabled() && !tls.serves()) {
            throw new IOException("TLS: a host needs its own certificate and key (--tls-cert/--tls-key or --tls-keystore), "
                    + "not only --tls-ca");
        }
        this.repository = Files.createTempDirectory("mpfl-host-" + hostId + "-");
        this.eventThreads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "mpfl-events-" + hostId);
            t.setDaemon(true);
            return t;
        });
        String bind = o.bind() == null ? "127.0.0.1" : o.bind();
        String advertise = o.advertise() != null ? o.advertise()
                : (InetAddress.getByName(bind).isAnyLocalAddress() ? InetAddress.getLocalHost().getHostAddress() : bind);
        this.soap = new SoapTransport(tls);
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
        this.rankTable = new RankTable(hostId, registry, selector, soap, eventThreads, tls, serviceTypes::get,
                () -> worldFactory, () -> closed);
        try {
            this.axis2 = Axis2Setup.create(repository, o.servicesDir(), containerBaseUrl != null);
            deployArchivedServiceTypes();
            if (containerBaseUrl != null) {
                // the servlet container listens (and does TLS, if configured there); no socket of ours
                this.serverSocket = null;
                this.http = null;
                this.baseUrl = containerBaseUrl.endsWith("/") ? containerBaseUrl.substring(0, containerBaseUrl.length() - 1)
                        : containerBaseUrl;
                return;
            }
            this.serverSocket = tls.newServerSocket();
            serverSocket.setReuseAddress(true);
            try {
                serverSocket.bind(new InetSocketAddress(InetAddress.getByName(bind), o.port()), 256);
            } catch (IOException e) {
                throw new IOException("cannot open the SOAP endpoint on " + bind + ":" + o.port() + ": " + e.getMessage(), e);
            }
            this.baseUrl = tls.scheme() + "://" + advertise + ":" + serverSocket.getLocalPort();
            HostHttpFactory factory = new HostHttpFactory(axis2, serverSocket, () -> new MpiwsWorker(this));
            this.http = new SimpleHTTPServer(factory);
            http.start();
        } catch (IOException | RuntimeException e) {
            closeQuietly();
            throw e;
        }
    }

    /** Starts a host (the HTTP endpoint accepts requests when this returns). */
    public static ServiceHost start(Options options) throws IOException {
        return new ServiceHost(options);
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
        return baseUrl;
    }

    /** The HTTP port: this host's own, or the servlet container's (from its base URL). */
    public int port() {
        if (serverSocket != null) {
            return serverSocket.getLocalPort();
        }
        return java.net.URI.create(baseUrl).getPort();
    }

    /** The SOAP address of a service type in this host. */
    public String serviceUrl(String serviceType) {
        return baseUrl + MpiwsNames.SERVICES_PATH + serviceType;
    }

    /** {@code host:port} of this host's binary channel, or {@code null} when it offers none. */
    public String binaryAddress() {
        return binaryAddress;
    }

    /** Where a rank of {@code serviceType} placed in this host can be reached. */
    public Endpoint endpoint(String serviceType) {
        return new Endpoint(serviceUrl(serviceType), binaryAddress, hostId);
    }

    /** This JVM's Axis2 configuration context (clients in this JVM must share it, see the Axis2 notes). */
    public ConfigurationContext axis2Context() {
        return axis2;
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
        if (!name.matches("[A-Za-z_][A-Za-z0-9_.\\-]*")) {
            throw new IllegalArgumentException("bad service type name '" + name + "'");
        }
        AxisConfiguration cfg = axis2.getAxisConfiguration();
        AxisService svc = cfg.getService(name);
        if (svc == null) {
            svc = new AxisService(name);
            svc.addParameter(HOST_PARAMETER, this);
            addMpiwsOperations(svc);
            cfg.addService(svc);
        }
        serviceTypes.put(name, factory);
    }

    public boolean hasServiceType(String name) {
        return serviceTypes.containsKey(name);
    }

    public Set<String> serviceTypes() {
        return new TreeSet<>(serviceTypes.keySet());
    }

    /** Path of the deployment endpoint ({@code POST …?service=NAME}, body: the {@code .aar}). */
    public static final String DEPLOY_PATH = MpiwsNames.SERVICES_PATH + "mpfl-deploy";

    /** Where the engine POSTs service archives. */
    public String deployUrl() {
        return baseUrl + DEPLOY_PATH;
    }

    /**
     * The message-context property under which the host's HTTP worker leaves a request's
     * {@code Authorization} header for the message receivers (Axis2's simple server keeps no headers).
     */
    public static final String AUTHORIZATION_PROPERTY = "mpfl.authorization";

    /** This host's credential; {@code null}: no engine, deploy and {@code run} from this machine only. */
    private volatile HostCredential credential;
    /**
     * Set from the start when the credential comes later ({@link Options#awaitCredential}): without it, a
     * host listening before its launcher hands it the credential would take orders from any local
     * process in between.
     */
    private volatile boolean awaitingCredential;

    /**
     * Sets the host's credential: from now on deployments, {@code run} and extensions' operations need
     * the engine's key for this host ({@link HostCredential#acceptsEngine}).
     */
    public void setCredential(HostCredential credential) {
        this.credential = credential;
        if (credential != null) {
            awaitingCredential = false;
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
        HostCredential c = credential;
        if (c != null) {
            return c.acceptsEngine(authorization);
        }
        if (awaitingCredential) {
            return false;
        }
        try {
            return remoteAddress != null && InetAddress.getByName(remoteAddress.toString()).isLoopbackAddress();
        } catch (IOException e) {
            return false;
        }
    }

    /** {@link #acceptsEngineCall} for the request of a message context (as the host's receivers see it). */
    public boolean acceptsEngineCall(MessageContext mc) {
        Object auth = mc.getProperty(AUTHORIZATION_PROPERTY);
        if (auth == null && http == null) {
            // in a servlet container the AxisServlet keeps the request's headers (this host's worker does not)
            auth = transportHeader(mc, "Authorization");
        }
        return acceptsEngineCall(auth == null ? null : auth.toString(), mc.getProperty(MessageContext.REMOTE_ADDR));
    }

    private static Object transportHeader(MessageContext mc, String name) {
        if (mc.getProperty(MessageContext.TRANSPORT_HEADERS) instanceof Map<?, ?> headers) {
            for (Map.Entry<?, ?> e : headers.entrySet()) {
                if (e.getKey() != null && name.equalsIgnoreCase(e.getKey().toString())) {
                    return e.getValue();
                }
            }
        }
        return null;
    }

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
        byte[] archive = body.readNBytes(MAX_ARCHIVE_BYTES + 1);
        if (archive.length > MAX_ARCHIVE_BYTES) {
            return new DeployAnswer(400, "deployment failed: the archive exceeds " + MAX_ARCHIVE_BYTES + " bytes");
        }
        try {
            deployArchive(name, archive);
            return new DeployAnswer(201, "deployed " + name);
        } catch (IOException | RuntimeException e) {
            LOG.warn("deployment of {} failed", name, e);
            // some failures (e.g. a NullPointerException inside Axis2) carry no message: name the type then
            return new DeployAnswer(400, "deployment failed: "
                    + (e.getMessage() == null || e.getMessage().isBlank() ? e.toString() : e.getMessage()));
        }
    }

    /**
     * Deploys a service archive ({@code .aar}: a jar with {@code META-INF/services.xml} naming the
     * program class in the parameter {@value #PROGRAM_PARAMETER}) under {@code name} and publishes
     * its service type.
     */
    public synchronized void deployArchive(String name, byte[] archive) throws IOException {
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_.\\-]*")) {
            throw new IllegalArgumentException("bad service name '" + name + "'");
        }
        Path dir = repository.resolve("services");
        Path file = dir.resolve(name + ".aar");
        if (serviceTypes.containsKey(name) && Files.isRegularFile(file)
                && java.util.Arrays.equals(Files.readAllBytes(file), archive)) {
            // the same archive again (every run of a document deploys its archives): replacing it
            // would pull the service away from ranks of runs that are starting or running now
            return;
        }
        Path tmp = Files.createTempFile(repository, name, ".part");
        Files.write(tmp, archive);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        AxisConfiguration cfg = axis2.getAxisConfiguration();
        try {
            removeWithGroup(cfg, name);
            org.apache.axis2.deployment.ServiceDeployer deployer = new org.apache.axis2.deployment.ServiceDeployer();
            deployer.init(axis2);
            deployer.setDirectory("services");
            deployer.setExtension("aar");
            deployer.deploy(new org.apache.axis2.deployment.repository.util.DeploymentFileData(file.toFile(), deployer));
        } catch (AxisFault e) {
            throw new IOException("cannot deploy " + name + ": " + e.getMessage(), e);
        }
        String refused = deployArchivedServiceTypes().get(name);
        if (refused != null) {
            throw new IOException("cannot deploy " + name + ": " + refused);
        }
        if (!serviceTypes.containsKey(name)) {
            throw new IOException("archive " + name + " deployed no service named " + name + " with a "
                    + PROGRAM_PARAMETER + " parameter");
        }
        Runnable l = deployListener;
        if (l != null) {
            l.run();
        }
    }

    /**
     * Removes a service with its service group: removing the service alone leaves a group that
     * Axis2's dispatch then finds inconsistent with a redeployed service of the same name ("does not
     * belong to the service group").
     */
    private static void removeWithGroup(AxisConfiguration cfg, String serviceName) throws AxisFault {
        AxisService old = cfg.getService(serviceName);
        if (old == null) {
            return;
        }
        if (old.getAxisServiceGroup() != null && old.getAxisServiceGroup().getServiceGroupName() != null) {
            cfg.removeServiceGroup(old.getAxisServiceGroup().getServiceGroupName());
        }
        if (cfg.getService(serviceName) != null) {
            cfg.removeService(serviceName);
        }
    }

    private volatile Runnable deployListener;

    /** Called after each successful deployment (the engine announcer re-announces the service types). */
    public void onDeploy(Runnable listener) {
        this.deployListener = listener;
    }

    /**
     * Binds the services deployed from {@code .aar} archives that name a rank program. An archive
     * whose program factory refuses it is removed again (so it does not block later deployments);
     * returns those refusals by service name.
     */
    private Map<String, String> deployArchivedServiceTypes() throws AxisFault {
        Map<String, String> refused = new LinkedHashMap<>();
        AxisConfiguration cfg = axis2.getAxisConfiguration();
        for (AxisService svc : List.copyOf(cfg.getServices().values())) {
            Object cn = svc.getParameterValue(PROGRAM_PARAMETER);
            if (cn == null || svc.getParameter(HOST_PARAMETER) != null) {
                continue;
            }
            String className = cn.toString().trim();
            ClassLoader loader = svc.getClassLoader() != null ? svc.getClassLoader() : getClass().getClassLoader();
            Supplier<RankProgram> factory;
            try {
                factory = programFactory(svc, className, loader);
            } catch (AxisFault e) {
                LOG.warn("service archive {} refused: {}", svc.getName(), e.getMessage());
                refused.put(svc.getName(), e.getMessage());
                removeWithGroup(cfg, svc.getName());
                serviceTypes.remove(svc.getName());
                continue;
            }
            svc.addParameter(HOST_PARAMETER, this);
            addMpiwsOperations(svc);
            if (factory != null) {
                serviceTypes.put(svc.getName(), factory);
                LOG.info("service type {} deployed from an archive (program factory {})", svc.getName(), className);
                continue;
            }
            serviceTypes.put(svc.getName(), () -> {
                try {
                    return (RankProgram) Class.forName(className, true, loader).getDeclaredConstructor().newInstance();
                } catch (ReflectiveOperationException | ClassCastException e) {
                    throw new IllegalStateException("cannot create rank program " + className + ": " + e, e);
                }
            });
            LOG.info("service type {} deployed from an archive (program {})", svc.getName(), className);
        }
        return refused;
    }

    /**
     * The program factory of an archived service whose program class is a {@link RankProgramFactory}
     * (generated MPFL services), created once here; {@code null} for a plain {@link RankProgram} class.
     */
    static Supplier<RankProgram> programFactory(AxisService svc, String className, ClassLoader loader)
            throws AxisFault {
        Class<?> type;
        try {
            type = Class.forName(className, true, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return null; // reported when a rank of it is started, as before
        }
        if (!RankProgramFactory.class.isAssignableFrom(type)) {
            return null;
        }
        Map<String, String> parameters = new LinkedHashMap<>();
        for (org.apache.axis2.description.Parameter p : svc.getParameters()) {
            if (p.getValue() instanceof String text) {
                parameters.put(p.getName(), text.trim());
            }
        }
        try {
            RankProgramFactory f = (RankProgramFactory) type.getDeclaredConstructor().newInstance();
            return f.programs(loader, svc.getFileName(), parameters);
        } catch (Exception e) {
            throw new AxisFault("service " + svc.getName() + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()), e);
        }
    }

    private static void addMpiwsOperations(AxisService svc) throws AxisFault {
        for (String op : List.of(MpiwsNames.OP_RUN, MpiwsNames.OP_STATUS)) {
            AxisOperation o = svc.getOperation(new QName(op));
            if (o == null) {
                o = new InOutAxisOperation(new QName(op));
                svc.addOperation(o);
            }
            o.setMessageReceiver(new MpiwsInOutReceiver());
            o.setSoapAction(MpiwsNames.action(op));
            svc.mapActionToOperation(MpiwsNames.action(op), o);
        }
        for (String op : List.of(MpiwsNames.OP_STORE, MpiwsNames.OP_BSTORE, MpiwsNames.OP_ABORT)) {
            AxisOperation o = svc.getOperation(new QName(op));
            if (o == null) {
                o = AxisOperationFactory.getAxisOperation(WSDLConstants.MEP_CONSTANT_ROBUST_IN_ONLY);
                o.setName(new QName(op));
                svc.addOperation(o);
            }
            o.setMessageExchangePattern(WSDL2Constants.MEP_URI_ROBUST_IN_ONLY);
            o.setMessageReceiver(new MpiwsRobustInOnlyReceiver());
            o.setSoapAction(MpiwsNames.action(op));
            svc.mapActionToOperation(MpiwsNames.action(op), o);
        }
    }

    // ------------------------------------------------------------------ operations

    /** A request the host answers with a SOAP fault. */
    static final class OperationFault extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient SoapFault fault;

        OperationFault(SoapFault fault) {
            super(fault.reason());
            this.fault = fault;
        }

        SoapFault fault() {
            return fault;
        }
    }

    /** {@code run}: creates the rank instance and starts its program; answers at once. */
    @Override
    public String handleRun(String serviceType, String runXml) throws OperationFault {
        return rankTable.handleRun(serviceType, runXml);
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
        closeQuietly();
    }

    private void closeQuietly() {
        try {
            if (http != null) {
                http.stop();
            }
        } catch (RuntimeException e) {
            LOG.debug("stopping HTTP", e);
        }
        try {
            if (serverSocket != null) {
                serverSocket.close();
            }
        } catch (IOException ignored) {
            // closing
        }
        messaging.close();
        eventThreads.shutdownNow();
        try {
            if (axis2 != null) {
                axis2.terminate();
            }
        } catch (AxisFault e) {
            LOG.debug("terminating Axis2", e);
        }
        deleteTree(repository);
    }

    private static void deleteTree(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            // services/ may be a link to the user's directory: delete the link, never its content
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
