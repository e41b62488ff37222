package org.mpfl.engine.run;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import java.util.TreeMap;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.store.RunRecord;
import org.mpfl.protocol.FaultKind;
import org.mpfl.protocol.RankEvent;

/**
 * The live state of one run: its ranks, their progress, outputs and counters, and the run's own
 * state. All methods are thread-safe (one lock per run); events may arrive from many HTTP threads,
 * the status poller and the deadlock detector at once.
 *
 * <p>A run may need more than one start attempt: when a host refuses a deployment or {@code run},
 * or does not answer in time, the engine places the ranks again on other hosts under a new domain
 * (ID and token), so that no domain ever has ranks of two placements. Events of an earlier domain
 * are foreign to the run from then on. While an attempt starts, rank failures are held back: if the
 * attempt is given up they were consequences of a half-started domain; if every rank accepted
 * {@code run}, {@link #endStartup} reports them: a workflow fault fails the run, an infrastructure fault
 * restarts it while restarts are left, as after the start-up ({@link RestartPolicy}).
 */
// Over 600 lines on purpose: everything that changes with one run (ranks, attempts, its queue place,
// re-attachment) changes under this one lock; split into several objects it would need a lock protocol.
public final class Run {
    private final String id;
    private final String workflow;
    private String domainId;
    private String token;
    private final Map<String, Object> params;
    private final long createdMs;
    private final DeadlockDetector deadlockDetector = new DeadlockDetector();
    /**
     * Held while the record is taken and saved ({@link RunJournal#persist}): threads that change the run
     * at once (a rank's DONE racing the placement's RUNNING) then save in the order they took the record,
     * so an older record never overwrites a newer one. Not the run's monitor: a slow store must not hold
     * up rank events.
     */
    private final Object saveOrder = new Object();
    private final List<RankView> ranks = new ArrayList<>();
    private RunState state = RunState.PENDING;
    private long startedMs;
    private long allRunningMs;
    private long endedMs;
    private RunError error;
    private boolean dirty = true;
    /** Whether the current attempt is still starting (not every rank has accepted {@code run} yet). */
    private boolean starting;
    private int attempts;
    private final List<Map<String, Object>> hostFaults = new ArrayList<>();
    /** How the current attempt's sites were chosen ({@code {sites, reason}}), or {@code null}: one site, nothing asked. */
    private Map<String, Object> sitePlan;
    /** How each pair of the run's hosts connects ({@code Relays#connections}), or null when on one host. */
    private List<Map<String, Object>> connections;
    /** The stored workflow version it runs, or {@code null} for a plan or document sent with the run. */
    private Integer workflowVersion;
    /** Restarts, attempt log, checkpoints and outputs carried over between attempts (see {@link RunAttempts}). */
    private final RunAttempts history = new RunAttempts();
    /** Domains this run gave up (a restart, a resume), newest last, while their ranks' last log lines are still taken. */
    private final java.util.ArrayDeque<GivenUpDomain> givenUp = new java.util.ArrayDeque<>();

    Run(String id, String workflow, String domainId, String token, Map<String, Object> params, long createdMs) {
        this.id = id;
        this.workflow = workflow;
        this.domainId = domainId;
        this.token = token;
        this.params = params;
        this.createdMs = createdMs;
    }

    public String id() {
        return id;
    }

    public String workflow() {
        return workflow;
    }

    /** When the engine accepted it (epoch milliseconds): its place in the run queue among equal priorities. */
    long createdMs() {
        return createdMs;
    }

    /** The stored workflow version it runs, or {@code null} for a plan or document sent with the run. */
    public synchronized Integer workflowVersion() {
        return workflowVersion;
    }

    synchronized void workflowVersion(Integer version) {
        this.workflowVersion = version;
    }

    synchronized String domainId() {
        return domainId;
    }

    synchronized String token() {
        return token;
    }

    /** The domain of one start attempt: what aborting it, and reading its ranks' outputs, need. */
    record Domain(String id, String token, List<RankPlacement> placements) {
    }

    /** How long the ranks of a domain given up may still post their last log lines (they post them while aborted). */
    static final long LATE_LOG_MS = 60_000;
    private static final int GIVEN_UP_KEPT = 4;

