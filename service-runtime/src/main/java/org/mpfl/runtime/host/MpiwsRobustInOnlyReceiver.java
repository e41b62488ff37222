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
import org.mpfl.runtime.transport.Inbox;
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
                    Envelope e = readStore(request, host.inbox());
                    SoapFault f = StoreOutcomes.toFault(host.inbox().store(e), e);
                    if (f != null) {
                        throw MpiwsReceivers.fault(f);
                    }
                }
                case MpiwsNames.OP_ABORT -> host.handleAbort(request.toString());
                default -> throw MpiwsReceivers.fault(new SoapFault("Sender", SoapFault.MALFORMED, "no in-only operation " + op));
            }
        } catch (OperationFault f) {
            throw MpiwsReceivers.fault(f.fault());
        } catch (Refused r) {
            throw MpiwsReceivers.fault(r.fault);
        } catch (IOException | RuntimeException e) {
            throw MpiwsReceivers.fault(new SoapFault("Sender", SoapFault.MALFORMED, "bad " + op + " message: " + e.getMessage()));
        }
    }

    /** A store refused from its header. */
    private static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;
        final transient SoapFault fault;

        Refused(SoapFault fault) {
            super(fault.reason());
            this.fault = fault;
        }
    }

    /**
     * The object-model path of a store: read the fields, admit the header (domain, proof, length,
     * memory — {@link Inbox#admit}), and only then read the XOP attachment (or inline base64) into
     * the payload. (Axis2 has parsed the SOAP part already; the attachment is read here.)
     */
    private static Envelope readStore(OMElement store, Inbox inbox) throws IOException {
        String domainId = null;
        int context = 0;
        int from = 0;
        int to = 0;
        int tag = 0;
        long seq = 0;
        Envelope.Kind kind = null;
        byte[] proof = new byte[0];
        Payload.Type type = Payload.Type.BYTES;
        long length = 0;
        OMElement payloadElement = null;
        for (Iterator<OMElement> it = store.getChildElements(); it.hasNext();) {
            OMElement c = it.next();
            String name = c.getLocalName();
            if (name.equals("payload")) {
                // last in the WSDL's sequence: looking for a next element would read the whole (inline) payload
                // before the header is admitted
                payloadElement = c;
                break;
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
                case "length" -> length = Long.parseLong(v);
                default -> { }
            }
        }
        if (domainId == null || kind == null) {
            throw new IOException("store message lacks domainId or kind");
        }
        Envelope header = new Envelope(domainId, context, from, to, tag, seq, kind, proof, null);
        if (length > inbox.maxMessageBytes()) {
            throw new Refused(new SoapFault("Sender", SoapFault.REJECTED, "message of " + length
                    + " bytes exceeds this host's per-message limit of " + inbox.maxMessageBytes() + " bytes"));
        }
        Inbox.Admission admission = inbox.admit(header, length);
        if (admission.proven()) {
            // the domain token's proof: the payload after it is no stranger's (MpiwsWorker bounds this path's bodies until then)
            GuardedConnection.proveCurrent();
        }
        try {
            if (admission.outcome() != Inbox.Outcome.STORED) {
                SoapFault f = StoreOutcomes.toFault(admission.outcome(), header);
                if (f == null) {
                    // a duplicate: answered 202 by the caller's store, which drops it again
                    return new Envelope(domainId, context, from, to, tag, seq, kind, proof, Payload.of(null));
                }
                throw new Refused(f);
            }
            byte[] payload = new byte[0];
            if (payloadElement != null) {
                OMNode n = payloadElement.getFirstOMChild();
                if (n instanceof OMText t && t.isBinary()) {
                    try (InputStream in = t.getBlob().getInputStream()) {
                        payload = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 64L, inbox.maxMessageBytes()) + 1);
                    }
                } else {
                    payload = Base64.getMimeDecoder().decode(payloadElement.getText().trim());
                }
                if (payload.length > inbox.maxMessageBytes()) {
                    throw new Refused(new SoapFault("Sender", SoapFault.REJECTED, "payload exceeds this host's per-message limit of "
                            + inbox.maxMessageBytes() + " bytes"));
                }
            }
            return new Envelope(domainId, context, from, to, tag, seq, kind, proof, Payload.decode(type, payload));
        } finally {
            admission.release();
        }
    }
}
