package org.mpfl.runtime.host;

import java.io.StringReader;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.mpfl.protocol.DomainToken;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsNames;
import org.mpfl.protocol.RankStatus;
import org.mpfl.protocol.RunMessages;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.SoapFault;
import org.mpfl.protocol.Xml;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.runtime.p2p.RankRegistry;
import org.mpfl.runtime.p2p.RankInstance;
import org.mpfl.runtime.transport.ObjectTypes;
import org.mpfl.runtime.transport.TransportSelector;
import org.mpfl.runtime.transport.soap.SoapTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rank side of the MPIWS operations {@code run}, {@code status} and {@code abort}: the ranks started
 * in one messaging set-up, with their final states kept for {@code status}. Shared by the
 * {@link ServiceHost} and by generated services in a stock Axis2 container ({@link ContainerRuntime}).
 */
final class RankTable implements MpiwsHandler {
    private static final Logger LOG = LoggerFactory.getLogger(RankTable.class);
    /** Finished ranks whose final status is kept for {@code status}. */
    private static final int KEPT_FINISHED_RANKS = 10_000;
    private static final RankStatus UNKNOWN = new RankStatus("unknown", Double.NaN, Double.NaN, null, Map.of(), null, null);

    private final String hostId;
    private final RankRegistry registry;
    private final TransportSelector selector;
    private final SoapTransport soap;
    private final Executor eventThreads;
    /** Uploads checkpoints to the engine (with the host's TLS settings); {@code null} for ranks without an engine. */
    private final java.net.http.HttpClient eventHttp;
    /** Where a rank's events go: the engine (over {@link #eventHttp}), or the in-process caller. */
    private final Function<RunRequest, RankEvents> eventsFor;
    private final Function<String, Supplier<RankProgram>> serviceTypes;
    private final Supplier<Function<RankInstance, Communicator>> worldFactory;
    private final BooleanSupplier closed;
    private final Map<String, HostedRank> ranks = new LinkedHashMap<>();

    /**
     * @param serviceTypes the program factory of a service type, {@code null} for an unknown one
     * @param closed       whether the owner is shutting down ({@code run} is refused then)
     */
    RankTable(String hostId, RankRegistry registry, TransportSelector selector, SoapTransport soap, Executor eventThreads,
              org.mpfl.protocol.tls.TlsSettings tls, Function<String, Supplier<RankProgram>> serviceTypes,
              Supplier<Function<RankInstance, Communicator>> worldFactory, BooleanSupplier closed) {
        this.hostId = hostId;
        this.registry = registry;
        this.selector = selector;
        this.soap = soap;
        this.eventThreads = eventThreads;
        java.net.http.HttpClient http = EventPoster.client(tls);
        this.eventHttp = http;
        // an engine that refuses a domain's events (403/404/410 with its X-MPFL-Refusal mark, EventPoster) has given the
        // domain up: its ranks stop here
        this.eventsFor = req -> new EventPoster(req.callbackUrl(), req.domainId(), req.token(), eventThreads, http, (code, message) ->
                registry.abortLocally(req.domainId(), "the engine refused this domain's events (HTTP " + code
                        + (message.isEmpty() ? "" : ": " + message) + "): the run has ended or given this domain up"));
        this.serviceTypes = serviceTypes;
        this.worldFactory = worldFactory;
        this.closed = closed;
    }

    /**
     * A table of ranks that all live in this JVM and report to {@code eventsFor} instead of an engine
     * ({@link InProcessHost}): no SOAP, no HTTP client; every endpoint is on this host, so a failing rank
     * aborts its domain here only.
     */
    RankTable(String hostId, RankRegistry registry, TransportSelector selector, Function<RunRequest, RankEvents> eventsFor,
              Function<String, Supplier<RankProgram>> serviceTypes, Function<RankInstance, Communicator> world,
              BooleanSupplier closed) {
        this.hostId = hostId;
        this.registry = registry;
        this.selector = selector;
        this.soap = null;
        this.eventThreads = Runnable::run;
        this.eventHttp = null;
        this.eventsFor = eventsFor;
        this.serviceTypes = serviceTypes;
        this.worldFactory = () -> world;
        this.closed = closed;
    }