    /** A domain the run gave up at {@code sinceMs}: its token still proves its ranks' late log lines. */
    record GivenUpDomain(String id, String token, long sinceMs, Set<Long> lateLinesTaken) {
        GivenUpDomain(String id, String token, long sinceMs) {
            this(id, token, sinceMs, new java.util.HashSet<>());
        }
    }

    /**
     * The token of {@code domainId} if the run gave that domain up less than {@link #LATE_LOG_MS} ago: the old
     * domain's ranks post their last log lines while they are aborted, and those belong to the run's record.
     */
    synchronized Optional<String> givenUpToken(String id, long nowMs) {
        return givenUp.stream().filter(d -> CheckpointIntake.sameDomain(d.id(), id) && nowMs - d.sinceMs() < LATE_LOG_MS)
                .map(GivenUpDomain::token).findFirst();
    }

    /**
     * Whether a late log line of a given-up domain ({@link #givenUpToken}) is new: a host that sends a batch again
     * (its post timed out after the engine took it) must not put its lines in the run's log twice.
     */
    synchronized boolean takeLateLine(String id, int rank, long seq) {
        return givenUp.stream().filter(d -> d.id().equals(id)).findFirst()
                .map(d -> d.lateLinesTaken().add(((long) rank << 40) ^ seq)).orElse(false);
    }

    /** The current attempt's domain. */
    synchronized Domain domain() {
        return new Domain(domainId, token, placements());
    }

    /**
     * Gives up the current attempt: from now on the run has a new domain and no ranks until it is
     * {@linkplain #placed placed} again; events of the old domain are {@linkplain Outcome#FOREIGN foreign}.
     *
     * @return the domain given up (to abort)
     */
    synchronized Domain newDomain(String newDomainId, String newToken) {
        Domain old = domain();
        givenUp.addLast(new GivenUpDomain(domainId, token, System.currentTimeMillis()));
        while (givenUp.size() > GIVEN_UP_KEPT) {
            givenUp.removeFirst();
        }
        history.keepOutputs(ranks);
        history.ended("INTERRUPTED", null, System.currentTimeMillis());
        domainId = newDomainId;
        token = newToken;
        ranks.clear();
        // a new attempt's ranks number their events from 0 again, and are not being re-attached to
        reattaching = false;
        restoredSeq = new long[0];
        dirty = true;
        return old;
    }

    /**
     * Records a host fault of a start attempt (also kept in the run's detail as {@code hostFaults}).
     *
     * @param fault what happened: host, why, until when it is quarantined, what the engine did
     */
    synchronized void hostFault(Map<String, Object> fault) {
        Map<String, Object> f = new LinkedHashMap<>(fault);
        f.put("attempt", attempts);
        hostFaults.add(f);
        dirty = true;
    }

    /** How many start attempts the run has made (placements tried). */
    synchronized int attempts() {
        return attempts;
    }

    /**
     * A rank failure held back while an attempt started (or while the run was re-attached to).
     *
     * @param error          the failure
     * @param infrastructure whether it is an infrastructure fault ({@link RestartPolicy}): no rank failed in the
     *                       workflow, and a rank failed with a fault its host said is the infrastructure's, or every
     *                       rank was aborted without any reporting a cause
     * @param domainId       the domain it happened in (a restart after it is stale once the run moved on)
     */
    record HeldBack(RunError error, boolean infrastructure, String domainId) {
    }

    /**
     * Ends the start-up of the current attempt (every rank accepted {@code run}): rank failures are
     * no longer held back. A workflow failure wins over an infrastructure one, as after the start-up.
     *
     * @return the failure of a rank held back during start-up, if any
     */
    synchronized Optional<HeldBack> endStartup() {
        starting = false;
        Optional<RunError> own = workflowFailure(RestartPolicy::infrastructure);
        if (own.isPresent()) {
            return Optional.of(new HeldBack(own.get(), false, domainId));
        }
        Optional<RunError> lost = firstFailedRank().map(this::rankError);
        if (lost.isEmpty() && !ranks.isEmpty() && ranks.stream().allMatch(RankView::isFinal)
                && ranks.stream().anyMatch(r -> r.state.equals("ABORTED"))) {
            // aborted while starting and nobody reported a cause (the ALL_ABORTED outcome was held back): aborted from
            // outside the workflow, as after the start-up
            lost = Optional.of(new RunError(null, null, "domain aborted"));
        }
        return lost.map(e -> new HeldBack(e, true, domainId));
    }

