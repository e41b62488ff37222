package org.mpfl.engine.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.engine.registry.HostRegistry;
import org.mpfl.engine.store.RunQuery;
import org.mpfl.engine.store.RunRecord;
import org.mpfl.engine.store.RunStore;
import org.mpfl.protocol.RankEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The monitoring room of the run service: applies what ranks report (events they POST, answers to
 * {@code status} polls), watches for deadlocks and for hosts that stop answering or leave the
 * registry, and answers read queries (detail, lists, event log, trace). What it finds that changes a
 * run's course goes to the lifecycle through {@link RunFaults}, the one way out of this room.
 */
final class RunMonitor {
    private static final Logger LOG = LoggerFactory.getLogger(RunMonitor.class);
    /** Finished runs kept in memory (for late events and fast reads) before only the store has them. */
    static final int FINISHED_IN_MEMORY = 500;
    /** How long a finished run stays in memory at least (late OUTPUT/COUNTERS events still apply). */
    static final long FINISHED_MIN_AGE_MS = 60_000;

    private final LiveRuns runs;
    private final RunStore store;
    private final RunJournal journal;
    private final RunFaults faults;
    private final HostRegistry registry;
    private final RankInvoker invoker;
    private final RunSettings settings;
    private final ExecutorService workers;
    private final Map<String, AtomicBoolean> polling = new ConcurrentHashMap<>();
    private final Map<String, Long> lastPoll = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> hostFailures = new ConcurrentHashMap<>();
    /**
     * Heartbeat intervals without a heartbeat after which a host counts as unreachable as well when
     * another host of its run is lost: a healthy host sends one every interval; the second host of
     * a cut-off site has been silent for at least (timeout − interval) = 2 intervals when the first
     * one's heartbeat times out, so 1.5 leaves half an interval either way.
     */
    static final double SILENT_HEARTBEATS = 1.5;
    /**
     * Set once the engine stops: hosts that leave from then on (the capacity provider's jobs cancelled as the engine
     * stops say goodbye) leave their runs as they are, for the engine started next on the same data.
     */
    private volatile boolean stopping;

    RunMonitor(LiveRuns runs, RunStore store, RunJournal journal, RunFaults faults, HostRegistry registry, RankInvoker invoker,
               RunSettings settings, ExecutorService workers) {
        this.runs = runs;
        this.store = store;
        this.journal = journal;
        this.faults = faults;
        this.registry = registry;
        this.invoker = invoker;
        this.settings = settings;
        this.workers = workers;
    }

    // ------------------------------------------------------------------ what ranks report

    /** See {@link RunService#rankEvents}. */
    void rankEvents(String runId, List<RankEvent> events) throws UnknownRunException, ForeignEventException,
            EndedRunEventException {
        Run run = runs.get(runId);
        if (run == null) {
            throw new UnknownRunException(runId);
        }
        // as the batch came: a batch whose own FAILED state ends the run is answered as taken
        RunState before = run.state();
        for (RankEvent e : events) {
            if (e == null || e.type() == null) {
                continue;
            }
            Run.Outcome outcome = run.apply(e);
            if (outcome == Run.Outcome.FOREIGN) {
                // the run's domain, or one it gave up when it placed its ranks again
                throw new ForeignEventException("event for domain '" + e.domainId() + "' does not belong to run " + runId);
            }
            if (outcome == Run.Outcome.DUPLICATE) {
                // a host sends a batch again when its POST timed out after the engine took it (as after an
                // engine restart, when the kept events arrive at once): once in the log, as in the detail
                continue;
            }
            journal.record(run, e.rank(), "rank", published(e));
            handle(run, outcome, e.rank(), e.domainId());
        }
        if (before == RunState.FAILED || before == RunState.CANCELLED) {
            // a 204 would tell the host all is well: its ranks of this domain would run on, unobserved, holding slots
            throw new EndedRunEventException("run " + runId + " has ended " + before + ": abort its ranks");
        }
    }

    /**
     * The log lines of a post admitted as {@linkplain RankEventIntake.Admission#late late} (of a domain the run gave up a
     * moment ago; the old domain's ranks post their last lines while they are aborted): into the run's log, marked
     * {@code late}, once each; nothing else of the post is applied to the run, whose ranks are now another domain's.
     */
    void lateLogLines(String runId, List<RankEvent> events) {
        Run run = runs.get(runId);
        if (run == null) {
            return;
        }
        for (RankEvent e : events) {
            if (e != null && e.type() == RankEvent.Type.LOG && run.takeLateLine(e.domainId(), e.rank(), e.seq())) {
                Map<String, Object> line = published(e);
                line.put("late", true);
                journal.record(run, e.rank(), "rank", line);
            }
        }
    }

