package org.mpfl.runtime.host;

import java.io.IOException;
import java.io.InputStream;
import java.util.Base64;
import java.util.Iterator;
import org.apache.axiom.om.OMElement;
import org.apache.axiom.om.OMNode;
import org.apache.axiom.om.OMText;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.MessageContext;
import org.apache.axis2.engine.MessageReceiver;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.SoapFault;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;

/**
 * The Axis2 message receiver of the robust in-only MPIWS operations {@code store}, {@code bstore} and
 * {@code abort} (a thrown {@link AxisFault} goes back to a {@code sendRobust} caller). In a service host
 * stores with the SOAP action take the lean path of the host's worker and only the others come here; in a
 * stock Axis2 container every store comes here.
 */
public final class MpiwsRobustInOnlyReceiver implements MessageReceiver {
    @Override
    public void receive(MessageContext mc) throws AxisFault {
        MpiwsHandler host = MpiwsReceivers.handlerOf(mc);
        String op = mc.getAxisOperation().getName().getLocalPart();
        OMElement request = MpiwsReceivers.bodyElement(mc);
        try {
            switch (op) {
                case MpiwsNames.OP_STORE, MpiwsNames.OP_BSTORE -> {
                    Envelope e = readStore(request);
                    SoapFault f = StoreOutcomes.toFault(host.inbox().store(e), e);
                    if (f != null) {
                        throw MpiwsReceivers.fault(f);
                    }
                }
                case MpiwsNames.OP_ABORT -> host.handleAbort(request.toString());
                default -> throw MpiwsReceivers.fault(new SoapFault("Sender", SoapFault.MALFORMED, "no in-only operation " + op));
            }
        } catch (ServiceHost.OperationFault f) {
            throw MpiwsReceivers.fault(f.fault());
        } catch (IOException | RuntimeException e) {
            throw MpiwsReceivers.fault(new SoapFault("Sender", SoapFault.MALFORMED, "bad " + op + " message: " + e.getMessage()));
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