    @Override
    public org.mpfl.runtime.transport.Inbox inbox() {
        return registry;
    }

    private static String key(String domainId, int rank) {
        return domainId + "#" + rank;
    }

    /** {@code run}: creates the rank instance and starts its program; answers at once. */
    @Override
    public String handleRun(String serviceType, String runXml) throws OperationFault {
        RunRequest req;
        try {
            req = RunMessages.parseRun(runXml);
        } catch (XMLStreamException | RuntimeException e) {
            throw new OperationFault(new SoapFault("Sender", SoapFault.MALFORMED, "bad run request: " + e.getMessage()));
        }
        return startRank(serviceType, req);
    }

    /** Starts one rank of {@code serviceType} in this host (what {@code run} does). */
    public String startRank(String serviceType, RunRequest req) throws OperationFault {
        Supplier<RankProgram> factory = serviceTypes.apply(serviceType);
        if (factory == null) {
            throw new OperationFault(new SoapFault("Sender", SoapFault.REJECTED, "no service type " + serviceType + " here"));
        }
        if (closed.getAsBoolean()) {
            throw new OperationFault(new SoapFault("Receiver", SoapFault.FAILED, "service host is shutting down"));
        }
        RankProgram program;
        try {
            program = factory.get();
        } catch (RuntimeException e) {
            throw new OperationFault(new SoapFault("Receiver", SoapFault.FAILED, e.getMessage()));
        }
        RankInstance instance;
        try {
            instance = registry.open(req.domainId(), req.rank(), req.token(), req.endpoints(), selector, req.transport());
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new OperationFault(new SoapFault("Sender", SoapFault.REJECTED, e.getMessage()));
        }
        // before the program runs: its object values are sent and read with its workflow's allow-list
        instance.allowObjectTypes(ObjectTypes.forProgram(program));
        Communicator world = worldFactory.get().apply(instance);
        HostedRank rank = new HostedRank(req, serviceType, program, instance, world, eventsFor.apply(req), eventHttp,
                () -> abortDomainEverywhere(req, "rank " + req.rank() + " failed"));
        synchronized (ranks) {
            ranks.put(key(req.domainId(), req.rank()), rank);
            trimFinished();
        }
        rank.start();
        return "<m:runResponse xmlns:m=\"" + MpiwsNames.NS + "\"><m:state>running</m:state></m:runResponse>";
    }

    /**
     * Logs {@code message} (info) as every rank here that still runs, each through its own events to the engine (whose
     * answer for a domain it gave up ends the domain here); returns how many ranks that was.
     */
    int tellLiveRanks(String message) {
        List<HostedRank> live;
        synchronized (ranks) {
            live = ranks.values().stream().filter(r -> !r.isFinished()).toList();
        }
        live.forEach(r -> r.log("info", message));
        return live.size();
    }

    private void trimFinished() {
        if (ranks.size() <= KEPT_FINISHED_RANKS) {
            return;
        }
        var it = ranks.values().iterator();
        while (ranks.size() > KEPT_FINISHED_RANKS && it.hasNext()) {
            if (it.next().isFinished()) {
                it.remove();
            }
        }
    }

