package org.mpfl.engine.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.run.checkpoint.CheckpointStore;
import org.mpfl.engine.store.RunRecord;
import org.mpfl.engine.store.RunStore;
import org.mpfl.ir.eval.ConstantEnvironment;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.ir.eval.RuntimeFault;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.protocol.RunRequest.ProcessSlice;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The domain lifecycle room of the run service: accepts a run and has it placed ({@link RunPlacer}),
 * takes it to RUNNING once every rank accepted {@code run}, and ends it: succeeded, failed or cancelled,
 * each end aborting its domain through the one abort path ({@link RunDomains}). An infrastructure fault
 * restarts the run under a new domain while restarts are left ({@link RestartPolicy}); a user may resume
 * a FAILED or CANCELLED run. Restarts and resumes go on from the newest usable checkpoint.
 *
 * <p>Monitoring reports to this room through {@link RunFaults}; this room asks placement and never
 * calls back into monitoring.
 */
final class RunLifecycle implements RunFaults {
    private static final Logger LOG = LoggerFactory.getLogger(RunLifecycle.class);

    private final LiveRuns runs;
    private final RunStore store;
    private final RunPlacer placer;
    private final RunDomains domains;
    private final RunJournal journal;
    private final CheckpointStore checkpoints;
    private final ExecutorService workers;
    private final RunQueue queue;
    /** Runs re-attached to after this engine started: their restart may come before their hosts announced again. */
    private final Set<String> reattached = java.util.concurrent.ConcurrentHashMap.newKeySet();

    RunLifecycle(LiveRuns runs, RunStore store, RunPlacer placer, RunDomains domains, RunJournal journal,
                 CheckpointStore checkpoints, ExecutorService workers, java.time.Duration queueTimeout) {
        this.runs = runs;
        this.store = store;
        this.placer = placer;
        this.domains = domains;
        this.journal = journal;
        this.checkpoints = checkpoints;
        this.workers = workers;
        this.queue = new RunQueue(placer, journal, store, queueTimeout, this::startReserved, this::failed);
    }

    /** The run queue every launch goes through. */
    RunQueue queue() {
        return queue;
    }

    /** See {@link RunService#start(DeploymentPlan, Map, Integer, Map, Integer, Queueing, String)}. */
    Run start(DeploymentPlan plan, Map<String, Object> params, Integer version, Map<String, String> serviceNames,
              Integer restarts, Queueing queueing, String project) {
        int allowedRestarts = RestartPolicy.allowed(restarts, plan.restarts());
        ProcessLayout layout = layout(plan, params);
        Map<String, String> services = new LinkedHashMap<>();
        List<ProcessSlice> slices = new ArrayList<>();
        for (String process : layout.processes()) {
            String type = plan.process(process).service();
            // ranks are placed on the deployed name; the run request keeps the plan's service type
            services.put(process, serviceNames.getOrDefault(type, type));
            slices.add(new ProcessSlice(process, type, layout.count(process)));
        }
        Map<String, Object> all = new LinkedHashMap<>(plan.defaults());
        if (params != null) {
            all.putAll(params);
        }
        Run run = new Run(RandomIds.of(12), plan.workflow(), RandomIds.domainId(), RandomIds.domainToken(), Map.copyOf(all),
                System.currentTimeMillis());
        run.workflowVersion(version);
        run.history().restartsAllowed(allowedRestarts);
        LaunchSpec spec = new LaunchSpec(layout, Map.copyOf(services), List.copyOf(slices), queueing, project);
        runs.add(run, spec);
        saveLaunch(run, spec);
        journal.stateChanged(run);
        launch(run, spec, null, new FaultyHosts());
        return run;
    }

