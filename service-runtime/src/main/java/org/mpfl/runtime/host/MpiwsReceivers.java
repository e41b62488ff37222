package org.mpfl.runtime.host;

import java.io.IOException;
import java.io.InputStream;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import javax.xml.namespace.QName;
import org.apache.axiom.om.OMElement;
import org.apache.axiom.om.OMNode;
import org.apache.axiom.om.OMText;
import org.apache.axiom.om.util.AXIOMUtil;
import org.apache.axiom.soap.SOAPEnvelope;
import org.apache.axiom.soap.SOAPFactory;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.MessageContext;
import org.apache.axis2.engine.MessageReceiver;
import org.apache.axis2.receivers.AbstractInOutMessageReceiver;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.runtime.transport.soap.MpiwsNames;
import org.mpfl.runtime.transport.soap.SoapFault;

/**
 * The Axis2 message receivers of the MPIWS operations. {@code run} and {@code status} are
 * request-response; {@code store}, {@code bstore} and {@code abort} are robust in-only (a thrown
 * {@link AxisFault} goes back to a {@code sendRobust} caller). The host instance and the service
 * type come from the Axis2 service ({@link ServiceHost#HOST_PARAMETER}, the service name), so the
 * same receivers serve programmatic services and {@code .aar}-deployed ones.
 */
final class MpiwsReceivers {
    private MpiwsReceivers() {
    }

    static ServiceHost hostOf(MessageContext mc) throws AxisFault {
        Object h = mc.getAxisService().getParameterValue(ServiceHost.HOST_PARAMETER);
        if (!(h instanceof ServiceHost host)) {
            throw new AxisFault("service " + mc.getAxisService().getName() + " is not bound to an MPFL service host");
        }
        return host;
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

    /** {@code run} and {@code status}. */
    static final class InOut extends AbstractInOutMessageReceiver {
        @Override
        public void invokeBusinessLogic(MessageContext in, MessageContext out) throws AxisFault {
            ServiceHost host = hostOf(in);
            String op = in.getAxisOperation().getName().getLocalPart();
            String serviceType = in.getAxisService().getName();
            OMElement request = bodyElement(in);
            String answer;
            try {
                answer = switch (op) {
                    case MpiwsNames.OP_RUN -> host.handleRun(serviceType, request.toString());
                    case MpiwsNames.OP_STATUS -> host.handleStatus(request.toString());
                    default -> throw fault(new SoapFault("Sender", SoapFault.MALFORMED, "no request-response operation " + op));
                };
            } catch (ServiceHost.OperationFault f) {
                throw fault(f.fault());
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

    /** {@code store}, {@code bstore} (Axis2 path: requests without the SOAP action header) and {@code abort}. */
    static final class RobustInOnly implements MessageReceiver {
        @Override
        public void receive(MessageContext mc) throws AxisFault {
            ServiceHost host = hostOf(mc);
            String op = mc.getAxisOperation().getName().getLocalPart();
            OMElement request = bodyElement(mc);
            try {
                switch (op) {
                    case MpiwsNames.OP_STORE, MpiwsNames.OP_BSTORE -> {
                        Envelope e = readStore(request);
                        SoapFault f = StoreOutcomes.toFault(host.inbox().store(e), e);
                        if (f != null) {
                            throw fault(f);
                        }
                    }
                    case MpiwsNames.OP_ABORT -> host.handleAbort(request.toString());
                    default -> throw fault(new SoapFault("Sender", SoapFault.MALFORMED, "no in-only operation " + op));
                }
            } catch (ServiceHost.OperationFault f) {
                throw fault(f.fault());
            } catch (IOException | RuntimeException e) {
                throw fault(new SoapFault("Sender", SoapFault.MALFORMED, "bad " + op + " message: " + e.getMessage()));
            }
        }

        /** The object-model path of a store: read the fields, then the XOP attachment (or inline base64). */
        private static Envelope readStore(OMElement store) throws IOException {
            String domainId = null;
            int context = 0;
            int from = 0;
            int to = 0;
            int tag = 0;
            long seq = 0;
            Envelope.Kind kind = null;
            byte[] proof = new byte[0];
            Payload.Type type = Payload.Type.BYTES;
            byte[] payload = new byte[0];
            for (Iterator<OMElement> it = store.getChildElements(); it.hasNext();) {
                OMElement c = it.next();
                String name = c.getLocalName();
                if (name.equals("payload")) {
                    OMNode n = c.getFirstOMChild();
                    if (n instanceof OMText t && t.isBinary()) {
                        try (InputStream in = t.getBlob().getInputStream()) {
                            payload = in.readAllBytes();
                        }
                    } else {
                        payload = Base64.getMimeDecoder().decode(c.getText().trim());
                    }
                    continue;
                }
                String v = c.getText().trim();
                switch (name) {
                    case "domainId" -> domainId = v;
                    case "context" -> context = Integer.parseInt(v);
                    case "from" -> from = Integer.parseInt(v);
                    case "to" -> to = Integer.parseInt(v);
                    case "tag" -> tag = Integer.parseInt(v);
                    case "seq" -> seq = Long.parseLong(v);
                    case "kind" -> kind = Envelope.Kind.valueOf(v);
                    case "proof" -> proof = Base64.getMimeDecoder().decode(v);
                    case "type" -> type = Payload.Type.valueOf(v);
                    default -> { }
                }
            }
            if (domainId == null || kind == null) {
                throw new IOException("store message lacks domainId or kind");
            }
            return new Envelope(domainId, context, from, to, tag, seq, kind, proof, Payload.decode(type, payload));
        }
    }
}