    /**
     * A rank event as stored and streamed: everything but the domain ID, which authorises events
     * and must not leak to readers of the public event log.
     */
    static Map<String, Object> published(RankEvent e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rank", e.rank());
        m.put("seq", e.seq());
        m.put("timeMs", e.timeMs());
        m.put("type", e.type());
        m.put("state", e.state());
        m.put("activity", e.activity());
        m.put("location", e.location());
        m.put("message", e.message());
        m.put("level", e.level());
        m.put("name", e.name());
        m.put("value", e.value());
        // whose fault a FAILED state is (WORKFLOW: not retried; INFRASTRUCTURE: retried under restarts), null otherwise
        m.put("fault", e.fault());
        return m;
    }

    /** Applies a {@code status} answer of one rank as the status poller does (ending the run if it ended). */
    void applyStatus(Run run, int rank, RankStatus status) {
        String domain = run.domain().id();
        handle(run, run.applyStatus(domain, rank, status, System.currentTimeMillis()), rank, domain);
    }

    /**
     * What a rank's outcome means for the run.
     *
     * @param domainId the domain the outcome came from (a fault of a domain given up is stale)
     */
    private void handle(Run run, Run.Outcome outcome, int rank, String domainId) {
        switch (outcome) {
            case ALL_DONE -> faults.succeeded(run);
            case RANK_FAILED -> {
                RunError error = run.rankError(rank);
                if (!RestartPolicy.infrastructure(run.rankFault(rank))) {
                    faults.failed(run, error);
                    return;
                }
                // a transport failure: give a workflow fault of another rank (which may have caused it,
                // by aborting the domain) a moment to arrive and win
                workers.submit(() -> RestartPolicy.settleThenDecide(run, faults, domainId, error));
            }
            case ALL_ABORTED -> {
                // every rank aborted and none failed on its own: aborted from outside the workflow, unless a late
                // FAILED event of the causing rank arrives meanwhile and wins
                RunError e = run.rankError(rank);
                RunError error = new RunError(e.rank(), e.location(), e.message() == null ? "domain aborted" : e.message());
                workers.submit(() -> RestartPolicy.settleThenDecide(run, faults, domainId, error));
            }
            case RANK_LOST -> {
                RankPlacement p = run.placements().stream().filter(x -> x.rank() == rank).findFirst().orElse(null);
                faults.infrastructureFault(run, domainId, new RunError(rank, p == null ? null : p.endpoint().soapUrl(), "rank "
                        + rank + " is unknown to its host " + (p == null ? "" : p.hostId()) + " (killed from outside?)"), Map.of());
            }
            default -> { }
        }
    }

    // ------------------------------------------------------------------ hosts and the ticker

    /**
     * A host left the registry ({@code how}: lost, said goodbye, removed by an admin): an infrastructure fault of every
     * unfinished run with a rank there, which says how the host went.
     */
    void hostLost(HostInfo host, HostRegistry.Departure how) {
        if (stopping) {
            // a durable run is resumed by the next engine (docs/durability.md): failing it over now would end it or use a
            // restart for what is only this engine's stop
            LOG.info("engine stopping: service host {} {}; its runs are left to the engine started next on this data",
                    registry.describe(host.hostId()), how.words());
            return;
        }
        for (Run run : runs.all()) {
            if (run.state().isFinal()) {
                continue;
            }
            Run.Domain domain = run.domain();
            // by URL too: a new process of the same host id (which replaced this one) may already have ranks
            domain.placements().stream().filter(p -> p.hostId().equals(host.hostId())
                    && p.endpoint().soapUrl().startsWith(host.soapUrl())).findFirst().ifPresent(p ->
                    lostHosts(run, domain, p, host.instance(), "service host " + registry.describe(host.hostId()) + " at "
                            + host.soapUrl() + " " + how.words() + " (rank " + p.rank() + " ran there)"));
        }
    }

    /** The engine is stopping: see {@link #stopping}. */
    void engineStopping() {
        stopping = true;
    }