    /**
     * Queues again, in their order, the runs a previous engine left waiting before their first start
     * (as the run store's queue and their stored records say); a queue row whose run is no longer
     * QUEUED is dropped.
     */
    void restoreQueued() {
        for (RunStore.QueuedRun q : store.queued()) {
            try {
                Optional<RunRecord> stored = store.run(q.runId());
                if (stored.isEmpty() || !RunState.QUEUED.name().equals(stored.get().state()) || runs.holds(q.runId())) {
                    store.deleteQueued(q.runId());
                    continue;
                }
                JsonNode d = stored.get().detail();
                Map<String, Object> params = d.path("params").isObject() ? Json.MAPPER.convertValue(d.get("params"),
                        Json.MAPPER.getTypeFactory().constructMapType(LinkedHashMap.class, String.class, Object.class)) : Map.of();
                Run run = new Run(q.runId(), d.path("workflow").asText(null), RandomIds.domainId(), RandomIds.domainToken(),
                        Map.copyOf(params), q.createdMs());
                run.workflowVersion(d.path("workflowVersion").isInt() ? d.get("workflowVersion").asInt() : null);
                run.history().restartsAllowed(q.launch().path("restartsAllowed").asInt(0));
                Queueing queueing = new Queueing(q.priority(), q.oversubscribe(),
                        q.queueTimeoutMs() == null ? null : java.time.Duration.ofMillis(q.queueTimeoutMs()),
                        SiteRequest.parse(q.launch().path("sites").asText(null)));
                LaunchSpec spec = LaunchSpec.fromJson(q.launch(), queueing);
                runs.add(run, spec);
                queue.submit(new RunQueue.Entry(run, spec, null, new FaultyHosts(), q.sinceMs(), true));
                LOG.info("run {} ({}) queued again after the engine restarted", run.id(), run.workflow());
            } catch (RuntimeException e) {
                LOG.warn("run {} cannot be queued again: {}", q.runId(), Failures.describe(e));
            }
        }
    }

    /** Stores what placing the run again needs, so that an engine started later can restart or resume it. */
    private void saveLaunch(Run run, LaunchSpec spec) {
        try {
            store.saveLaunch(run.id(), spec.toJson(run.history().restartsAllowed()));
        } catch (RuntimeException e) {
            LOG.warn("run {}: cannot store its launch (an engine started later cannot restart or resume it): {}", run.id(),
                    Failures.describe(e));
        }
    }

    /**
     * Takes over a run re-attached to after an engine restart, with its stored launch when there is one (it can
     * then restart after an infrastructure fault as before the engine restart; without one, a fault fails it).
     */
    void adopt(Run run) {
        reattached.add(run.id());
        Optional<LaunchSpec> spec = storedLaunch(run.id());
        if (spec.isPresent()) {
            runs.add(run, spec.get());
        } else {
            runs.adopt(run);
            if (run.history().restartsAllowed() > run.history().restartsUsed()) {
                LOG.warn("run {}: no stored launch (started by an older engine): it cannot restart after a fault", run.id());
            }
            run.history().restartsAllowed(run.history().restartsUsed());
        }
    }

    private Optional<LaunchSpec> storedLaunch(String runId) {
        try {
            return store.launch(runId).map(LaunchSpec::fromJson);
        } catch (RuntimeException e) {
            LOG.warn("run {}: cannot read its stored launch: {}", runId, Failures.describe(e));
            return Optional.empty();
        }
    }

    /** The plan's process layout for a run with these parameter values. */
    private static ProcessLayout layout(DeploymentPlan plan, Map<String, Object> params) {
        try {
            return plan.layout(plan.paramValues(params));
        } catch (RuntimeFault | ConstantEnvironment.NotConstantException e) {
            throw new IllegalArgumentException("plan '" + plan.workflow() + "': cannot work out the rank counts: "
                    + e.getMessage(), e);
        }
    }

    /** Queues the run for its places; once it has them it is started in the background ({@link #startReserved}). */
    private void launch(Run run, LaunchSpec spec, CheckpointStore.Usable resume, FaultyHosts faulty) {
        queue.submit(new RunQueue.Entry(run, spec, resume, faulty, System.currentTimeMillis()));
    }