    Map<String, Object> params() {
        return params;
    }

    public synchronized RunState state() {
        return state;
    }

    synchronized long endedMs() {
        return endedMs;
    }

    public synchronized RunError error() {
        return error;
    }

    /** Starts an attempt with these placements (the ranks of the current domain); returns that attempt's domain. */
    synchronized Domain placed(List<RankPlacement> placements) {
        return placed(placements, null);
    }

    /**
     * Starts an attempt with these placements and says how their sites were chosen.
     *
     * @param sitePlan the detail's {@code placement} ({@code {sites, reason}}), or {@code null} when there was no choice
     * @return the attempt's domain, taken under the run's lock: the domain these ranks are started under, even when a
     *         restart gives the run another one before they are
     */
    synchronized Domain placed(List<RankPlacement> placements, Map<String, Object> sitePlan) {
        this.sitePlan = sitePlan == null ? null : new LinkedHashMap<>(sitePlan);
        ranks.clear();
        placements.forEach(p -> ranks.add(new RankView(p)));
        starting = true;
        attempts++;
        history.placed(attempts, ranks, System.currentTimeMillis());
        dirty = true;
        return domain();
    }

    /** Whether {@code attemptDomain} is still the run's current domain (no restart or re-placement gave it up). */
    synchronized boolean current(String attemptDomain) {
        return domainId.equals(attemptDomain);
    }

    /**
     * Gives up the attempt under {@code attemptDomain} for a new domain ({@link #newDomain}), unless that attempt was
     * given up already: a host lost while its ranks were being started restarts the run from the lifecycle while the
     * attempt's fan-out still waits, and the attempt, seeing its host faults afterwards, must not give up the
     * restart's domain in turn (the ranks would be placed a third time, beside the restart's).
     *
     * @return the domain given up (to abort), or empty when the run had moved on to another domain
     */
    synchronized Optional<Domain> newDomainAfter(String attemptDomain, String newDomainId, String newToken) {
        return current(attemptDomain) ? Optional.of(newDomain(newDomainId, newToken)) : Optional.empty();
    }

    /**
     * How an attempt's start-up ended for the run, once every rank of it accepted {@code run}.
     *
     * @param heldBack the failure of a rank held back during the start-up, or {@code null}
     */
    record StartupEnd(HeldBack heldBack) {
    }

    /**
     * Ends the start-up of the attempt under {@code attemptDomain} ({@link #endStartup}) if it is still the current
     * one; an attempt given up meanwhile (a restart took over) leaves the start-up of its successor alone.
     *
     * @return empty when the run had moved on to another domain
     */
    synchronized Optional<StartupEnd> endStartupOf(String attemptDomain) {
        return current(attemptDomain) ? Optional.of(new StartupEnd(endStartup().orElse(null))) : Optional.empty();
    }

    /** Records how each pair of the attempt's hosts connects (shown in the detail as {@code connections}). */
    synchronized void connections(List<Map<String, Object>> methods) {
        this.connections = methods.isEmpty() ? null : List.copyOf(methods);
        dirty = true;
    }

    /** The run's restarts, attempts and checkpoints (guarded by this run's lock). */
    RunAttempts history() {
        return history;
    }

    /** What to do about an infrastructure fault of a domain. */
    enum Decision { STALE, FAIL, RESTART }

    /**
     * @param decision what to do
     * @param old      the domain given up (to abort) when restarting
     */
    record RestartDecision(Decision decision, Domain old) {
    }

    /**
     * Decides, once per domain, what an infrastructure fault of domain {@code faultDomain} does: nothing
     * when the run ended or has moved on to another domain (the fault is stale), a restart under a
     * new domain while restarts are left, a failure otherwise.
     */
    synchronized RestartDecision restartOrFail(String faultDomain, String newDomainId, String newToken) {
        if (state.isFinal() || !domainId.equals(faultDomain)) {
            return new RestartDecision(Decision.STALE, null);
        }
        if (!history.takeRestart()) {
            return new RestartDecision(Decision.FAIL, null);
        }
        return new RestartDecision(Decision.RESTART, newDomain(newDomainId, newToken));
    }