    /**
     * Fails {@code run} for the host of {@code p}, naming with it every other host of the run that
     * is unreachable too — a site cut off loses all its hosts at once, but their heartbeats time out
     * one by one: hosts that already left the registry, missed their last status poll, or sent no
     * heartbeat for {@link #SILENT_HEARTBEATS} intervals count as unreachable.
     *
     * @param instance the process of {@code p}'s host that was lost ({@code null}: not known)
     */
    private void lostHosts(Run run, Run.Domain domain, RankPlacement p, String instance, String first) {
        long now = System.currentTimeMillis();
        long silentMs = (long) (SILENT_HEARTBEATS * registry.heartbeatInterval().toMillis());
        Map<String, String> others = new java.util.TreeMap<>();
        Map<String, String> instances = new java.util.TreeMap<>();
        for (RankPlacement q : domain.placements()) {
            String h = q.hostId();
            if (h.equals(p.hostId()) || others.containsKey(h)) {
                continue;
            }
            Optional<HostInfo> info = registry.host(h);
            if (info.isEmpty()) {
                others.put(h, h + " (left the registry)");
            } else if (hostFailures.getOrDefault(h, new AtomicInteger()).get() > 0) {
                others.put(h, h + " (missed its last status poll)");
                instances.put(h, info.get().instance());
            } else if (!info.get().staticEntry() && now - info.get().lastHeartbeatMs() > silentMs) {
                others.put(h, h + " (no heartbeat for " + (now - info.get().lastHeartbeatMs()) / 1000 + " s)");
                instances.put(h, info.get().instance());
            }
        }
        Map<String, String> hosts = new java.util.TreeMap<>();
        others.keySet().forEach(h -> hosts.put(h, instances.get(h)));
        hosts.put(p.hostId(), instance);
        String message = others.isEmpty() ? first : first + "; unreachable as well: " + String.join(", ", others.values());
        faults.infrastructureFault(run, domain.id(), new RunError(p.rank(), p.endpoint().soapUrl(), message), hosts);
    }

    /**
     * A relay's watch broke (killed, or cut off): an infrastructure fault of every unfinished run with
     * a host reached only through it (its calls from the engine and from the other sites go through
     * the relay), naming the relay, the sites it serves and the run's hosts behind it — not the hosts
     * of other runs. Those hosts are not lost (they still heartbeat): they are neither quarantined nor
     * kept out of the run, but placement leaves them out while the relay is lost
     * ({@link org.mpfl.engine.registry.Relays#lostRelayOf}).
     */
    void relayLost(org.mpfl.engine.registry.Relays.Relay relay, String why) {
        for (Run run : runs.all()) {
            if (run.state().isFinal()) {
                continue;
            }
            Run.Domain domain = run.domain();
            Map<String, String> behind = new java.util.TreeMap<>();
            domain.placements().forEach(p -> {
                if (registry.relays().relayOf(p.hostId()).filter(relay.address()::equals).isPresent()) {
                    behind.put(p.hostId(), p.endpoint().site());
                }
            });
            if (behind.isEmpty()) {
                continue;
            }
            faults.infrastructureFault(run, domain.id(), new RunError(null, relay.address(), relayLostMessage(relay, why, behind)),
                    Map.of());
        }
    }

    /** What a run's error says of a lost relay: the relay, the sites it serves and the run's hosts behind it (host → site). */
    static String relayLostMessage(org.mpfl.engine.registry.Relays.Relay relay, String why, Map<String, String> behind) {
        java.util.Set<String> sites = new java.util.TreeSet<>(behind.values());
        return "relay " + relay.relayId() + " at " + relay.address() + " (site" + (sites.size() == 1 ? " " : "s ")
                + String.join(", ", sites) + ") was lost (" + why + "): this run's host" + (behind.size() == 1 ? " " : "s ")
                + String.join(", ", behind.keySet()) + " behind it " + (behind.size() == 1 ? "is" : "are")
                + " unreachable from the engine and the other sites";
    }

    /** One round of the ticker: expired hosts, deadlocks, status polls, dirty records, old runs. */
    void tick() {
        try {
            registry.expire();
            long now = System.currentTimeMillis();
            for (Run run : runs.all()) {
                if (run.state() == RunState.RUNNING && !run.reattaching()) {
                    run.checkDeadlock(now, settings.deadlockGrace().toMillis()).ifPresent(err -> {
                        // ranks blocked on a peer whose host has stopped answering are not deadlocked:
                        // that is a lost host (an infrastructure fault), found by the status polls
                        if (!anyHostSilent(run)) {
                            faults.failed(run, err);
                        }
                    });
                    pollStatus(run, now);
                }
                journal.persistIfChanged(run);
            }
            forgetOldRuns(now);
        } catch (RuntimeException e) {
            LOG.warn("run ticker: {}", Failures.describe(e), e);
        }
    }

    /** Whether a host of the run's current ranks missed its last {@code status} poll or left the registry. */
    private boolean anyHostSilent(Run run) {
        return run.placements().stream().map(RankPlacement::hostId).distinct().anyMatch(h ->
                hostFailures.getOrDefault(h, new AtomicInteger()).get() > 0 || registry.host(h).isEmpty());
    }