    /** Starts a queued launch on the places reserved for it, in the background, and acts on how that ended. */
    private void startReserved(RunQueue.Entry e, Run.Domain reserved) {
        workers.submit(() -> launched(e, placer.launch(e.run(), e.spec(), e.resume(), e.faulty(), reserved)));
    }

    private void launched(RunQueue.Entry e, RunPlacer.Launched launched) {
        Run run = e.run();
        switch (launched.kind()) {
            case QUEUED -> queue.submit(e.again(System.currentTimeMillis()));
            case FAILED -> failed(run, launched.failure());
            case STARTED -> {
                Optional<Run.StartupEnd> end = run.endStartupOf(launched.domainId());
                if (end.isEmpty()) {
                    return; // a restart gave this attempt up meanwhile: the start-up to end is the restart's
                }
                if (end.get().heldBack() != null) {
                    // every rank accepted run: a rank that failed meanwhile failed in the workflow or the infrastructure,
                    // not in placement
                    heldBack(run, end.get().heldBack());
                } else {
                    run.history().running(run.attempts(), System.currentTimeMillis());
                    run.touch();
                    if (run.markRunning(System.currentTimeMillis(), true)) {
                        journal.stateChanged(run);
                    }
                }
            }
            case ENDED, STOPPED -> { }
        }
    }

    /**
     * A rank failure held back while the run started or was re-attached to ({@link Run#endStartup}), decided as one
     * after the start-up: a workflow fault fails the run; an infrastructure fault (a kernel worker SIGKILLed, a peer
     * or host lost before every rank started) restarts it while restarts are left, once a workflow fault of another
     * rank had its moment to arrive and win ({@link RestartPolicy#settleThenDecide}).
     */
    void heldBack(Run run, Run.HeldBack h) {
        if (h.infrastructure()) {
            workers.submit(() -> RestartPolicy.settleThenDecide(run, this, h.domainId(), h.error()));
        } else {
            failed(run, h.error());
        }
    }

    @Override
    public void succeeded(Run run) {
        // a rank may report DONE before every rank has accepted run; that is still a success
        run.markRunning(System.currentTimeMillis(), false);
        if (run.finish(RunState.SUCCEEDED, null, System.currentTimeMillis())) {
            domains.forget(run.id());
            try {
                // a succeeded run is never resumed: its checkpoints and launch are of no further use
                checkpoints.delete(run.id());
                store.deleteLaunch(run.id());
            } catch (java.io.IOException | RuntimeException e) {
                LOG.warn("run {}: cannot delete its checkpoints or stored launch: {}", run.id(), Failures.describe(e));
            }
            journal.stateChanged(run);
            queue.drain();
            LOG.info("run {} ({}) succeeded", run.id(), run.workflow());
        }
    }

    /** Fails a run (once) and aborts its domain on every rank. */
    @Override
    public void failed(Run run, RunError error) {
        if (run.finish(RunState.FAILED, error, System.currentTimeMillis())) {
            LOG.info("run {} ({}) failed: {}", run.id(), run.workflow(), error.message());
            end(run);
        }
    }

    /**
     * Cancels a run; {@code false} when it had already ended.
     *
     * @param reason why, as the run's error says it ({@code cancelled: REASON}); {@code null}: a user's cancel
     */
    boolean cancel(String runId, String reason, String by) throws UnknownRunException {
        Run run = runs.get(runId);
        if (run == null) {
            if (store.run(runId).isPresent()) {
                return false;
            }
            throw new UnknownRunException(runId);
        }
        if (run.finish(RunState.CANCELLED, new RunError(null, null, RunError.cancelled(reason, by)), System.currentTimeMillis())) {
            end(run);
            return true;
        }
        return false;
    }

    /** A run just ended FAILED or CANCELLED: records it, aborts its domain in the background and serves the queue. */
    private void end(Run run) {
        journal.stateChanged(run);
        queue.drain();
        Run.Domain domain = run.domain();
        workers.submit(() -> domains.abortEndedThroughRelays(run, domain));
    }

