package org.mpfl.runtime.p2p;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.mpfl.protocol.Endpoint;
import org.mpfl.runtime.transport.Envelope;
import org.mpfl.runtime.transport.MemoryBudget;
import org.mpfl.runtime.transport.TransportSelector;
import org.mpfl.runtime.transport.local.LocalInbox;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rank instances of one service host, keyed by (domain ID, world rank) — the receiving side of
 * every transport. Serves many domains at once and several ranks of one domain.
 *
 * <p>Outcomes of a store: an unknown domain or rank answers {@code BUSY} (its {@code run} may not
 * have arrived yet: the sender retries); a rank or domain that has ended normally answers
 * {@code DUPLICATE} — the message is dropped, as MPI drops messages nobody received before
 * finalize, and the sender does not fail; an aborted domain answers {@code REJECTED}, as does a
 * wrong token proof (logged). A domain's state is dropped when its last
 * rank in this host ends; only a small bounded list of ended domain IDs is remembered.
 *
 * <p>Memory: besides each domain's bound ({@link MessagingSettings#unexpectedLimitBytes()}), one
 * {@link MemoryBudget} bounds what all domains of this host buffer together, and what transports
 * are reading for them ({@link #admit}).
 */
public final class RankRegistry implements LocalInbox, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RankRegistry.class);
    private static final int REMEMBERED_ENDED_DOMAINS = 4096;

    private final String hostId;
    private final MessagingSettings settings;
    private final MemoryBudget budget;
    private final ConcurrentHashMap<String, Domain> domains = new ConcurrentHashMap<>();
    /** Ended or aborted domains (ID → why), so late messages are rejected rather than retried. */
    private final Map<String, String> ended = new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > REMEMBERED_ENDED_DOMAINS;
        }
    };
    private final ExecutorService outboundThreads;
    private final boolean inJvmOnly;

    /** A registry with the host budget from the system properties ({@link MemoryBudget#fromSystemProperties()}). */
    public RankRegistry(String hostId, MessagingSettings settings) {
        this(hostId, settings, MemoryBudget.fromSystemProperties());
    }

    public RankRegistry(String hostId, MessagingSettings settings, MemoryBudget budget) {
        this(hostId, settings, budget, false);
    }

    /**
     * @param inJvmOnly no network entry leads to this registry ({@link MessagingHost#inJvmOnly}): its domains'
     *                  messages are neither proven nor checked ({@link Domain#proof}, {@link Domain#admits})
     */
    RankRegistry(String hostId, MessagingSettings settings, MemoryBudget budget, boolean inJvmOnly) {
        this.inJvmOnly = inJvmOnly;
        this.hostId = hostId;
        this.settings = settings;
        this.budget = budget;
        AtomicInteger n = new AtomicInteger();
        this.outboundThreads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "mpfl-outbound-" + hostId + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    public String hostId() {
        return hostId;
    }

    /** Whether no network entry leads here ({@link MessagingHost#inJvmOnly}): messages carry no proofs. */
    public boolean inJvmOnly() {
        return inJvmOnly;
    }

    public MessagingSettings settings() {
        return settings;
    }

    @Override
    public Outcome authenticateChannel(String domainId, byte[] challenge, byte[] proof) {
        Domain domain = domains.get(domainId);
        if (domain == null) {
            return afterEnd(domainId);
        }
        if (!domain.proofs().verifyChannel(challenge, domainId, proof)) {
            LOG.warn("refused a binary-channel connection for domain {}: bad token proof", Domain.shortId(domainId));
            return Outcome.REJECTED;
        }
        return domain.isAborted() ? Outcome.REJECTED : Outcome.STORED;
    }

    @Override
    public long maxMessageBytes() {
        return budget.maxMessageBytes();
    }

    /** The host's memory budget for unmatched messages of all domains. */
    public MemoryBudget budget() {
        return budget;
    }

    /** Runs the background senders of outbound lanes. */
    public ExecutorService outboundThreads() {
        return outboundThreads;
    }

    /**
     * Creates the rank instance {@code (domainId, rank)}.
     *
     * @param transportMode {@code auto}, {@code local}, {@code binary} or {@code soap}; {@code null}
     *                      means the system property {@code mpfl.transport} (default auto)
     * @throws IllegalStateException if that rank already runs here, the domain was aborted, or the
     *                               token differs from the one the domain was opened with
     */
    public RankInstance open(String domainId, int rank, String token, List<Endpoint> endpoints,
                             TransportSelector selector, String transportMode) {
        if (rank < 0 || rank >= endpoints.size()) {
            throw new IllegalArgumentException("rank " + rank + " outside a domain of size " + endpoints.size());
        }
        synchronized (ended) {
            String why = ended.get(domainId);
            if (why != null && why.startsWith("aborted")) {
                throw new IllegalStateException("domain " + Domain.shortId(domainId) + " was " + why);
            }
            ended.remove(domainId);
            Domain domain = domains.computeIfAbsent(domainId,
                    id -> new Domain(id, token, endpoints.size(), settings.unexpectedLimitBytes(), budget,
                            selector.forDomain(id, List.copyOf(endpoints), transportMode, outboundThreads), inJvmOnly));
            if (!domain.hasToken(token)) {
                throw new IllegalStateException("rank " + rank + " of domain " + Domain.shortId(domainId)
                        + " opened with a token that differs from the domain's");
            }
            RankInstance instance = new RankInstance(this, domain, rank, List.copyOf(endpoints),
                    transportMode);
            if (domain.ranks.putIfAbsent(rank, instance) != null) {
                throw new IllegalStateException("rank " + rank + " of domain " + Domain.shortId(domainId)
                        + " already runs in host " + hostId);
            }
            domain.endedRanks.remove(rank);
            return instance;
        }
    }

    /** Called by a rank instance when it has ended (after flushing its outbound messages). */
    public void ended(RankInstance instance) {
        Domain domain = instance.domain();
        synchronized (ended) {
            domain.ranks.remove(instance.rank(), instance);
            domain.endedRanks.add(instance.rank());
            if (domain.ranks.isEmpty()) {
                domains.remove(domain.id(), domain);
                ended.put(domain.id(), domain.isAborted() ? "aborted" : "ended");
            }
        }
    }

    /** The domain's state in this host, or {@code null} if it has none (never opened, or ended). */
    public Domain domain(String domainId) {
        return domains.get(domainId);
    }

    /**
     * A live domain of this host with a rank at {@code hostPort} (a peer's SOAP or binary address), or
     * {@code null}: the domain whose token a connection through a relay to that peer proves.
     */
    public Domain domainReaching(String hostPort) {
        Map.Entry<Domain, Endpoint> found = rankAt(hostPort);
        return found == null ? null : found.getKey();
    }

    /**
     * Domain {@code domainId} if it is live in this host and has a rank at {@code hostPort}, else {@code null}:
     * a connection made for that domain proves its token, not another domain's that reaches the same peer.
     */
    public Domain domainReaching(String domainId, String hostPort) {
        Domain d = domains.get(domainId);
        if (d == null) {
            return null;
        }
        for (RankInstance r : d.ranks.values()) {
            for (Endpoint e : r.endpoints()) {
                if (hostPort.equals(e.binaryAddress()) || hostPort.equals(hostPortOf(e.soapUrl()))) {
                    return d;
                }
            }
        }
        return null;
    }

    /**
     * The endpoint of a live domain's rank at {@code hostPort} (a peer's SOAP or binary address), or
     * {@code null}: its site and relay say how this host connects to it.
     */
    public Endpoint endpointAt(String hostPort) {
        Map.Entry<Domain, Endpoint> found = rankAt(hostPort);
        return found == null ? null : found.getValue();
    }

    private Map.Entry<Domain, Endpoint> rankAt(String hostPort) {
        for (Domain d : domains.values()) {
            for (RankInstance r : d.ranks.values()) {
                for (Endpoint e : r.endpoints()) {
                    if (hostPort.equals(e.binaryAddress()) || hostPort.equals(hostPortOf(e.soapUrl()))) {
                        return Map.entry(d, e);
                    }
                }
            }
        }
        return null;
    }

    /** The live domain whose relay tag ({@link org.mpfl.protocol.DomainToken#relayTag}) is {@code tag}, or {@code null}. */
    public Domain domainByRelayTag(String tag) {
        for (Domain d : domains.values()) {
            if (org.mpfl.protocol.DomainToken.relayTag(d.id()).equals(tag)) {
                return d;
            }
        }
        return null;
    }

    private static String hostPortOf(String url) {
        try {
            java.net.URI u = java.net.URI.create(url);
            return u.getHost() + ":" + u.getPort();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Number of domains with live state in this host (for leak checks). */
    public int liveDomains() {
        return domains.size();
    }

    @Override
    public Outcome store(Envelope envelope) {
        return store(envelope, false);
    }

    @Override
    public Outcome store(Envelope envelope, boolean copyOnAdmit) {
        return store(envelope, copyOnAdmit, null);
    }

    @Override
    public Outcome store(Envelope envelope, MemoryBudget.Reservation reservation) {
        return store(envelope, false, reservation);
    }

    private Outcome store(Envelope envelope, boolean copyOnAdmit, MemoryBudget.Reservation reservation) {
        Domain domain = domains.get(envelope.domainId());
        if (domain == null) {
            return afterEnd(envelope.domainId());
        }
        if (!domain.admits(envelope)) {
            LOG.warn("rejected a {} for domain {} from rank {} to rank {}: bad token proof", envelope.kind(),
                    Domain.shortId(envelope.domainId()), envelope.from(), envelope.to());
            return Outcome.REJECTED;
        }
        if (domain.isAborted()) {
            return Outcome.REJECTED;
        }
        RankInstance instance = domain.ranks.get(envelope.to());
        if (instance == null) {
            return domain.endedRanks.contains(envelope.to()) ? Outcome.DUPLICATE : Outcome.BUSY;
        }
        return instance.accept(envelope, copyOnAdmit, reservation);
    }

    /** A store for a domain without state here: not yet opened (BUSY), ended (dropped) or aborted. */
    private Outcome afterEnd(String domainId) {
        String why;
        synchronized (ended) {
            why = ended.get(domainId);
        }
        if (why == null) {
            return Outcome.BUSY;
        }
        return why.startsWith("aborted") ? Outcome.REJECTED : Outcome.DUPLICATE;
    }

    @Override
    public Outcome probe(Envelope header, long payloadBytes) {
        Domain domain = domains.get(header.domainId());
        if (domain == null) {
            return afterEnd(header.domainId());
        }
        if (!domain.admits(header) || domain.isAborted()) {
            return Outcome.REJECTED;
        }
        RankInstance instance = domain.ranks.get(header.to());
        if (instance == null) {
            return domain.endedRanks.contains(header.to()) ? Outcome.DUPLICATE : Outcome.BUSY;
        }
        return instance.probe(header, payloadBytes);
    }

    /**
     * Admission before allocation (see {@link org.mpfl.runtime.transport.Inbox#admit}): the order of
     * the checks is the order of their cost to the host — the length against the per-message limit,
     * the domain known here, the token proof, then the rank's buffer and the host's budget. A
     * refusal allocates nothing.
     */
    @Override
    public Admission admit(Envelope header, long payloadBytes) {
        if (payloadBytes > budget.maxMessageBytes()) {
            LOG.warn("refused a {} of {} bytes for domain {}: over the per-message limit of {} bytes", header.kind(),
                    payloadBytes, Domain.shortId(header.domainId()), budget.maxMessageBytes());
            return new Admission(Outcome.REJECTED, false, null);
        }
        Domain domain = domains.get(header.domainId());
        if (domain == null) {
            return new Admission(afterEnd(header.domainId()), false, null);
        }
        if (!domain.admits(header)) {
            LOG.warn("rejected a {} for domain {} from rank {} to rank {}: bad token proof", header.kind(),
                    Domain.shortId(header.domainId()), header.from(), header.to());
            return new Admission(Outcome.REJECTED, false, null);
        }
        if (domain.isAborted()) {
            return new Admission(Outcome.REJECTED, true, null);
        }
        RankInstance instance = domain.ranks.get(header.to());
        if (instance == null) {
            return new Admission(domain.endedRanks.contains(header.to()) ? Outcome.DUPLICATE : Outcome.BUSY, true, null);
        }
        return instance.admit(header, payloadBytes);
    }

    @Override
    public boolean abort(String domainId, byte[] proof) {
        Domain domain = domains.get(domainId);
        if (domain == null || !domain.proofs().verifyAbort(domainId, proof)) {
            if (domain != null) {
                LOG.warn("rejected an abort of domain {}: bad token proof", Domain.shortId(domainId));
            }
            return false;
        }
        abortLocally(domainId, "aborted by request");
        return true;
    }

    /** Aborts a domain in this host without a proof (the host's own decision, e.g. a rank failed). */
    public void abortLocally(String domainId, String reason) {
        Domain domain = domains.get(domainId);
        if (domain != null) {
            LOG.info("domain {} aborted: {}", Domain.shortId(domainId), reason);
            domain.abort(reason);
        }
    }

    /** Aborts every domain with live state in this host (the host's own decision); returns how many. */
    public int abortAllLocally(String reason) {
        int n = 0;
        for (String id : List.copyOf(domains.keySet())) {
            if (domains.containsKey(id)) {
                abortLocally(id, reason);
                n++;
            }
        }
        return n;
    }

    @Override
    public void close() {
        for (Domain d : domains.values()) {
            d.abort("service host " + hostId + " is shutting down");
        }
        outboundThreads.shutdownNow();
    }
}
