package org.mpfl.engine.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.registry.HostRegistry;
import org.mpfl.engine.store.LiveDomainStore;
import org.mpfl.engine.store.RunRecord;
import org.mpfl.engine.store.RunStore;
import org.mpfl.protocol.Endpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-attaches a restarted engine to the runs its predecessor left RUNNING, so that an engine
 * restart (a crash, SIGKILL, an upgrade) does not fail work that goes on correctly on the hosts.
 *
 * <p>What the store keeps is enough: each run's detail (its ranks with process, service, host and
 * service URL, outputs and progress so far, the last event sequence number applied per rank) and,
 * in {@code live_domains}, its domain ID and token — secrets that only ever live in the engine's
 * database, never in a log or the public detail. {@link #adopt} (at start-up, before the API
 * serves, so a host's redelivered events find their run) rebuilds each such run in memory, RUNNING,
 * and marks the rest of the unfinished runs (those still starting) FAILED "engine restarted" as
 * before. {@link #start} then asks every rank for its {@code status} (MPIWS, at the recorded
 * service URL, as the status poller does) until each has answered once:
 * <ul>
 *   <li>an answer is applied like any status answer (state, progress, counters and every output
 *       recorded so far: outputs of ranks that finished while the engine was away are not lost;
 *       a host keeps a finished rank's status for its last 10,000 ranks);</li>
 *   <li>{@code unknown} (the host answers but has no such rank: it restarted) fails the run naming
 *       the host and the rank;</li>
 *   <li>a host that does not answer fails the run naming it once the re-attach grace has passed
 *       since the engine started, or sooner when its port has refused connections for
 *       {@value #REFUSED_FOR_MS} ms (nothing listens there any more: the host process is gone).</li>
 * </ul>
 * While this lasts, rank failures are held back (as during a start-up) and the status poller and
 * deadlock check leave the run alone; once every rank answered, a failure held back fails the run
 * (restarts it, when it is an infrastructure fault by the kind its host said: kept in the stored detail
 * as the rank's {@code fault}), else normal monitoring carries on. Hosts meanwhile come back into the
 * registry by themselves (their heartbeats get 404 and they announce again with their stored
 * credentials); their events,
 * kept while the engine was down, are authenticated by domain ID as always.
 *
 * <p>Bounds: every {@code status} call is bounded by the invoker's timeout, so a run is decided at
 * the latest one call timeout after the grace.
 */
public final class Reattachment {
    private static final Logger LOG = LoggerFactory.getLogger(Reattachment.class);
    /** How long a host's port must refuse connections before its ranks count as gone (before the grace ends). */
    static final long REFUSED_FOR_MS = 3_000;
    private static final long ROUND_MS = 500;

    private final RunService runs;
    private final RunStore store;
    private final LiveDomainStore liveDomains;
    private final RankInvoker invoker;
    private final HostRegistry registry;
    private final Duration grace;
    private final List<Run> adopted = new ArrayList<>();
    private volatile Thread worker;

    /**
     * @param grace how long after {@link #start} a host may take to answer {@code status} again
     */
    public Reattachment(RunService runs, RunStore store, LiveDomainStore liveDomains, RankInvoker invoker, HostRegistry registry,
                        Duration grace) {
        this.runs = runs;
        this.store = store;
        this.liveDomains = liveDomains;
        this.invoker = invoker;
        this.registry = registry;
        this.grace = grace;
    }

    /**
     * Rebuilds the stored RUNNING runs that have a live domain and hands them to the run service;
     * marks every other unfinished run FAILED "engine restarted".
     *
     * @return how many runs were re-attached to
     */
    public int adopt() {
        Map<String, LiveDomainStore.LiveDomain> live = new HashMap<>();
        liveDomains.all().forEach(d -> live.put(d.runId(), d));
        Set<String> ids = new LinkedHashSet<>();
        for (RunRecord stored : store.runs("RUNNING", Integer.MAX_VALUE)) {
            String id = stored.id();
            LiveDomainStore.LiveDomain domain = live.get(id);
            if (domain == null) {
                continue;
            }
            try {
                Optional<Run> run = restore(stored.detail(), domain);
                if (run.isPresent()) {
                    runs.adopt(run.get());
                    adopted.add(run.get());
                    ids.add(id);
                }
            } catch (RuntimeException e) {
                LOG.warn("run {} cannot be re-attached to: {}", id, Failures.describe(e));
            }
        }
        Set<String> kept = new LinkedHashSet<>(ids);
        // runs the run service queued again wait on
        store.runs(RunState.QUEUED.name(), Integer.MAX_VALUE).stream().map(RunRecord::id)
                .filter(id -> runs.live(id).isPresent()).forEach(kept::add);
        int failed = store.failUnfinishedRuns(System.currentTimeMillis(), kept);
        if (failed > 0) {
            LOG.info("{} run(s) left starting by the previous engine marked FAILED (engine restarted)", failed);
        }
        if (!ids.isEmpty()) {
            LOG.info("re-attaching to {} run(s) left running by the previous engine: {}", ids.size(), ids);
        }
        return ids.size();
    }

    /** A stored RUNNING run as a live run object, or empty when its detail lacks what monitoring needs. */
    static Optional<Run> restore(JsonNode d, LiveDomainStore.LiveDomain domain) {
        JsonNode ranks = d.path("ranks");
        if (!ranks.isArray() || ranks.isEmpty()) {
            return Optional.empty();
        }
        List<RankPlacement> placements = new ArrayList<>();
        for (int i = 0; i < ranks.size(); i++) {
            JsonNode r = ranks.get(i);
            String url = r.path("endpoint").asText(null);
            if (r.path("rank").asInt(-1) != i || url == null || url.isBlank()) {
                return Optional.empty();
            }
            String host = r.path("host").asText("");
            placements.add(new RankPlacement(i, r.path("process").asText(""), r.path("service").asText(""), host,
                    new Endpoint(url, null, host, r.path("site").asText(null))));
        }
        Run run = stored(d, domain.domainId(), domain.token());
        List<RankView> views = run.reattached(placements, d.path("startedMs").asLong(0), d.path("startedMs").asLong(0)
                + d.path("startupMs").asLong(0), d.path("attempts").asInt(1), hostFaults(d));
        for (int i = 0; i < views.size(); i++) {
            restoreRank(views.get(i), ranks.get(i));
        }
        run.restoredSequences();
        // its restarts left, attempt log (the attempt's startMs stays when it started) and checkpoints go on
        run.history().restore(d);
        return Optional.of(run);
    }

    /** A run object for a stored run detail, under the given domain: id, workflow (and version), parameters, created. */
    static Run stored(JsonNode d, String domainId, String token) {
        Map<String, Object> params = d.path("params").isObject() ? Json.MAPPER.convertValue(d.get("params"),
                Json.MAPPER.getTypeFactory().constructMapType(LinkedHashMap.class, String.class, Object.class)) : Map.of();
        Run run = new Run(d.path("id").asText(), d.path("workflow").asText(null), domainId, token, Map.copyOf(params),
                d.path("createdMs").asLong());
        run.workflowVersion(d.path("workflowVersion").isInt() ? d.get("workflowVersion").asInt() : null);
        return run;
    }

    /** The stored detail's {@code hostFaults}. */
    static List<Map<String, Object>> hostFaults(JsonNode d) {
        List<Map<String, Object>> faults = new ArrayList<>();
        d.path("hostFaults").forEach(f -> faults.add(Json.MAPPER.convertValue(f,
                Json.MAPPER.getTypeFactory().constructMapType(LinkedHashMap.class, String.class, Object.class))));
        return faults;
    }

    /** Copies a rank's stored view back (before the run is shared: no lock needed). */
    private static void restoreRank(RankView v, JsonNode r) {
        v.state = r.path("state").asText("PENDING");
        v.activity = r.path("activity").asText(null);
        v.location = r.path("location").asText(null);
        v.blocked = r.path("blocked").asBoolean(false);
        v.waitingFor = r.path("waitingFor").asText(null);
        v.progressValue = r.at("/progress/value").asDouble(0);
        v.progressTotal = r.at("/progress/total").asDouble(0);
        v.progressFromCheckpoint = r.path("progressFromCheckpoint").isNumber() ? r.path("progressFromCheckpoint").asLong() : null;
        v.startedMs = r.path("startedMs").asLong(0);
        v.endedMs = r.path("endedMs").asLong(0);
        v.lastSeenMs = r.path("lastSeenMs").asLong(0);
        v.lost = r.path("lost").asBoolean(false);
        v.error = r.path("error").asText(null);
        v.fault = RankView.faultKind(r.path("fault").asText(null));
        v.maxSeq = r.path("lastSeq").asLong(-1);
        r.path("outputs").fields().forEachRemaining(e -> v.outputs.put(e.getKey(),
                Json.MAPPER.convertValue(e.getValue(), Object.class)));
        List<Map<String, Object>> kept = new ArrayList<>();
        r.path("logs").forEach(l -> kept.add(Json.MAPPER.convertValue(l,
                Json.MAPPER.getTypeFactory().constructMapType(LinkedHashMap.class, String.class, Object.class))));
        v.logs.restore(kept, r.path("logCount").asLong(kept.size()));
        r.path("sentTo").fields().forEachRemaining(e -> v.sentTo.put(Integer.valueOf(e.getKey()), e.getValue().asLong()));
        r.path("bytesTo").fields().forEachRemaining(e -> v.bytesTo.put(Integer.valueOf(e.getKey()), e.getValue().asLong()));
    }

    /** Confirms the adopted runs' ranks in the background (bounded by the grace); returns at once. */
    public void start() {
        if (adopted.isEmpty()) {
            return;
        }
        Thread t = new Thread(this::confirmAll, "mpfl-reattach");
        t.setDaemon(true);
        worker = t;
        t.start();
    }

    /** Stops confirming (the engine closes). */
    public void stop() {
        Thread t = worker;
        if (t != null) {
            t.interrupt();
        }
    }

    private void confirmAll() {
        long t0 = System.currentTimeMillis();
        long deadline = t0 + grace.toMillis();
        Map<Run, Set<Integer>> pending = new LinkedHashMap<>();
        for (Run run : adopted) {
            Set<Integer> all = new TreeSet<>();
            run.placements().forEach(p -> all.add(p.rank()));
            pending.put(run, all);
            runs.record(run, null, "placement", note(run, "re-attaching after an engine restart: asking its "
                    + all.size() + " rank(s) for their state (grace " + grace.toSeconds() + " s)"));
        }
        // per host: since when its port refuses connections (continuously), and the last failure
        Map<String, Long> refusedSince = new HashMap<>();
        Map<String, String> lastFailure = new HashMap<>();
        while (!pending.isEmpty() && !Thread.currentThread().isInterrupted()) {
            long now = System.currentTimeMillis();
            for (var it = pending.entrySet().iterator(); it.hasNext();) {
                var entry = it.next();
                Run run = entry.getKey();
                if (run.state().isFinal()) {
                    endedWhileAsking(run);
                    it.remove();
                } else if (confirm(run, entry.getValue(), refusedSince, lastFailure, now, deadline)) {
                    it.remove();
                }
            }
            try {
                Thread.sleep(ROUND_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * One round of {@code status} calls for a run's unconfirmed ranks.
     *
     * @return whether the run is decided (every rank confirmed, or failed)
     */
    private boolean confirm(Run run, Set<Integer> unconfirmed, Map<String, Long> refusedSince,
                            Map<String, String> lastFailure, long now, long deadline) {
        List<RankPlacement> placements = run.placements();
        Map<String, Boolean> hostOk = new HashMap<>();
        for (var it = unconfirmed.iterator(); it.hasNext();) {
            RankPlacement p = placements.get(it.next());
            if (Boolean.FALSE.equals(hostOk.get(p.hostId()))) {
                continue;
            }
            try {
                Run.Domain domain = run.domain();
                RankStatus s = invoker.status(p, domain.id(), domain.token());
                hostOk.put(p.hostId(), true);
                refusedSince.remove(p.hostId());
                if (s == null || s.state() == null || s.state().equalsIgnoreCase("UNKNOWN")) {
                    // an infrastructure fault (the rank was lost with its host's process): a restart while restarts are
                    // left; the host that answers is a new process, not one to keep out
                    runs.infrastructureFault(run, Map.of(), new RunError(p.rank(), p.endpoint().soapUrl(), "rank " + p.rank()
                            + " is unknown to service host "
                            + p.hostId() + " at " + p.endpoint().soapUrl() + " after the engine restarted: the host lost it "
                            + "(it restarted or gave the rank up) while the engine was away"));
                    return true;
                }
                runs.applyStatus(run, p.rank(), s);
                it.remove();
            } catch (UnsupportedOperationException e) {
                it.remove(); // an invoker without status: events alone will tell
            } catch (Exception e) {
                hostOk.put(p.hostId(), false);
                lastFailure.put(p.hostId(), Failures.describe(e));
                if (refused(e)) {
                    refusedSince.putIfAbsent(p.hostId(), now);
                } else {
                    refusedSince.remove(p.hostId());
                }
            }
            // a run that ended on its last rank's answer was still re-attached to: say so below
            if (run.state().isFinal() && !unconfirmed.isEmpty()) {
                endedWhileAsking(run);
                return true;
            }
        }
        if (unconfirmed.isEmpty()) {
            Optional<Run.HeldBack> heldBack = run.endReattach();
            if (heldBack.isPresent()) {
                runs.heldBack(run, heldBack.get());
            } else {
                runs.record(run, null, "placement", note(run, "re-attached: every rank answered after the engine restart"));
                LOG.info("run {} ({}): re-attached to its {} rank(s)", run.id(), run.workflow(), placements.size());
            }
            runs.persist(run);
            return true;
        }
        for (Integer rank : unconfirmed) {
            RankPlacement p = placements.get(rank);
            Long refused = refusedSince.get(p.hostId());
            boolean gone = refused != null && now - refused >= REFUSED_FOR_MS;
            if (gone || System.currentTimeMillis() >= deadline) {
                boolean announced = registry.host(p.hostId()).isPresent();
                // the process the run's ranks ran in is gone (or cut off): any process of that host announced later is
                // another one, so the host is not kept out of a restart for ever
                runs.infrastructureFault(run, Map.of(p.hostId(), FaultyHosts.GONE), new RunError(p.rank(), p.endpoint().soapUrl(),
                        "service host " + p.hostId() + " at "
                        + p.endpoint().soapUrl() + " was lost while the engine was away (rank " + p.rank() + " ran there): "
                        + (gone ? "its port refuses connections" : "no status answer within the re-attach grace of "
                        + grace.toSeconds() + " s") + (announced ? "" : ", and it has not announced itself again")
                        + " (" + lastFailure.getOrDefault(p.hostId(), "no answer") + ")"));
                return true;
            }
        }
        return false;
    }

    /**
     * The run ended (its ranks' kept events, or a user) before every rank answered: the log closes the re-attachment
     * it opened, rather than leaving "re-attaching …" without an end.
     */
    private void endedWhileAsking(Run run) {
        runs.record(run, null, "placement", note(run, "re-attach over: the run ended " + run.state()
                + " while the engine still asked its ranks for their state"));
        LOG.info("run {} ({}): ended {} while re-attaching", run.id(), run.workflow(), run.state());
    }

    /** A refused connection (nothing listens there), as opposed to a timeout (the host may be slow or cut off). */
    private static boolean refused(Throwable e) {
        boolean connect = false;
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof java.net.http.HttpTimeoutException || t instanceof java.net.SocketTimeoutException) {
                return false; // a connect timeout carries a ConnectException as its cause
            }
            connect |= t instanceof ConnectException;
        }
        return connect;
    }

    private static Map<String, Object> note(Run run, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("action", "re-attach");
        body.put("hosts", new ArrayList<>(run.hostUrls().keySet()));
        body.put("message", message);
        body.put("timeMs", System.currentTimeMillis());
        return body;
    }
}
