package org.mpfl.runtime.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.wsdl.Definition;
import javax.wsdl.Operation;
import javax.wsdl.PortType;
import javax.wsdl.extensions.soap12.SOAP12Address;
import javax.wsdl.extensions.soap12.SOAP12Binding;
import javax.wsdl.factory.WSDLFactory;
import javax.wsdl.xml.WSDLReader;
import javax.xml.namespace.QName;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.axiom.blob.Blobs;
import org.apache.axiom.om.OMAbstractFactory;
import org.apache.axiom.om.OMElement;
import org.apache.axiom.om.OMFactory;
import org.apache.axiom.om.OMNamespace;
import org.apache.axis2.AxisFault;
import org.apache.axis2.Constants;
import org.apache.axis2.addressing.EndpointReference;
import org.apache.axis2.client.Options;
import org.apache.axis2.client.ServiceClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.SoapFault;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.DomainAbortedException;
import org.mpfl.runtime.api.Message;
import org.mpfl.runtime.api.ReceiveTimeoutException;
import org.mpfl.runtime.p2p.RankInstance;
import org.mpfl.runtime.topology.CollectiveCommunicator;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.Payload;
import org.mpfl.runtime.transport.TransportException;
import org.mpfl.runtime.transport.soap.SoapTransport;
import org.w3c.dom.Document;
import org.mpfl.testing.Await;

/**
 * The SOAP contract of a service host, in this JVM: the WSDL, a hand-built SOAP 1.2 envelope from
 * a plain HTTP client, a store from a standard Axis2 MTOM client (with and without the SOAP action,
 * i.e. through the lean path and through the Axis2 handler chain), duplicates, wrong tokens,
 * abort, and run → events → status.
 */
class ServiceHostSoapTest {
    private static final String TYPE = "Echo";
    private static ServiceHost host;
    private static final SoapTransport SOAP = new SoapTransport();
    private static final MpiwsClient CLIENT = new MpiwsClient(Duration.ofSeconds(20));

    @BeforeAll
    static void startHost() throws Exception {
        host = ServiceHost.start(ServiceHost.Options.loopback());
        host.registerServiceType(TYPE, () -> ctx -> {
            Communicator w = ctx.world();
            if (w.rank() == 0) {
                w.send(new double[] {1, 2, 3}, 1, 5);
                Message m = w.recv(1, 6, Duration.ofSeconds(20));
                ctx.progress(1, 1);
                ctx.log("info", "got the echo");
                ctx.output("first", ((double[]) m.value())[0]);
            } else {
                Message m = w.recv(0, 5, Duration.ofSeconds(20));
                w.send(m.value(), 0, 6);
                ctx.output("echoed", true);
            }
        });
    }

    @AfterAll
    static void stopHost() {
        SOAP.close();
        if (host != null) {
            host.close();
        }
    }

    private static String url() {
        return host.serviceUrl(TYPE);
    }

    /** A rank instance opened directly in the host's registry, so the test can receive what SOAP delivers. */
    private record Opened(String domainId, DomainToken token, RankInstance rank, List<Endpoint> endpoints) {
        Envelope envelope(long seq, Object value) {
            return new Envelope(domainId, 0, 0, 1, 7, seq, Envelope.Kind.DATA,
                    token.prove(domainId, 0, 0, 1, 7, seq, Envelope.Kind.DATA.ordinal()), Payload.of(value));
        }
    }

    private static Opened open() {
        String domainId = DomainToken.generate();
        String token = DomainToken.generate();
        List<Endpoint> eps = List.of(host.endpoint(TYPE), host.endpoint(TYPE));
        RankInstance r = host.registry().open(domainId, 1, token, eps, host.selector(), "soap");
        return new Opened(domainId, new DomainToken(token), r, eps);
    }