    /**
     * Opens a FAILED or CANCELLED run again for a new attempt under a new domain (its old domain was
     * aborted when it ended).
     *
     * @throws IllegalStateException when the run is in another state
     */
    synchronized void reopen(String newDomainId, String newToken) {
        if (state != RunState.FAILED && state != RunState.CANCELLED) {
            throw new IllegalStateException("run " + id + " is " + state + "; only a FAILED or CANCELLED run can be resumed");
        }
        newDomain(newDomainId, newToken);
        state = RunState.PENDING;
        error = null;
        endedMs = 0;
        dirty = true;
    }

    /** Marks the run changed (to be persisted by the ticker). */
    synchronized void touch() {
        dirty = true;
    }

    /** The first failure of a rank that is not an infrastructure fault (by the kind its host said), if any. */
    synchronized Optional<RunError> workflowFailure(java.util.function.Predicate<FaultKind> infrastructure) {
        return ranks.stream().filter(r -> r.state.equals("FAILED") && !infrastructure.test(r.fault))
                .min(java.util.Comparator.comparingLong(r -> r.endedMs)).map(r -> rankError(r.placement.rank()));
    }

    synchronized List<RankPlacement> placements() {
        return ranks.stream().map(r -> r.placement).toList();
    }

    /**
     * PENDING → RUNNING (unless it already ended).
     *
     * @param allAccepted whether this is the fan-out reporting that every rank accepted {@code run}
     *                    (the end of the start-up time); a rank may report DONE before that
     */
    synchronized boolean markRunning(long nowMs, boolean allAccepted) {
        if (allAccepted && allRunningMs == 0) {
            allRunningMs = nowMs;
            dirty = true;
        }
        if (state == RunState.PENDING) {
            state = RunState.RUNNING;
            dirty = true;
            return true;
        }
        return false;
    }

    /** Why and where the run waits while QUEUED, else {@code null}. */
    private QueuePlace queue;

    /**
     * PENDING (or, waiting for a restart, RUNNING) → QUEUED, or a QUEUED run's place updated.
     *
     * @return whether the state changed (a state event is due)
     */
    synchronized boolean markQueued(QueuePlace place) {
        if (state.isFinal()) {
            return false;
        }
        boolean changed = state != RunState.QUEUED;
        dirty |= !place.equals(queue);
        queue = place;
        state = RunState.QUEUED;
        return changed;
    }

    /** A QUEUED run got its places: PENDING again (a run waiting for a restart was not QUEUED unless it had to wait). */
    synchronized boolean leaveQueue() {
        boolean wasQueued = state == RunState.QUEUED;
        if (wasQueued) {
            state = RunState.PENDING;
            queue = null;
            dirty = true;
        }
        return wasQueued;
    }

    /** The queue's reason while QUEUED, else {@code null}. */
    synchronized String queueReason() {
        return queue == null ? null : queue.reason();
    }

    synchronized void markStarting(long nowMs) {
        startedMs = nowMs;
        // the start-up is the current attempt's: an earlier attempt's moment of all ranks running
        // would make startupMs negative (seen as -17873 ms on a resumed run)
        allRunningMs = 0;
        dirty = true;
    }

    /** Moves to a final state once; {@code false} if the run had already ended. */
    synchronized boolean finish(RunState finalState, RunError cause, long nowMs) {
        if (state.isFinal()) {
            return false;
        }
        state = finalState;
        error = cause;
        endedMs = nowMs;
        history.ended(finalState.name(), cause == null ? null : cause.message(), nowMs);
        queue = null;
        dirty = true;
        return true;
    }

    /**
     * What applying an event changed at run level ({@code FOREIGN}: the event is of another domain;
     * {@code DUPLICATE}: the rank's event of that sequence number was applied before, by this engine or,
     * up to the stored {@code lastSeq}, by the one before a restart: it is not recorded again).
     */
    enum Outcome { NONE, ALL_DONE, RANK_FAILED, ALL_ABORTED, FOREIGN, RANK_LOST, DUPLICATE }

