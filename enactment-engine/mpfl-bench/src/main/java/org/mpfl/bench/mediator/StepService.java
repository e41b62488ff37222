package org.mpfl.bench.mediator;

import java.io.IOException;
import java.io.InputStream;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.xml.namespace.QName;
import org.apache.axiom.blob.Blobs;
import org.apache.axiom.om.OMElement;
import org.apache.axiom.om.OMNamespace;
import org.apache.axiom.om.OMNode;
import org.apache.axiom.om.OMText;
import org.apache.axiom.soap.SOAPEnvelope;
import org.apache.axiom.soap.SOAPFactory;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.MessageContext;
import org.apache.axis2.description.AxisService;
import org.apache.axis2.description.InOutAxisOperation;
import org.apache.axis2.engine.AxisConfiguration;
import org.apache.axis2.receivers.AbstractInOutMessageReceiver;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.runtime.api.Activity;
import org.mpfl.runtime.api.ActivityContext;
import org.mpfl.runtime.host.ServiceHost;
import org.mpfl.runtime.transport.ObjectTypes;
import org.mpfl.runtime.transport.Payload;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@value StepWire#SERVICE} service of a service host: its request-response operation
 * {@value StepWire#OPERATION} creates the named {@link Activity} (a class on the host's class path),
 * runs it once with the request's inputs as the given rank of the given size, and answers the
 * outputs. This is a BPEL partner service: stateless, re-invoked by the mediator every iteration, and
 * given everything it needs in the request — a new activity instance per call, so nothing survives
 * from one iteration to the next except through the mediator.
 */
public final class StepService {
    private static final Logger LOG = LoggerFactory.getLogger(StepService.class);

    private StepService() {
    }

    /**
     * Publishes the service in a host (idempotent).
     *
     * Callers must be the host's engine ({@link ServiceHost#acceptsEngineCall}: its key for this host,
     * or this machine when the host serves no engine), the rule of the host's deployment endpoint: the
     * service runs code of the host's class path on request, so it is not open to anyone.
     */
    public static void install(ServiceHost host) throws AxisFault {
        AxisConfiguration cfg = host.axis2Context().getAxisConfiguration();
        if (cfg.getService(StepWire.SERVICE) != null) {
            return;
        }
        AxisService svc = new AxisService(StepWire.SERVICE);
        InOutAxisOperation op = new InOutAxisOperation(new QName(StepWire.OPERATION));
        op.setMessageReceiver(new Receiver(host));
        op.setSoapAction(StepWire.action());
        svc.addOperation(op);
        svc.mapActionToOperation(StepWire.action(), op);
        cfg.addService(svc);
    }

    /** Runs one step per request. */
    static final class Receiver extends AbstractInOutMessageReceiver {
        /** Activity classes by name (the class, not the instance: every call gets a new instance). */
        private final Map<String, Class<? extends Activity>> classes = new ConcurrentHashMap<>();
        private final ServiceHost host;

        Receiver(ServiceHost host) {
            this.host = host;
        }

        @Override
        public void invokeBusinessLogic(MessageContext in, MessageContext out) throws AxisFault {
            authorise(in);
            OMElement step = in.getEnvelope().getBody().getFirstElement();
            if (step == null || !step.getLocalName().equals(StepWire.OPERATION)) {
                throw new AxisFault("step: the SOAP body holds no m:step element");
            }
            String activityName = null;
            int rank = 0;
            int size = 1;
            Map<String, OMElement> values = new LinkedHashMap<>();
            Map<String, Object> inputs = new LinkedHashMap<>();
            try {
                for (Iterator<OMElement> it = step.getChildElements(); it.hasNext();) {
                    OMElement c = it.next();
                    switch (c.getLocalName()) {
                        case "activity" -> activityName = c.getText().trim();
                        case "rank" -> rank = Integer.parseInt(c.getText().trim());
                        case "size" -> size = Integer.parseInt(c.getText().trim());
                        case "value" -> values.put(c.getAttributeValue(new QName("name")), c);
                        default -> { }
                    }
                }
                if (activityName == null) {
                    throw new AxisFault("step: no activity named");
                }
                // object inputs are read with the allow-list of the activity's workflow, as a rank would read them
                ObjectTypes allowed = ObjectTypes.forWorkflow(StepService.class.getClassLoader(), List.of(activityName));
                for (Map.Entry<String, OMElement> v : values.entrySet()) {
                    inputs.put(v.getKey(), readValue(v.getValue(), allowed));
                }
            } catch (IOException | RuntimeException e) {
                throw new AxisFault("step: bad request: " + e.getMessage(), e);
            }
            Map<String, Object> outputs;
            try {
                Activity activity = activityClass(activityName).getDeclaredConstructor().newInstance();
                outputs = activity.execute(inputs, new Context(rank, size));
            } catch (Exception | LinkageError e) {
                LOG.warn("step {} as rank {} failed", activityName, rank, e);
                throw new AxisFault("step: activity " + activityName + " failed: " + e, e);
            }
            SOAPFactory factory = getSOAPFactory(in);
            SOAPEnvelope env = factory.getDefaultEnvelope();
            OMNamespace m = factory.createOMNamespace(MpiwsNames.NS, "m");
            OMElement response = factory.createOMElement("stepResponse", m);
            if (outputs != null) {
                for (Map.Entry<String, Object> e : outputs.entrySet()) {
                    Payload p = Payload.of(e.getValue());
                    byte[] bytes = p.encode();
                    OMElement v = factory.createOMElement("value", m, response);
                    v.addAttribute("name", e.getKey(), null);
                    v.addAttribute("type", p.type().name(), null);
                    if (bytes.length > StepWire.INLINE_LIMIT) {
                        v.addChild(factory.createOMText(Blobs.createBlob(bytes), true));
                    } else {
                        v.setText(Base64.getEncoder().encodeToString(bytes));
                    }
                }
            }
            env.getBody().addChild(response);
            // the outputs leave as MTOM attachments, like the inputs came
            out.setDoingMTOM(true);
            out.setProperty(org.apache.axis2.Constants.Configuration.ENABLE_MTOM, "true");
            out.setEnvelope(env);
        }

        /** The host's engine (its key for this host), or without one a caller on this machine; else a fault. */
        private void authorise(MessageContext in) throws AxisFault {
            if (!host.acceptsEngineCall(in)) {
                throw new AxisFault("step refused: not the engine of this host (missing or wrong host key)");
            }
        }

        private static Object readValue(OMElement v, ObjectTypes allowed) throws IOException {
            Payload.Type type = Payload.Type.valueOf(v.getAttributeValue(new QName("type")));
            byte[] bytes;
            OMNode n = v.getFirstOMChild();
            if (n instanceof OMText t && t.isBinary()) {
                try (InputStream s = t.getBlob().getInputStream()) {
                    bytes = s.readAllBytes();
                }
            } else {
                bytes = Base64.getMimeDecoder().decode(v.getText().trim());
            }
            return Payload.decode(type, bytes).value(allowed);
        }

        @SuppressWarnings("unchecked")
        private Class<? extends Activity> activityClass(String name) throws ClassNotFoundException {
            Class<? extends Activity> c = classes.get(name);
            if (c == null) {
                Class<?> loaded = Class.forName(name, true, StepService.class.getClassLoader());
                if (!Activity.class.isAssignableFrom(loaded)) {
                    throw new ClassCastException(name + " is not an " + Activity.class.getName());
                }
                c = (Class<? extends Activity>) loaded;
                classes.put(name, c);
            }
            return c;
        }
    }

    /** What a stepped activity sees: its rank and size; no parameters, and the log goes to the host's log. */
    private record Context(int rank, int size) implements ActivityContext {
        @Override
        public int processRank() {
            return rank;
        }

        @Override
        public int processSize() {
            return size;
        }

        @Override
        public Map<String, Object> params() {
            return Map.of();
        }

        @Override
        public void log(String level, String message) {
            LOG.info("[rank {}] {}: {}", rank, level, message);
        }
    }
}
