package org.mpfl.runtime.host;

import java.util.List;
import javax.xml.namespace.QName;
import org.apache.axiom.om.OMElement;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.MessageContext;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.SoapFault;

/**
 * What the MPIWS message receivers ({@link MpiwsInOutReceiver}, {@link MpiwsRobustInOnlyReceiver})
 * share. The handler and the service type come from the Axis2 service ({@link ServiceHost#HOST_PARAMETER},
 * the service name), so the same receivers serve programmatic services, {@code .aar}-deployed ones and
 * generated services in a stock Axis2 container.
 */
final class MpiwsReceivers {
    private MpiwsReceivers() {
    }

    /**
     * Who answers a request: the {@link ServiceHost} the service belongs to, else (a generated service
     * in a stock Axis2 container) the container's MPFL runtime.
     */
    static MpiwsHandler handlerOf(MessageContext mc) throws AxisFault {
        Object h = mc.getAxisService().getParameterValue(ServiceHost.HOST_PARAMETER);
        if (h instanceof ServiceHost host) {
            return host;
        }
        return ContainerRuntime.handlerOf(mc);
    }

    static OMElement bodyElement(MessageContext mc) throws AxisFault {
        OMElement el = mc.getEnvelope().getBody().getFirstElement();
        if (el == null) {
            throw fault(new SoapFault("Sender", SoapFault.MALFORMED, "empty SOAP body"));
        }
        return el;
    }

    static AxisFault fault(SoapFault f) {
        QName code = new QName(MpiwsNames.SOAP12_NS, f.code(), "soapenv");
        List<QName> sub = f.subcode() == null ? List.of() : List.of(new QName(MpiwsNames.NS, f.subcode(), "m"));
        return new AxisFault(code, sub, f.reason(), null);
    }
}