    /**
     * Applies one rank event (duplicates by sequence number are ignored).
     *
     * @return whether the run as a whole is now complete or failed
     */
    synchronized Outcome apply(RankEvent e) {
        if (!domainId.equals(e.domainId())) {
            // checked under the lock: an event of a domain given up a moment ago must not reach the new ranks
            return Outcome.FOREIGN;
        }
        if (e.rank() < 0 || e.rank() >= ranks.size()) {
            return Outcome.NONE;
        }
        RankView r = ranks.get(e.rank());
        if (reattachedSeqBound(r, e.seq()) || !r.seenSeq.add(e.seq())) {
            return Outcome.DUPLICATE;
        }
        r.maxSeq = Math.max(r.maxSeq, e.seq());
        dirty = true;
        r.lastEventMs = e.timeMs();
        r.seen(e.timeMs());
        switch (e.type()) {
            case STATE -> {
                return applyState(r, e.state(), e.activity(), e.location(), e.message(), e.fault(), e.timeMs());
            }
            case ACTIVITY, WAIT -> {
                RankPosition p = new RankPosition(r.activity, r.location, r.blocked, r.waitingFor).after(e);
                r.activity = p.activity();
                r.location = p.location();
                r.blocked = p.blocked();
                r.waitingFor = p.waitingFor();
                if (e.type() == RankEvent.Type.ACTIVITY && r.state.equals("PENDING")) {
                    r.state = "RUNNING";
                }
            }
            case LOG -> {
                r.logs.add(e.timeMs(), e.level(), e.message());
            }
            case PROGRESS -> {
                if (e.value() instanceof Map<?, ?> m) {
                    r.progressValue = RankView.number(m.get("value"), r.progressValue);
                    r.progressTotal = RankView.number(m.get("total"), r.progressTotal);
                    r.progressFromCheckpoint = null;
                }
            }
            case OUTPUT -> r.outputs.put(e.name(), e.value());
            case COUNTERS -> r.applyCounters(e.value());
            case CHECKPOINT -> history.rankReport(e.rank(), e.value(), e.message(), r.progressValue, r.progressTotal);
            default -> { }
        }
        return Outcome.NONE;
    }

    /**
     * Applies a {@code status} answer of domain {@code domain} the same way as events; a rank that its
     * host no longer knows ({@code unknown}) while it runs is {@linkplain Outcome#RANK_LOST lost}.
     */
    synchronized Outcome applyStatus(String domain, int rank, RankStatus s, long nowMs) {
        if (!domainId.equals(domain) || rank < 0 || rank >= ranks.size() || s == null) {
            return Outcome.NONE;
        }
        RankView r = ranks.get(rank);
        if ("UNKNOWN".equalsIgnoreCase(s.state()) && !starting && !r.isFinal() && state == RunState.RUNNING) {
            // every rank accepted run and its host keeps finished ranks: it was killed or its host restarted
            return Outcome.RANK_LOST;
        }
        dirty = true;
        if (!"UNKNOWN".equalsIgnoreCase(s.state())) {
            r.seen(nowMs);
        }
        if (s.progressTotal() != null && s.progressTotal() > 0) {
            r.progressTotal = s.progressTotal();
            r.progressValue = s.progressValue() != null ? s.progressValue() : r.progressValue;
            r.progressFromCheckpoint = null;
        } else if (r.progressFromCheckpoint == null) {
            // nothing reported yet by this attempt's rank: a checkpoint's progress it resumed from stays until it does
            if (s.progressValue() != null) {
                r.progressValue = s.progressValue();
            }
            if (s.progressTotal() != null) {
                r.progressTotal = s.progressTotal();
            }
        }
        if (s.counters() != null) {
            r.applyCounters(s.counters());
        }
        if (s.outputs() != null) {
            // status carries every output recorded so far; events may have been dropped on the way
            s.outputs().forEach(r.outputs::putIfAbsent);
        }
        if (s.state() != null && !s.state().equalsIgnoreCase("UNKNOWN") && !s.state().equalsIgnoreCase(r.state)) {
            String newState = s.state().toUpperCase(java.util.Locale.ROOT);
            if (newState.equals("FAILED") && r.statusFailedSinceMs == 0) {
                // the rank's own FAILED event carries the activity and source location; give it one
                // poll interval to arrive before failing the run from status alone
                r.statusFailedSinceMs = nowMs;
                return Outcome.NONE;
            }
            return applyState(r, newState, null, null, s.message(), s.fault(), nowMs);
        }
        return Outcome.NONE;
    }