    private void forgetOldRuns(long now) {
        List<Run> finished = runs.all().stream().filter(r -> r.state().isFinal()).toList();
        if (finished.size() <= FINISHED_IN_MEMORY) {
            return;
        }
        finished.stream().filter(r -> now - r.endedMs() > FINISHED_MIN_AGE_MS)
                .sorted(java.util.Comparator.comparingLong(Run::endedMs))
                .limit(finished.size() - FINISHED_IN_MEMORY)
                .forEach(r -> {
                    journal.persistIfChanged(r);
                    runs.forget(r.id());
                    polling.remove(r.id());
                    lastPoll.remove(r.id());
                    journal.forget(r.id());
                });
    }

    private void pollStatus(Run run, long now) {
        if (now - lastPoll.getOrDefault(run.id(), 0L) < settings.statusPollInterval().toMillis()) {
            return;
        }
        AtomicBoolean busy = polling.computeIfAbsent(run.id(), k -> new AtomicBoolean());
        if (!busy.compareAndSet(false, true)) {
            return;
        }
        lastPoll.put(run.id(), now);
        workers.submit(() -> {
            try {
                Map<String, Boolean> hostOk = new HashMap<>();
                Run.Domain domain = run.domain();
                for (RankPlacement p : domain.placements()) {
                    if (run.state().isFinal()) {
                        return;
                    }
                    if (Boolean.FALSE.equals(hostOk.get(p.hostId()))) {
                        continue;
                    }
                    if (registry.relays().lostRelayOf(p.hostId()).isPresent()) {
                        // unreachable because its relay is lost (relayLost fails the run, naming the relay): the host
                        // is not to blame, and must not leave the registry for it
                        continue;
                    }
                    try {
                        RankStatus s = invoker.status(p, domain.id(), domain.token());
                        hostOk.put(p.hostId(), true);
                        handle(run, run.applyStatus(domain.id(), p.rank(), s, System.currentTimeMillis()), p.rank(), domain.id());
                    } catch (UnsupportedOperationException e) {
                        return;
                    } catch (Exception e) {
                        hostOk.put(p.hostId(), false);
                        LOG.debug("status of rank {} of run {}: {}", p.rank(), run.id(), Failures.describe(e));
                    }
                }
                hostOk.forEach((host, ok) -> {
                    AtomicInteger failures = hostFailures.computeIfAbsent(host, k -> new AtomicInteger());
                    if (ok) {
                        failures.set(0);
                    } else if (failures.incrementAndGet() >= settings.hostFailureLimit()) {
                        failures.set(0);
                        Optional<HostInfo> h = registry.host(host);
                        if (h.isPresent()) {
                            LOG.warn("service host {} does not answer status; removing it", host);
                            registry.remove(host, HostRegistry.Departure.LOST);
                        } else {
                            domain.placements().stream().filter(p -> p.hostId().equals(host)).findFirst().ifPresent(p ->
                                    lostHosts(run, domain, p, null, "service host " + registry.describe(host) + " does not answer (rank "
                                            + p.rank() + " ran there)"));
                        }
                    }
                });
            } finally {
                busy.set(false);
            }
        });
    }

    // ------------------------------------------------------------------ read queries

    /** See {@link RunService#log}. */
    List<RunStore.StoredEvent> log(String runId, long afterId, int limit) throws UnknownRunException {
        if (detail(runId).isEmpty()) {
            throw new UnknownRunException(runId);
        }
        return store.events(runId, afterId, limit);
    }

    /** See {@link RunService#trace}. */
    Map<String, Object> trace(String runId) throws UnknownRunException {
        JsonNode detail = detail(runId).orElseThrow(() -> new UnknownRunException(runId));
        List<RunStore.StoredEvent> events = new ArrayList<>();
        long after = 0;
        while (events.size() < RunTrace.maxEvents()) {
            List<RunStore.StoredEvent> page = store.events(runId, after, 10_000);
            if (page.isEmpty()) {
                break;
            }
            events.addAll(page);
            after = page.get(page.size() - 1).id();
        }
        return RunTrace.build(detail, events);
    }

    /** A run's detail as the REST API shows it: live if this engine runs it, else as stored. */
    Optional<JsonNode> detail(String runId) {
        Run run = runs.get(runId);
        if (run != null) {
            return Optional.of(RunView.detail(run));
        }
        return store.run(runId).map(RunView::detail);
    }

    /** Runs as the REST API lists them, newest first (live state for this engine's runs, stored otherwise). */
    List<JsonNode> list(String state, int limit) {
        return list(RunQuery.newest(state, limit)).runs();
    }

    /** One page of runs as the REST API lists them, and how many matched in all. */
    RunListing list(RunQuery query) {
        RunStore.RunPage page = store.page(query);
        List<JsonNode> out = new ArrayList<>(page.runs().size());
        for (RunRecord r : page.runs()) {
            Run live = runs.get(r.id());
            out.add(live == null ? RunView.listed(r) : RunView.summary(live));
        }
        return new RunListing(page.total(), out);
    }
}
