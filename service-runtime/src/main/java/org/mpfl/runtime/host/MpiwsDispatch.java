package org.mpfl.runtime.host;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import javax.xml.namespace.QName;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.description.AxisOperation;
import org.apache.axis2.description.AxisOperationFactory;
import org.apache.axis2.description.AxisService;
import org.apache.axis2.description.InOutAxisOperation;
import org.apache.axis2.description.WSDL2Constants;
import org.apache.axis2.engine.AxisConfiguration;
import org.apache.axis2.wsdl.WSDLConstants;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.runtime.api.RankProgram;

/**
 * The service types of a {@link ServiceHost} and how a request reaches them: each type is an Axis2
 * service carrying the host ({@link ServiceHost#HOST_PARAMETER}) whose MPIWS operations are bound to
 * the MPIWS receivers ({@code run}, {@code status}: {@link MpiwsInOutReceiver}; {@code store},
 * {@code bstore}, {@code abort}: {@link MpiwsRobustInOnlyReceiver}), which hand them to the host's
 * {@link MpiwsHandler} side; the rank table looks a type's program factory up here.
 */
final class MpiwsDispatch {
    private final MpiwsHandler host;
    private final Map<String, Supplier<RankProgram>> serviceTypes = new ConcurrentHashMap<>();

    MpiwsDispatch(MpiwsHandler host) {
        this.host = host;
    }

    /** Publishes a programmatic service type (the factory of an existing name is replaced). */
    void register(ConfigurationContext axis2, String name, Supplier<RankProgram> factory) throws AxisFault {
        if (!name.matches("[A-Za-z_][A-Za-z0-9_.\\-]*")) {
            throw new IllegalArgumentException("bad service type name '" + name + "'");
        }
        AxisConfiguration cfg = axis2.getAxisConfiguration();
        AxisService svc = cfg.getService(name);
        if (svc == null) {
            svc = new AxisService(name);
            bind(svc);
            cfg.addService(svc);
        }
        serviceTypes.put(name, factory);
    }

    /** Publishes an Axis2 service deployed from an archive as the service type of its name. */
    void publish(AxisService svc, Supplier<RankProgram> factory) throws AxisFault {
        bind(svc);
        serviceTypes.put(svc.getName(), factory);
    }

    /** Whether an archived service is already bound to this host (its archive was handled before). */
    static boolean isBound(AxisService svc) {
        return svc.getParameter(ServiceHost.HOST_PARAMETER) != null;
    }

    void remove(String name) {
        serviceTypes.remove(name);
    }

    /** The program factory of a service type, {@code null} for an unknown one. */
    Supplier<RankProgram> programs(String name) {
        return serviceTypes.get(name);
    }

    boolean has(String name) {
        return serviceTypes.containsKey(name);
    }

    Set<String> names() {
        return new TreeSet<>(serviceTypes.keySet());
    }

    private void bind(AxisService svc) throws AxisFault {
        svc.addParameter(ServiceHost.HOST_PARAMETER, host);
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
}