    private Outcome applyState(RankView r, String newState, String activity, String location, String message, FaultKind fault,
                               long t) {
        if (newState == null || r.isFinal()) {
            return Outcome.NONE;
        }
        if (newState.equals("FAILED") && message != null && message.startsWith("DomainAbortedException")) {
            // a consequence of an abort (another rank's fault, a cancel), not a cause: the rank that
            // caused it reports its own failure, which may arrive later than this one
            newState = "ABORTED";
        }
        r.state = newState;
        switch (newState) {
            case "RUNNING" -> r.startedMs = r.startedMs == 0 ? t : r.startedMs;
            case "DONE" -> {
                r.endedMs = t;
                r.blocked = false;
                // progressValue stays as last reported: a loop that converged early ends below its total
                return ranks.stream().allMatch(x -> x.state.equals("DONE")) ? Outcome.ALL_DONE : Outcome.NONE;
            }
            case "FAILED" -> {
                r.endedMs = t;
                r.blocked = false;
                r.error = message == null ? "failed" : message;
                r.fault = fault;
                if (activity != null) {
                    r.activity = activity;
                }
                if (location != null) {
                    r.location = location;
                }
                return starting ? Outcome.NONE : Outcome.RANK_FAILED;
            }
            case "ABORTED" -> {
                r.endedMs = t;
                r.blocked = false;
                r.error = message;
                if (!starting && ranks.stream().allMatch(RankView::isFinal) && ranks.stream().noneMatch(x -> x.state.equals("FAILED"))) {
                    // every rank ended and nobody reported a cause: the abort itself is the failure. A rank that
                    // FAILED is the cause, decided by its own outcome: the abort it caused must not race it (at load
                    // the abort's settling won, and a SIGKILLed kernel worker's restart read "DomainAbortedException")
                    return Outcome.ALL_ABORTED;
                }
            }
            default -> { }
        }
        return Outcome.NONE;
    }

    /**
     * The run ended and the abort of domain {@code domain} could not reach {@code hosts}: their ranks that had not
     * ended read ABORTED, rather than RUNNING in an ended run, ending when they were last heard of (a lost host never
     * reports their end).
     */
    synchronized void ranksLost(String domain, Set<String> hosts) {
        if (!state.isFinal() || !domainId.equals(domain) || hosts.isEmpty()) {
            return;
        }
        for (RankView r : ranks) {
            if (!r.isFinal() && hosts.contains(r.placement.hostId())) {
                r.lostWithHost();
                dirty = true;
            }
        }
    }

    /** The error describing rank {@code rank}'s failure. */
    synchronized RunError rankError(int rank) {
        RankView r = ranks.get(rank);
        return new RunError(rank, r.location, r.error);
    }

    /** Whose fault rank {@code rank}'s failure is, as its host said ({@code null}: not said, or the rank did not fail). */
    synchronized FaultKind rankFault(int rank) {
        return ranks.get(rank).fault;
    }

    /** The first failed rank (by end time), if any. */
    synchronized Optional<Integer> firstFailedRank() {
        return ranks.stream().filter(r -> r.state.equals("FAILED"))
                .min(java.util.Comparator.comparingLong(r -> r.endedMs)).map(r -> r.placement.rank());
    }

    /** Runs the deadlock check once; a report means the run must fail. */
    synchronized Optional<RunError> checkDeadlock(long nowMs, long graceMs) {
        if (state != RunState.RUNNING) {
            return Optional.empty();
        }
        List<DeadlockDetector.Wait> waits = ranks.stream().map(r -> new DeadlockDetector.Wait(
                r.placement.rank(), !r.isFinal(), r.blocked, r.waitingFor, r.location, r.messagesSent(), r.traffic())).toList();
        return deadlockDetector.check(waits, nowMs, graceMs);
    }

    synchronized boolean takeDirty() {
        boolean d = dirty;
        dirty = false;
        return d;
    }

    /** Outputs as {@code {name: {rank: value}}}. */
    synchronized Map<String, Map<String, Object>> outputs() {
        Map<String, Map<String, Object>> out = new TreeMap<>();
        for (RankView r : ranks) {
            r.outputs.forEach((k, v) -> out.computeIfAbsent(k, x -> new TreeMap<>(java.util.Comparator.comparingInt(Integer::parseInt)))
                    .put(String.valueOf(r.placement.rank()), v));
        }
        return out;
    }

