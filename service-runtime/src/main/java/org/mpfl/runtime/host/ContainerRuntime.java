package org.mpfl.runtime.host;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.context.MessageContext;
import org.apache.axis2.description.AxisService;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.runtime.p2p.MessagingHost;
import org.mpfl.runtime.p2p.MessagingSettings;
import org.mpfl.runtime.p2p.RankInstance;
import org.mpfl.runtime.topology.CollectiveCommunicator;
import org.mpfl.runtime.transport.Inbox;
import org.mpfl.runtime.transport.soap.SoapTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MPFL runtime of generated services deployed into a stock Axis2 container (no {@link ServiceHost}):
 * one per Axis2 {@link ConfigurationContext} and copy of the runtime classes, shared by the MPFL
 * services bound to it. Its messaging — rank registry, local and SOAP transports, no binary channel —
 * starts lazily with the first request and is closed when the last service bound to it shuts down.
 * The SOAP endpoints of the ranks come from each {@code run} request, as in a service host.
 *
 * <p>Services whose archives each bring the runtime ({@code mpflc compile --bundle-runtime}) have
 * their own copy of these classes (one class loader per archive), hence one runtime each; their ranks
 * reach each other through SOAP. With the runtime on the container's class path instead, all MPFL
 * services of the container share one runtime.
 */
final class ContainerRuntime implements MpiwsHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ContainerRuntime.class);
    /** Per container (configuration context), for this copy of the runtime classes. */
    private static final Map<ConfigurationContext, ContainerRuntime> RUNTIMES = new IdentityHashMap<>();

    private final String hostId = "axis2-" + UUID.randomUUID().toString().substring(0, 8);
    /** Bound services: program factory, or one that fails with why the service was refused. */
    private final Map<String, Supplier<RankProgram>> services = new ConcurrentHashMap<>();
    private MessagingHost messaging;
    private ExecutorService eventThreads;
    private RankTable table;
    private volatile boolean closed;

    private ContainerRuntime() {
    }

    /** Binds a generated service to its container's runtime (service start-up, or its first request). */
    static void bind(ConfigurationContext ctx, AxisService svc) {
        ContainerRuntime runtime;
        synchronized (RUNTIMES) {
            runtime = RUNTIMES.computeIfAbsent(ctx, c -> new ContainerRuntime());
        }
        runtime.services.computeIfAbsent(svc.getName(), name -> programs(svc));
    }

    /** Unbinds a service; the runtime closes when none is left. */
    static void unbind(ConfigurationContext ctx, AxisService svc) {
        ContainerRuntime runtime;
        synchronized (RUNTIMES) {
            runtime = RUNTIMES.get(ctx);
            if (runtime == null) {
                return;
            }
            runtime.services.remove(svc.getName());
            if (!runtime.services.isEmpty()) {
                return;
            }
            RUNTIMES.remove(ctx);
        }
        runtime.close();
    }

    /** The handler of a request to a generated service in a stock container. */
    static MpiwsHandler handlerOf(MessageContext mc) throws AxisFault {
        ConfigurationContext ctx = mc.getConfigurationContext();
        AxisService svc = mc.getAxisService();
        if (ctx == null || svc == null) {
            throw new AxisFault("no Axis2 configuration context or service for an MPIWS request");
        }
        bind(ctx, svc); // no-op when its life cycle already did
        ContainerRuntime runtime;
        synchronized (RUNTIMES) {
            runtime = RUNTIMES.get(ctx);
        }
        if (runtime == null) {
            throw new AxisFault("the MPFL runtime of this container is shut down");
        }
        return runtime.started();
    }

    private static Supplier<RankProgram> programs(AxisService svc) {
        Object cn = svc.getParameterValue(ServiceHost.PROGRAM_PARAMETER);
        if (cn == null) {
            return refused(svc, "services.xml names no " + ServiceHost.PROGRAM_PARAMETER);
        }
        String className = cn.toString().trim();
        ClassLoader loader = svc.getClassLoader() != null ? svc.getClassLoader() : ContainerRuntime.class.getClassLoader();
        try {
            Supplier<RankProgram> factory = ServiceArchives.programFactory(svc, className, loader);
            if (factory != null) {
                LOG.info("MPFL service {} bound to the container (program factory {})", svc.getName(), className);
                return factory;
            }
        } catch (AxisFault e) {
            return refused(svc, e.getMessage());
        }
        return ServicePrograms.newInstances(className, loader);
    }

    private static Supplier<RankProgram> refused(AxisService svc, String why) {
        LOG.error("MPFL service {} cannot run ranks: {}", svc.getName(), why);
        return () -> {
            throw new IllegalStateException("service " + svc.getName() + " cannot run ranks: " + why);
        };
    }

    private synchronized ContainerRuntime started() throws AxisFault {
        if (closed) {
            throw new AxisFault("the MPFL runtime of this container is shut down");
        }
        if (table == null) {
            SoapTransport soap = new SoapTransport();
            messaging = MessagingHost.start(hostId, null, 0, null, MessagingSettings.fromSystemProperties(), soap);
            eventThreads = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "mpfl-events-" + hostId);
                t.setDaemon(true);
                return t;
            });
            Function<RankInstance, Communicator> world = CollectiveCommunicator::world;
            table = new RankTable(hostId, messaging.registry(), messaging.selector(), soap, eventThreads,
                    org.mpfl.protocol.tls.TlsSettings.NONE, services::get,
                    () -> world, () -> closed);
            LOG.info("MPFL runtime {} started in this Axis2 container", hostId);
        }
        return this;
    }

    private synchronized void close() {
        closed = true;
        if (messaging != null) {
            messaging.close();
            eventThreads.shutdownNow();
            LOG.info("MPFL runtime {} closed", hostId);
        }
    }

    private RankTable table() throws OperationFault {
        RankTable t = table;
        if (t == null) {
            throw new OperationFault(new org.mpfl.protocol.SoapFault("Receiver",
                    org.mpfl.protocol.SoapFault.FAILED, "runtime not started"));
        }
        return t;
    }

    @Override
    public String handleRun(String serviceType, String runXml) throws OperationFault {
        return table().handleRun(serviceType, runXml);
    }

    @Override
    public String handleStatus(String statusXml) throws OperationFault {
        return table().handleStatus(statusXml);
    }

    @Override
    public void handleAbort(String abortXml) throws OperationFault {
        table().handleAbort(abortXml);
    }

    @Override
    public Inbox inbox() {
        return messaging.registry();
    }
}