    @Override
    public void infrastructureFault(Run run, String domainId, RunError error, Map<String, String> lostHosts) {
        long faultMs = System.currentTimeMillis();
        Run.RestartDecision d = run.restartOrFail(domainId, RandomIds.domainId(), RandomIds.domainToken());
        switch (d.decision()) {
            case STALE -> { }
            case FAIL -> {
                int allowed = run.history().restartsAllowed();
                failed(run, allowed == 0 ? error : new RunError(error.rank(), error.location(), error.message()
                        + " (no restarts left: " + allowed + " of " + allowed + " used)"));
            }
            case RESTART -> {
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("cause", error.message());
                body.put("rank", error.rank());
                body.put("restart", run.history().restartsUsed());
                body.put("allowed", run.history().restartsAllowed());
                body.put("timeMs", faultMs);
                journal.persist(run);
                journal.record(run, null, "restart", body);
                LOG.warn("run {}: infrastructure fault ({}); restart {} of {}", run.id(), error.message(),
                        run.history().restartsUsed(), run.history().restartsAllowed());
                workers.submit(() -> restart(run, d.old(), error, lostHosts, faultMs));
            }
        }
    }

    /**
     * Aborts the given-up domain, keeps the lost hosts (and those the abort cannot reach) out, and
     * launches a new attempt right after the newest usable checkpoint (from the start without one).
     */
    private void restart(Run run, Run.Domain old, RunError cause, Map<String, String> lostHosts, long faultMs) {
        FaultyHosts faulty = new FaultyHosts();
        lostHosts.forEach((h, instance) -> faulty.put(placer.registry(), h, instance, "(lost: " + cause.message() + ")"));
        // a lost relay: its hosts can be aborted and placed across sites again once it is back. The wait for it and the
        // retried abort share one deadline, the engine's relay-return bound: each with a bound of its own added up to twice it
        long end = placer.relayReturnDeadline();
        List<String> missing = placer.awaitRelays(old.placements(), end);
        if (!missing.isEmpty()) {
            LOG.warn("run {}: relays {} did not come back within {} s; restarting without them", run.id(), missing,
                    placer.registry().relays().relayReturn().toSeconds());
        }
        // hosts behind a relay that has just come back register there again within seconds: their abort is
        // retried while they do (within the same deadline), rather than keeping them out of the new attempt
        Set<String> unreachable = domains.abortThroughRelays(run.id(), old, end);
        // a host behind a relay still lost is not kept out of the run for good: placement leaves it out while the
        // relay is lost and takes it again once the relay is back (its old ranks are aborted by then: its events
        // for the old domain are refused, and a host aborts a domain whose events the engine refuses)
        unreachable.stream().filter(h -> !placer.behindLostRelay(h))
                .forEach(h -> faulty.putIfAbsent(placer.registry(), h, null, "(unreachable when its ranks were aborted)"));
        Optional<LaunchSpec> spec = runs.launch(run.id());
        if (spec.isEmpty() || run.state().isFinal()) {
            return;
        }
        CheckpointStore.Usable from = resumePoint(run, spec.get(), "restart after: " + cause.message(), faultMs);
        // a re-attached run's restart may come before any host announced itself again to this engine: it waits for
        // them (bounded by its queue timeout) rather than failing for want of hosts
        queue.submit(new RunQueue.Entry(run, spec.get(), from, faulty, System.currentTimeMillis(), reattached.contains(run.id())));
    }