    @Test
    void wsdlParsesAndNamesTheFiveOperations() throws Exception {
        WSDLReader reader = WSDLFactory.newInstance().newWSDLReader();
        reader.setFeature("javax.wsdl.verbose", false);
        reader.setFeature("javax.wsdl.importDocuments", false);
        DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
        dbf.setNamespaceAware(true);
        dbf.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document doc = dbf.newDocumentBuilder().parse(new ByteArrayInputStream(
                CLIENT.wsdl(url()).getBytes(StandardCharsets.UTF_8)));
        Definition def = reader.readWSDL(url() + "?wsdl", doc);
        PortType pt = def.getPortType(new QName(MpiwsNames.NS, "MpiwsPortType"));
        assertNotNull(pt);
        Set<String> ops = new TreeSet<>();
        for (Object o : pt.getOperations()) {
            ops.add(((Operation) o).getName());
        }
        assertEquals(new TreeSet<>(List.of("run", "store", "bstore", "status", "abort")), ops);
        javax.wsdl.Binding b = def.getBinding(new QName(MpiwsNames.NS, "MpiwsSoap12Binding"));
        assertTrue(b.getExtensibilityElements().stream().anyMatch(e -> e instanceof SOAP12Binding), "SOAP 1.2 binding");
        javax.wsdl.Port port = (javax.wsdl.Port) def.getService(new QName(MpiwsNames.NS, TYPE)).getPorts().values().iterator().next();
        SOAP12Address address = (SOAP12Address) port.getExtensibilityElements().get(0);
        assertEquals(url(), address.getLocationURI());
    }

