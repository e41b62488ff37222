package org.mpfl.runtime.host;

import org.apache.axiom.om.OMElement;
import org.apache.axiom.om.util.AXIOMUtil;
import org.apache.axiom.soap.SOAPEnvelope;
import org.apache.axiom.soap.SOAPFactory;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.MessageContext;
import org.apache.axis2.receivers.AbstractInOutMessageReceiver;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.SoapFault;

/**
 * The Axis2 message receiver of the request-response MPIWS operations {@code run} and {@code status},
 * for services of an MPFL {@link ServiceHost} and for generated services in a stock Axis2 container
 * (named in their services.xml). {@code run} on a {@link ServiceHost} needs the engine's key for that
 * host ({@link ServiceHost#acceptsEngineCall}); {@code status} is a read, authorised by the
 * unguessable domain ID.
 */
public final class MpiwsInOutReceiver extends AbstractInOutMessageReceiver {
    @Override
    public void invokeBusinessLogic(MessageContext in, MessageContext out) throws AxisFault {
        MpiwsHandler host = MpiwsReceivers.handlerOf(in);
        String op = in.getAxisOperation().getName().getLocalPart();
        String serviceType = in.getAxisService().getName();
        OMElement request = MpiwsReceivers.bodyElement(in);
        if (MpiwsNames.OP_RUN.equals(op) && host instanceof ServiceHost serviceHost && !serviceHost.acceptsEngineCall(in)) {
            // run starts code here: only the engine of this host (its key), or this machine without an engine
            throw MpiwsReceivers.fault(new SoapFault("Sender", SoapFault.REJECTED,
                    "run refused: not the engine of this host (missing or wrong host key)"));
        }
        String answer;
        try {
            answer = switch (op) {
                case MpiwsNames.OP_RUN -> host.handleRun(serviceType, request.toString());
                case MpiwsNames.OP_STATUS -> host.handleStatus(request.toString());
                default -> throw MpiwsReceivers.fault(new SoapFault("Sender", SoapFault.MALFORMED, "no request-response operation " + op));
            };
        } catch (OperationFault f) {
            throw MpiwsReceivers.fault(f.fault());
        }
        SOAPFactory factory = getSOAPFactory(in);
        SOAPEnvelope env = factory.getDefaultEnvelope();
        try {
            env.getBody().addChild(AXIOMUtil.stringToOM(factory, answer));
        } catch (javax.xml.stream.XMLStreamException e) {
            throw new AxisFault("cannot build the " + op + " answer", e);
        }
        // control answers carry no binary content: plain SOAP 1.2, whatever the global MTOM setting
        out.setDoingMTOM(false);
        out.setProperty(org.apache.axis2.Constants.Configuration.ENABLE_MTOM, "false");
        out.setEnvelope(env);
    }
}