    /** See {@link RunService#resume(String)}. */
    Run resume(String runId) throws UnknownRunException, ResumeRefusedException {
        Run run;
        Optional<LaunchSpec> spec;
        synchronized (this) {
            run = runs.get(runId);
            if (run == null) {
                run = revive(runId);
            }
            spec = runs.launch(runId);
        }
        if (spec.isEmpty()) {
            throw new ResumeRefusedException("run " + runId + " cannot be resumed: what placing it again needs was not "
                    + "stored (it was started by an engine older than this one's store of launches)");
        }
        try {
            run.reopen(RandomIds.domainId(), RandomIds.domainToken());
        } catch (IllegalStateException e) {
            throw new ResumeRefusedException(e.getMessage());
        }
        CheckpointStore.Usable from = resumePoint(run, spec.get(), RunAttempts.RESUMED_CAUSE, null);
        journal.stateChanged(run);
        LOG.info("run {} ({}) resumed {}", run.id(), run.workflow(), from == null ? "from the start" : "from checkpoint " + from.seq());
        launch(run, spec.get(), from, new FaultyHosts());
        return run;
    }

    /**
     * A run this engine no longer holds (it ended before the engine restarted, or was let go long ago) in memory
     * again, as its stored record and launch say, so that it can be resumed: its end, attempts, host faults and
     * history as stored. A run without a stored launch is held without one (its resume is refused).
     */
    private Run revive(String runId) throws UnknownRunException, ResumeRefusedException {
        RunRecord stored = store.run(runId).orElseThrow(() -> new UnknownRunException(runId));
        RunState state = RunState.valueOf(stored.state());
        if (state != RunState.FAILED && state != RunState.CANCELLED) {
            throw new ResumeRefusedException("run " + runId + " is " + state + "; only a FAILED or CANCELLED run can be resumed");
        }
        JsonNode d = stored.detail();
        Run run = Reattachment.stored(d, RandomIds.domainId(), RandomIds.domainToken());
        JsonNode err = d.path("error");
        RunError error = err.isObject() ? new RunError(err.path("rank").isInt() ? err.get("rank").asInt() : null,
                err.path("location").asText(null), err.path("message").asText(null)) : null;
        run.ended(state, error, d.path("startedMs").asLong(0), d.path("endedMs").asLong(0), d.path("attempts").asInt(0),
                Reattachment.hostFaults(d));
        run.history().restore(d);
        Optional<LaunchSpec> spec = storedLaunch(runId);
        if (spec.isEmpty()) {
            return run; // not held: the caller refuses
        }
        runs.add(run, spec.get());
        LOG.info("run {} ({}) taken back from the store to be resumed", runId, run.workflow());
        return run;
    }

    /**
     * Where the next attempt resumes: the newest complete checkpoint whose parts all check out (newer
     * ones that do not are marked unusable and the attempt's note says so); checkpoints after it are
     * discarded (the new attempt takes them again).
     */
    private CheckpointStore.Usable resumePoint(Run run, LaunchSpec spec, String cause, Long faultMs) {
        CheckpointStore.Selection sel = checkpoints.latestUsable(run.id(), spec.ranks());
        for (String why : sel.rejected()) {
            try {
                run.history().unusable(Long.parseLong(why.substring("checkpoint ".length(), why.indexOf(' ', "checkpoint ".length()))), why);
            } catch (RuntimeException e) {
                LOG.debug("run {}: {}", run.id(), why);
            }
            LOG.warn("run {}: {}", run.id(), why);
        }
        CheckpointStore.Usable from = sel.checkpoint().orElse(null);
        String note = sel.rejected().isEmpty() ? null : String.join("; ", sel.rejected())
                + (from == null ? "; resuming from the start" : "; resuming from checkpoint " + from.seq());
        try {
            checkpoints.discardAfter(run.id(), from == null ? 0 : from.seq());
        } catch (java.io.IOException | RuntimeException e) {
            LOG.warn("run {}: cannot discard checkpoints after the one resumed from: {}", run.id(), Failures.describe(e));
        }
        run.history().next(cause, from == null ? null : from.seq(), note, faultMs);
        run.touch();
        return from;
    }

    /** Aborts the domains a previous engine left running, in the background (see {@link RunDomains#abortOrphans}). */
    void abortOrphanedDomains() {
        domains.abortOrphans(runs::holds, workers);
    }
}