    @Test
    void aHandBuiltSoap12EnvelopeGetsAStatusAnswer() throws Exception {
        String envelope = "<?xml version=\"1.0\"?><env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\">"
                + "<env:Body><status xmlns=\"urn:mpfl:mpiws\"><domainId>no-such-domain</domainId><rank>3</rank></status>"
                + "</env:Body></env:Envelope>";
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url()))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/soap+xml; charset=UTF-8; action=\"urn:mpfl:mpiws:status\"")
                .POST(HttpRequest.BodyPublishers.ofString(envelope)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/soap+xml"),
                r.headers().toString());
        DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
        dbf.setNamespaceAware(true);
        dbf.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document doc = dbf.newDocumentBuilder().parse(new ByteArrayInputStream(r.body().getBytes(StandardCharsets.UTF_8)));
        assertEquals(MpiwsNames.SOAP12_NS, doc.getDocumentElement().getNamespaceURI());
        assertEquals("unknown", doc.getElementsByTagNameNS(MpiwsNames.NS, "state").item(0).getTextContent());
    }

    @Test
    void runReportsEventsInOrderAndKeepsTheFinalStatus() throws Exception {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        String domainId = DomainToken.generate();
        String token = DomainToken.generate();
        // POSTs whose headers do not prove them with the run request's domain and token (RankEventPost), and why
        List<String> unproved = Collections.synchronizedList(new ArrayList<>());
        HttpServer engine = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        engine.createContext("/cb/events", ex -> {
            byte[] bytes = ex.getRequestBody().readAllBytes();
            String why = EventPosterTest.unproved(domainId, token, ex.getRequestHeaders(), bytes);
            if (why != null) {
                unproved.add(why);
            }
            // one event per POST, or several as an array (the poster batches): one entry per event
            com.fasterxml.jackson.databind.JsonNode body = new com.fasterxml.jackson.databind.ObjectMapper().readTree(bytes);
            for (com.fasterxml.jackson.databind.JsonNode n : body.isArray() ? body : List.of(body)) {
                events.add(n.toString());
            }
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        engine.start();
        try {
            List<Endpoint> eps = List.of(host.endpoint(TYPE), host.endpoint(TYPE));
            String cb = "http://127.0.0.1:" + engine.getAddress().getPort() + "/cb";
            for (int r = 0; r < 2; r++) {
                assertEquals("running", CLIENT.run(url(), new RunRequest(domainId, r, eps, List.of(), Map.of(), token,
                        r == 0 ? cb : null, "soap")));
            }
            RankStatus s = awaitFinal(domainId, token, 0);
            assertEquals("done", s.state(), String.valueOf(s.failure()));
            assertEquals("1.0", s.outputsJson().get("first"), s.toString());
            assertEquals(1.0, s.progressValue());
            assertTrue(s.countersJson().contains("\"sentTo\""), s.countersJson());
            assertEquals("true", awaitFinal(domainId, token, 1).outputsJson().get("echoed"));
            Await.until(Duration.ofSeconds(60), () -> "the DONE event is posted (events: " + events + ")",
                    () -> events.stream().anyMatch(e -> e.contains("\"DONE\"")), Boolean.TRUE::equals);
            List<String> types = new ArrayList<>();
            for (String e : events) {
                types.add(e.replaceAll(".*\"type\":\"([A-Z]+)\".*", "$1"));
            }
            assertEquals(List.of("STATE", "PROGRESS", "LOG", "OUTPUT", "COUNTERS", "STATE"), types, events.toString());
            assertTrue(events.get(0).contains("\"RUNNING\"") && events.get(5).contains("\"DONE\""), events.toString());
            assertEquals(List.of(), unproved, "every POST of events proves its body with the domain's token");
        } finally {
            engine.stop(0);
        }
    }

    /** The rank's status (outputs included: the request proves the token) once final (a 60 s hang guard). */
    private static RankStatus awaitFinal(String domainId, String token, int rank) throws Exception {
        byte[] proof = new DomainToken(token).proveStatus(domainId, rank);
        return Await.until(Duration.ofSeconds(60), "rank " + rank + " ends", () -> CLIENT.status(url(), domainId, rank, proof),
                RankStatus::isFinal);
    }

    @Test
    void aStoreSentTwiceIsReceivedOnce() throws Exception {
        Opened o = open();
        try {
            Envelope e = o.envelope(0, new double[] {4, 2});
            SOAP.store(o.endpoints().get(1), e);
            SOAP.store(o.endpoints().get(1), e); // an injected retry: same sequence number
            Communicator w = CollectiveCommunicator.world(o.rank());
            assertTrue(Arrays.equals(new double[] {4, 2}, (double[]) w.recv(0, 7, Duration.ofSeconds(5)).value()));
            assertThrows(ReceiveTimeoutException.class, () -> w.recv(0, 7, Duration.ofMillis(300)));
        } finally {
            o.rank().close();
        }
    }

    @Test
    void aStoreWithAWrongTokenProofIsRejectedAndNotDelivered() throws Exception {
        Opened o = open();
        try {
            Envelope good = o.envelope(0, "hello");
            Envelope forged = new Envelope(good.domainId(), 0, 0, 1, 7, 0, Envelope.Kind.DATA,
                    new DomainToken(DomainToken.generate()).prove(good.domainId(), 0, 0, 1, 7, 0, Envelope.Kind.DATA.ordinal()),
                    Payload.of("forged"));
            TransportException ex = assertThrows(TransportException.class, () -> SOAP.store(o.endpoints().get(1), forged));
            assertTrue(ex.isFinal(), ex.getMessage());
            assertTrue(ex.getMessage().contains(SoapFault.REJECTED), ex.getMessage());
            SOAP.store(o.endpoints().get(1), good);
            assertEquals("hello", CollectiveCommunicator.world(o.rank()).recv(0, 7, Duration.ofSeconds(5)).value());
        } finally {
            o.rank().close();
        }
    }

    @Test
    void aStandardAxis2MtomClientCanStoreThroughBothServerPaths() throws Exception {
        Opened o = open();
        ServiceClient client = new ServiceClient(host.axis2Context(), null);
        try {
            Communicator w = CollectiveCommunicator.world(o.rank());
            for (int seq = 0; seq < 2; seq++) {
                double[] value = new double[10_000];
                Arrays.fill(value, seq + 0.5);
                Options opts = new Options();
                opts.setTo(new EndpointReference(url()));
                opts.setSoapVersionURI(org.apache.axiom.soap.SOAP12Constants.SOAP_ENVELOPE_NAMESPACE_URI);
                opts.setProperty(Constants.Configuration.ENABLE_MTOM, Constants.VALUE_TRUE);
                opts.setTimeOutInMilliSeconds(20_000);
                // with the action the host's lean path reads it; without, Axis2 dispatches on the body element
                opts.setAction(seq == 0 ? MpiwsNames.action(MpiwsNames.OP_STORE) : "");
                client.setOptions(opts);
                client.sendRobust(storeElement(o.envelope(seq, value)));
                client.cleanupTransport();
                assertTrue(Arrays.equals(value, (double[]) w.recv(0, 7, Duration.ofSeconds(5)).value()), "seq " + seq);
            }
            // and a robust in-only fault reaches the standard client
            Envelope forged = new Envelope(o.domainId(), 0, 0, 1, 7, 5, Envelope.Kind.DATA, new byte[32], Payload.of(new double[1]));
            AxisFault f = assertThrows(AxisFault.class, () -> client.sendRobust(storeElement(forged)));
            assertTrue(String.valueOf(f.getMessage()).contains("rejected"), f.getMessage());
        } finally {
            client.cleanupTransport();
            client.cleanup();
            o.rank().close();
        }
    }

    /** The store body as a WSDL-driven MTOM client builds it: fields, then the payload as an optimised binary text node. */
    private static OMElement storeElement(Envelope e) {
        OMFactory f = OMAbstractFactory.getOMFactory();
        OMNamespace m = f.createOMNamespace(MpiwsNames.NS, "m");
        OMElement store = f.createOMElement(MpiwsNames.OP_STORE, m);
        String[][] fields = {{"domainId", e.domainId()}, {"context", "0"}, {"from", "0"}, {"to", "1"}, {"tag", "7"},
            {"seq", Long.toString(e.seq())}, {"kind", "DATA"},
            {"proof", java.util.Base64.getEncoder().encodeToString(e.proof())}, {"type", "DOUBLE_ARRAY"}};
        for (String[] kv : fields) {
            f.createOMElement(kv[0], m, store).setText(kv[1]);
        }
        OMElement payload = f.createOMElement("payload", m, store);
        payload.addChild(f.createOMText(Blobs.createBlob(e.payload().encode()), true));
        return store;
    }

    @Test
    void abortNeedsTheProofAndFailsABlockedReceive() throws Exception {
        Opened o = open();
        Communicator w = CollectiveCommunicator.world(o.rank());
        MpiwsClient.MpiwsCallException wrong = assertThrows(MpiwsClient.MpiwsCallException.class,
                () -> CLIENT.abort(url(), o.domainId(), new DomainToken(DomainToken.generate()).proveAbort(o.domainId())));
        assertEquals(SoapFault.REJECTED, wrong.fault().subcode());
        assertFalse(o.rank().domain().isAborted());
        long[] failedAfterMs = new long[1];
        Thread receiver = new Thread(() -> {
            long t0 = System.nanoTime();
            try {
                w.recv(0, 99);
            } catch (DomainAbortedException expected) {
                failedAfterMs[0] = (System.nanoTime() - t0) / 1_000_000;
            }
        });
        receiver.start();
        Await.until(Duration.ofSeconds(30), "the receiver blocked in its receive",
                () -> receiver.getState() == Thread.State.WAITING || receiver.getState() == Thread.State.TIMED_WAITING);
        long t0 = System.nanoTime();
        CLIENT.abort(url(), o.domainId(), o.token().proveAbort(o.domainId()));
        receiver.join(30_000);
        assertFalse(receiver.isAlive(), "blocked receive still waiting after abort");
        // the point: the abort ends a receive that would wait forever; usually within milliseconds, and
        // 10 s holds on a loaded 2-core machine
        assertTrue(failedAfterMs[0] > 0 && (System.nanoTime() - t0) / 1_000_000 < 10_000,
                "blocked receive did not fail within 10 s of the abort");
        o.rank().close();
    }
}