    /** What {@link RunJournal#persist} holds while it takes and saves the record. */
    Object saveOrder() {
        return saveOrder;
    }

    /**
     * The run as the store keeps it: its columns and its detail document (the summary, params, ranks,
     * outputs, message matrix, attempts, host faults, restarts and checkpoints). What the REST API
     * answers is built from it by {@link RunView}.
     */
    public synchronized RunRecord record() {
        return new RunRecord(id, workflow, state.name(), createdMs, Json.MAPPER.valueToTree(detail()));
    }

    private Map<String, Object> detail() {
        Map<String, Object> m = summaryCore();
        m.put("params", params);
        m.put("ranks", ranks.stream().map(RankView::toJson).toList());
        m.put("outputs", outputs());
        m.put("matrix", RankView.matrix(ranks));
        Map<String, Object> siteTraffic = RankView.siteTraffic(ranks);
        if (siteTraffic != null) {
            m.put("siteTraffic", siteTraffic);
        }
        m.put("attempts", attempts);
        m.put("hostFaults", hostFaults.stream().map(LinkedHashMap::new).toList());
        if (sitePlan != null) {
            m.put("placement", new LinkedHashMap<>(sitePlan));
        }
        if (connections != null) {
            m.put("connections", connections);
        }
        history.toJson(m);
        m.put("resumed", history.resumed());
        m.put("progressFromCheckpoint", progressFromCheckpoint());
        return m;
    }

    /**
     * Why the run's ABORTED ranks stopped, in neutral words: such a rank did nothing wrong; the run was cancelled, a
     * deadlock was found, another rank failed. (The rank's own message is the runtime's, {@code DomainAbortedException:
     * … aborted by request}, since an abort over the wire carries no reason.) In the run's summary, so that the CLI's
     * {@code status} and the console, live or not, say it the same way.
     */
    private String abortedBecause() {
        String message = error == null || error.message() == null ? "" : error.message();
        if (state == RunState.CANCELLED) {
            return "run cancelled";
        }
        if (message.startsWith("deadlock")) {
            return "deadlock detected";
        }
        if (message.startsWith("stalled")) {
            return "run stalled";
        }
        if (error != null && error.rank() != null) {
            return "rank " + error.rank() + " failed";
        }
        return "run failed";
    }

    /** The short form: the body of a run's state events, and a live run in run lists ({@link RunView#summary}). */
    synchronized Map<String, Object> summaryJson() {
        Map<String, Object> m = summaryCore();
        // what a runs list shows of a live run besides its state and times (a stored run lists its detail)
        m.put("attempts", attempts);
        m.put("resumed", history.resumed());
        m.put("params", params);
        // after the fields the API has always shown in this order
        m.put("progressFromCheckpoint", progressFromCheckpoint());
        return m;
    }