    /**
     * {@code status}: the state, progress and counters of one rank instance ({@code unknown} if this host has
     * none); its outputs and failure message too if the request carries the proof of the domain token
     * ({@link DomainToken#proveStatus}). Without a proof, or with a wrong one, they are left out — not a
     * fault: knowing the domain ID is enough for what the MPIWS specification defines, not for the run's data.
     */
    @Override
    public String handleStatus(String statusXml) throws OperationFault {
        String domainId = null;
        int rank = -1;
        byte[] proof = null;
        try {
            XMLStreamReader x = Xml.reader(new StringReader(statusXml));
            while (x.hasNext()) {
                if (x.next() == XMLStreamConstants.START_ELEMENT && MpiwsNames.NS.equals(x.getNamespaceURI())) {
                    switch (x.getLocalName()) {
                        case "domainId" -> domainId = x.getElementText().trim();
                        case "rank" -> rank = Integer.parseInt(x.getElementText().trim());
                        case "proof" -> proof = decodeProof(x.getElementText());
                        default -> { }
                    }
                }
            }
        } catch (XMLStreamException | RuntimeException e) {
            throw new OperationFault(new SoapFault("Sender", SoapFault.MALFORMED, "bad status request: " + e.getMessage()));
        }
        if (domainId == null) {
            throw new OperationFault(new SoapFault("Sender", SoapFault.MALFORMED, "status needs domainId and rank"));
        }
        HostedRank r = hosted(domainId, rank);
        if (r == null) {
            return RunMessages.statusResponseXml(UNKNOWN);
        }
        RankStatus s = r.status();
        if (proof == null || !r.provesStatus(proof)) {
            if (proof != null) {
                LOG.debug("status of rank {} of a domain with a wrong proof: answered without outputs", rank);
            }
            s = s.withoutOutputs();
        }
        return RunMessages.statusResponseXml(s);
    }

    /** A base64 proof of {@code status} or {@code abort}; undecodable text is a malformed request (the WSDL types it {@code xs:base64Binary}). */
    private static byte[] decodeProof(String text) {
        try {
            return Base64.getMimeDecoder().decode(text.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("proof is not base64");
        }
    }

    /** The status of one rank instance of this host, outputs included (for in-process callers). */
    public RankStatus status(String domainId, int rank) {
        HostedRank r = hosted(domainId, rank);
        return r == null ? UNKNOWN : r.status();
    }

    private HostedRank hosted(String domainId, int rank) {
        synchronized (ranks) {
            return ranks.get(key(domainId, rank));
        }
    }

    /** {@code abort}: aborts the domain in this host if the proof is valid. */
    @Override
    public void handleAbort(String abortXml) throws OperationFault {
        String domainId = null;
        byte[] proof = null;
        try {
            XMLStreamReader x = Xml.reader(new StringReader(abortXml));
            while (x.hasNext()) {
                if (x.next() == XMLStreamConstants.START_ELEMENT && MpiwsNames.NS.equals(x.getNamespaceURI())) {
                    if (x.getLocalName().equals("domainId")) {
                        domainId = x.getElementText().trim();
                    } else if (x.getLocalName().equals("proof")) {
                        proof = decodeProof(x.getElementText());
                    }
                }
            }
        } catch (XMLStreamException | RuntimeException e) {
            throw new OperationFault(new SoapFault("Sender", SoapFault.MALFORMED, "bad abort request: " + e.getMessage()));
        }
        if (domainId == null || proof == null) {
            throw new OperationFault(new SoapFault("Sender", SoapFault.MALFORMED, "abort needs domainId and proof"));
        }
        if (registry.domain(domainId) == null) {
            return; // nothing of that domain lives here (any more): nothing to abort
        }
        if (!registry.abort(domainId, proof)) {
            throw new OperationFault(new SoapFault("Sender", SoapFault.REJECTED, "abort rejected: bad token proof"));
        }
    }

    /** A rank failed: abort its domain here and, best effort, in every other host of the domain. */
    private void abortDomainEverywhere(RunRequest req, String reason) {
        registry.abortLocally(req.domainId(), reason);
        byte[] proof = new DomainToken(req.token()).proveAbort(req.domainId());
        Set<String> done = new TreeSet<>();
        done.add(hostId);
        for (Endpoint e : req.endpoints()) {
            String id = e.hostId() != null ? e.hostId() : e.soapUrl();
            if (done.add(id)) {
                eventThreads.execute(() -> {
                    try {
                        soap.abort(e, req.domainId(), proof);
                    } catch (Exception ex) {
                        LOG.warn("cannot abort domain at {}: {}", e.soapUrl(), ex.getMessage());
                    }
                });
            }
        }
    }
}