    /** The fields every form of the run starts with, in the order the API has always shown them. */
    private Map<String, Object> summaryCore() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("workflow", workflow);
        m.put("workflowVersion", workflowVersion);
        m.put("state", state.name());
        m.put("createdMs", createdMs);
        m.put("startedMs", startedMs == 0 ? null : startedMs);
        m.put("endedMs", endedMs == 0 ? null : endedMs);
        m.put("elapsedMs", (endedMs == 0 ? System.currentTimeMillis() : endedMs) - createdMs);
        m.put("startupMs", allRunningMs == 0 || startedMs == 0 ? null : allRunningMs - startedMs);
        // a waiting run has no rank placed yet (a restart waiting for room gave its ranks up): its plan's count
        m.put("size", state == RunState.QUEUED && queue != null ? queue.ranks() : ranks.size());
        m.put("progress", progress());
        m.put("error", error);
        if (state == RunState.FAILED || state == RunState.CANCELLED) {
            m.put("abortedBecause", abortedBecause());
        }
        if (queue != null && state == RunState.QUEUED) {
            m.put("queue", queue.toJson());
        }
        return m;
    }

    /**
     * The mean progress of the ranks that report {@code <progress>} (a rank that ended DONE counts as
     * complete): ranks that never report it would otherwise count as 0 and drag the run's bar down.
     * Without any reporting rank, the share of ranks DONE.
     */
    private double progress() {
        if (ranks.isEmpty()) {
            // a resumed run waiting for its places is where its checkpoint was, not at 0
            return state == RunState.SUCCEEDED ? 1.0 : state.isFinal() ? 0.0 : history.resumedFraction();
        }
        return RunProgress.of(ranks.stream().map(r -> new RunProgress.Rank(r.progressValue, r.progressTotal,
                r.state.equals("DONE"))).toList());
    }

    /**
     * The checkpoint the run's progress is taken from while the current attempt, resumed from it, has not reported
     * its own ({@code null}: the ranks' own reports, or no checkpoint).
     */
    private Long progressFromCheckpoint() {
        if (state.isFinal()) {
            return null;
        }
        if (ranks.isEmpty()) {
            return history.resumedFraction() > 0 ? history.resumedFrom() : null;
        }
        return ranks.stream().map(r -> r.progressFromCheckpoint).filter(java.util.Objects::nonNull).findFirst().orElse(null);
    }

    // ------------------------------------------------------------------ re-attachment (Reattachment)

    /** Whether a restarted engine is still confirming this run's ranks (status polling waits meanwhile). */
    private boolean reattaching;
    /** Per rank, the highest sequence number the stored detail had seen (events up to it are old). */
    private long[] restoredSeq = new long[0];

    /** Whether event {@code seq} of rank {@code r} was applied by the engine before it restarted. */
    private boolean reattachedSeqBound(RankView r, long seq) {
        int i = r.placement.rank();
        return i < restoredSeq.length && seq <= restoredSeq[i];
    }

    /**
     * Makes this (new) run object the re-attached form of a stored RUNNING run: its ranks at their
     * recorded places, RUNNING, with rank failures held back (like a start-up) until every rank has
     * been heard from again ({@link #endReattach}).
     *
     * @return the rank views, for the caller to restore from the stored detail before the run is shared
     */
    synchronized List<RankView> reattached(List<RankPlacement> placements, long startedAt, long allRunningAt,
                                           int attemptCount, List<Map<String, Object>> faults) {
        // not placed(): this is the stored attempt going on, whose entry in the attempt log (and its startMs) the
        // stored history already has (RunAttempts#restore), not a new one
        ranks.clear();
        placements.forEach(p -> ranks.add(new RankView(p)));
        starting = true;
        dirty = true;
        attempts = attemptCount;
        startedMs = startedAt;
        allRunningMs = allRunningAt;
        state = RunState.RUNNING;
        hostFaults.addAll(faults);
        reattaching = true;
        return List.copyOf(ranks);
    }

    /**
     * Makes this (new) run object the form of a stored FAILED or CANCELLED run that an earlier engine ended, so
     * that it can be {@linkplain #reopen resumed}: its end, attempts and host faults as stored, no ranks (a resume
     * places them afresh). Its history is restored by the caller ({@link RunAttempts#restore}).
     */
    synchronized void ended(RunState finalState, RunError cause, long startedAt, long endedAt, int attemptCount,
                            List<Map<String, Object>> faults) {
        state = finalState;
        error = cause;
        startedMs = startedAt;
        endedMs = endedAt;
        attempts = attemptCount;
        hostFaults.addAll(faults);
        dirty = false;
    }

    /** Records the stored {@code lastSeq} of every rank (after the views were restored). */
    synchronized void restoredSequences() {
        restoredSeq = ranks.stream().mapToLong(r -> r.maxSeq).toArray();
    }

    synchronized boolean reattaching() {
        return reattaching;
    }

    /**
     * Every rank was heard from again: normal monitoring resumes.
     *
     * @return a rank failure held back meanwhile, if any (the run fails with it, or restarts after it: see
     *         {@link #endStartup})
     */
    synchronized Optional<HeldBack> endReattach() {
        reattaching = false;
        return endStartup();
    }

    /** The run's place in the registry's view: hosts and service URLs of its ranks. */
    synchronized Map<String, String> hostUrls() {
        Map<String, String> m = new LinkedHashMap<>();
        ranks.forEach(r -> m.putIfAbsent(r.placement.hostId(), r.placement.endpoint().soapUrl()));
        return m;
    }
}
