package org.mpfl.engine.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.mpfl.engine.deploy.DeploymentService;
import org.mpfl.engine.registry.HostRegistry;
import org.mpfl.engine.run.checkpoint.CheckpointStore;
import org.mpfl.engine.store.LiveDomainStore;
import org.mpfl.engine.store.RunQuery;
import org.mpfl.engine.store.RunStore;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.protocol.RankEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts, watches and ends runs: the run service as the REST API, the CLI and the workflow service see
 * it, a thin front over three rooms that a run passes through top-down:
 * <ol>
 *   <li>{@link RunMonitor} (monitoring) applies rank events and {@code status} answers, watches hosts
 *       and deadlocks, and answers reads; what changes a run's course it reports to the lifecycle
 *       through {@link RunFaults};</li>
 *   <li>{@link RunLifecycle} (domain lifecycle) accepts runs, ends them (succeeded, failed, cancelled),
 *       restarts them after infrastructure faults and resumes them; it asks placement for hosts;</li>
 *   <li>{@link RunPlacer} (placement) places ranks, deploys missing services, fans {@code run} out,
 *       and quarantines and re-places when hosts fail the start.</li>
 * </ol>
 * Below the rooms, shared by them and calling none: {@link RunDomains} (live domains and the one abort
 * path), {@link RunJournal} (the stored record, event log and listeners) and {@link LiveRuns}.
 */
public final class RunService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RunService.class);
    private final LiveRuns runs = new LiveRuns();
    private final RunJournal journal;
    private final RunLifecycle lifecycle;
    private final RunMonitor monitor;
    private final CheckpointIntake intake;
    private final RankEventIntake eventIntake = new RankEventIntake(runs::get);
    /**
     * The runs' background steps (placement, aborts, restarts, fault decisions), on as many threads as they need. Once
     * the engine stops, a step offered to them is dropped: the engine started next on the same data takes each run up
     * where the store has it, as after a kill (docs/durability.md).
     */
    private final ExecutorService workers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), daemon("mpfl-run"), RunService::leftToSuccessor);
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(daemon("mpfl-run-ticker"));

    /**
     * @param engineUrl the engine's base URL as ranks reach it (their callback address is built from it)
     */
    public RunService(HostRegistry registry, RunStore store, LiveDomainStore liveDomains, RankInvoker invoker,
                      DeploymentService deployments, RankFanOut fanOut, RunSettings settings, Supplier<String> engineUrl,
                      CheckpointStore checkpoints) {
        this.journal = new RunJournal(store);
        RunDomains domains = new RunDomains(liveDomains, invoker, fanOut, workers::isShutdown, registry.relays());
        RunPlacer placer = new RunPlacer(registry, deployments, invoker, fanOut, settings, engineUrl, journal, domains, workers, runs);
        this.lifecycle = new RunLifecycle(runs, store, placer, domains, journal, checkpoints, workers, settings.queueTimeout());
        this.monitor = new RunMonitor(runs, store, journal, lifecycle, registry, invoker, settings, workers);
        this.intake = new CheckpointIntake(runs::get, checkpoints, (run, c) -> {
            if (c.complete()) {
                journal.record(run, null, "checkpoint", checkpointEvent(c));
            }
        });
        registry.onHostLost(monitor::hostLost);
        registry.relays().onRelayLost(monitor::relayLost);
        // runs a previous engine left waiting wait on (before the API serves, like re-attached runs)
        lifecycle.restoreQueued();
        long tick = Math.max(100, Math.min(500, settings.statusPollInterval().toMillis()));
        ticker.scheduleWithFixedDelay(() -> {
            monitor.tick();
            lifecycle.queue().tick(System.currentTimeMillis());
        }, tick, tick, TimeUnit.MILLISECONDS);
    }

    private static void leftToSuccessor(Runnable step, ThreadPoolExecutor workers) {
        if (!workers.isShutdown()) {
            throw new RejectedExecutionException("no thread for a run's background step");
        }
        LOG.info("engine stopping: a run's background step is left to the engine started next on this data");
    }

    static ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** A random, unguessable identifier of {@code bytes} bytes, base64url without padding. */
    public static String randomId(int bytes) {
        return RandomIds.of(bytes);
    }

    /**
     * Accepts a run and starts it in the background.
     *
     * @param plan   what to run
     * @param params parameter values given for this run (override the plan's defaults)
     * @return the run, PENDING
     * @throws IllegalArgumentException if the rank counts cannot be worked out with these values
     */
    public Run start(DeploymentPlan plan, Map<String, Object> params) {
        return start(plan, params, null, Map.of(), null);
    }

    /**
     * Accepts a run and starts it in the background.
     *
     * @param restarts how many times the run may restart after an infrastructure fault ({@code null}:
     *                 as the plan says, 0 when it does not)
     */
    public Run start(DeploymentPlan plan, Map<String, Object> params, Integer restarts) {
        return start(plan, params, null, Map.of(), restarts);
    }

    /**
     * Accepts a run of a workflow whose services are deployed under their own names and starts it in
     * the background.
     *
     * @param plan         what to run
     * @param params       parameter values given for this run (override the plan's defaults)
     * @param version      the stored workflow version it runs, or {@code null} (a plan or document sent with the run)
     * @param serviceNames service type → the name it is deployed under on the hosts (a type not in it: its plain name)
     * @param restarts     how many times the run may restart after an infrastructure fault ({@code null}:
     *                     as the plan says, 0 when it does not)
     * @return the run, PENDING
     * @throws IllegalArgumentException if the rank counts cannot be worked out with these values, or restarts is negative
     */
    public Run start(DeploymentPlan plan, Map<String, Object> params, Integer version, Map<String, String> serviceNames,
                     Integer restarts) {
        return start(plan, params, version, serviceNames, restarts, Queueing.DEFAULT);
    }

    /**
     * Accepts a run and queues it for its places: it starts in the background as soon as all its ranks
     * fit in the hosts' free capacity (QUEUED until then, see {@link RunQueue}).
     *
     * @param queueing its priority, oversubscription and queue timeout
     * @see #start(DeploymentPlan, Map, Integer, Map, Integer)
     */
    public Run start(DeploymentPlan plan, Map<String, Object> params, Integer version, Map<String, String> serviceNames,
                     Integer restarts, Queueing queueing) {
        return start(plan, params, version, serviceNames, restarts, queueing, null);
    }

    /**
     * Accepts a run of a project and queues it: its ranks are placed only on services the project may use
     * ({@link org.mpfl.engine.deploy.DeploymentService#usableBy}), in every attempt, restarts and resumes included.
     *
     * @param project the run's project; {@code null}: any service (a run started inside the engine's JVM)
     * @see #start(DeploymentPlan, Map, Integer, Map, Integer, Queueing)
     */
    public Run start(DeploymentPlan plan, Map<String, Object> params, Integer version, Map<String, String> serviceNames,
                     Integer restarts, Queueing queueing, String project) {
        return lifecycle.start(plan, params, version, serviceNames, restarts, queueing, project);
    }

    /**
     * Starts a new attempt of a FAILED or CANCELLED run right after its newest usable checkpoint (from
     * the start without one), under a new domain, on hosts placed afresh.
     *
     * @throws UnknownRunException if there is no such run
     * @throws ResumeRefusedException if the run is in another state, or what placing it again needs was not stored
     *                                (a run started by an engine older than the {@code run_launches} table, or one
     *                                that succeeded)
     */
    public Run resume(String runId) throws UnknownRunException, ResumeRefusedException {
        return lifecycle.resume(runId);
    }

    /** Cancels a run; {@code false} when it had already ended. */
    public boolean cancel(String runId) throws UnknownRunException {
        return lifecycle.cancel(runId, null, null);
    }

    /**
     * Cancels a run, telling what became of it.
     *
     * @param reason why ({@code --timeout 10 s passed}), for the run's error; {@code null}: a user's cancel
     * @param by     the user who cancels, for the run's error ({@code cancelled by alice}); {@code null}: none is named
     * @throws UnknownRunException if there is no such run
     */
    public Cancellation cancelRun(String runId, String reason, String by) throws UnknownRunException {
        boolean cancelled = lifecycle.cancel(runId, reason, by);
        return new Cancellation(runId, cancelled, detail(runId).map(d -> d.path("state").asText()).orElse(null));
    }

    /**
     * Aborts the domains a previous engine left running (recorded live, never ended) and forgets them;
     * called once at start, in the background, each abort bounded by the invoker's timeout.
     */
    public void abortOrphanedDomains() {
        lifecycle.abortOrphanedDomains();
    }

    /**
     * Applies events POSTed by ranks of run {@code runId}, once {@link #eventIntake} admitted the post and
     * checked its body.
     *
     * @throws EndedRunEventException after applying them, when the run has ended FAILED or CANCELLED
     */
    public void rankEvents(String runId, List<RankEvent> events) throws UnknownRunException, ForeignEventException,
            EndedRunEventException {
        monitor.rankEvents(runId, events);
    }

    /**
     * Takes the log lines of a post {@link #eventIntake} admitted as {@linkplain RankEventIntake.Admission#late late}
     * (of a domain the run gave up a moment ago) into the run's log; nothing else of it is applied.
     */
    public void lateLogLines(String runId, List<RankEvent> events) {
        monitor.lateLogLines(runId, events);
    }

    /** Where posts of rank events are admitted ({@link org.mpfl.protocol.RankEventPost}) before they are applied. */
    public RankEventIntake eventIntake() {
        return eventIntake;
    }

    /** Where ranks' checkpoint parts are admitted and stored. */
    public CheckpointIntake checkpoints() {
        return intake;
    }

    /** The {@code checkpoint} event of a complete checkpoint. */
    private static Map<String, Object> checkpointEvent(CheckpointStore.Checkpoint c) {
        Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("checkpoint", c.seq());
        body.put("attempt", c.attempt());
        body.put("bytes", c.bytes());
        body.put("spanMs", c.lastMs() - c.firstMs());
        body.put("timeMs", c.lastMs());
        return body;
    }

    /** Subscribes to a run's events; close the result to unsubscribe. */
    public AutoCloseable listen(String runId, RunListener listener) {
        return journal.listen(runId, listener);
    }

    /**
     * A run's event log: stored events after event {@code afterId}, at most {@code limit}.
     *
     * @throws UnknownRunException if there is no such run
     */
    public List<RunStore.StoredEvent> log(String runId, long afterId, int limit) throws UnknownRunException {
        return monitor.log(runId, afterId, limit);
    }

    /**
     * The run as Chrome Trace Event JSON ({@link RunTrace}), from its detail and all its stored events
     * (read in pages; at most {@link RunTrace#maxEvents()} events).
     */
    public Map<String, Object> trace(String runId) throws UnknownRunException {
        return monitor.trace(runId);
    }

    /** A run's detail as the REST API shows it ({@link RunView}): live if this engine runs it, else as stored. */
    public Optional<JsonNode> detail(String runId) {
        return monitor.detail(runId);
    }

    /** Runs as the REST API lists them ({@link RunView}), newest first (live state for this engine's runs, stored otherwise). */
    public List<JsonNode> list(String state, int limit) {
        return monitor.list(state, limit);
    }

    /** Runs matching {@code query}, sorted and paged ({@link RunView}; live state for this engine's runs). */
    public RunListing list(RunQuery query) {
        return monitor.list(query);
    }

    // ------------------------------------------------------------------ for capacity providers

    /**
     * Capacity on demand: from now on a run that no host can run yet waits in the queue for the hosts a
     * provider brings (instead of failing), and its reason ends with {@code note} (what the provider does
     * about it, e.g. "Slurm job 1234 PENDING (Resources)"); a run that can never fit what the provider may bring
     * fails at once, saying why ({@link CapacityOnDemand#neverFits}).
     */
    public void capacityOnDemand(CapacityOnDemand provider) {
        lifecycle.queue().onDemand(provider);
    }

    /** The ranks each queued run needs, in queue order. */
    public List<Integer> queuedRanks() {
        return lifecycle.queue().waitingRanks();
    }

    /** The ranks of live runs (placed, starting or running) per host that holds any. */
    public Map<String, Integer> busyRanks() {
        Map<String, Integer> busy = new java.util.HashMap<>();
        for (Run run : runs.all()) {
            if (!run.state().isFinal() && run.state() != RunState.QUEUED) {
                run.placements().forEach(p -> busy.merge(p.hostId(), 1, Integer::sum));
            }
        }
        return busy;
    }

    /** A live run of this engine instance. */
    public Optional<Run> live(String runId) {
        return Optional.ofNullable(runs.get(runId));
    }

    // ------------------------------------------------------------------ for Reattachment

    /** Takes over a run re-attached to after an engine restart ({@link Reattachment}); before the API serves. */
    void adopt(Run run) {
        lifecycle.adopt(run);
    }

    /**
     * An infrastructure fault of a re-attached run's current domain (its host was lost while the engine was away):
     * a restart while its restarts are left, as for a fault the engine saw itself.
     *
     * @param lostHosts hosts lost, each with the process that was lost (see {@link RunFaults#infrastructureFault})
     */
    void infrastructureFault(Run run, Map<String, String> lostHosts, RunError error) {
        lifecycle.infrastructureFault(run, run.domainId(), error, lostHosts);
    }

    /** Applies a {@code status} answer of one rank as the status poller does (ending the run if it ended). */
    void applyStatus(Run run, int rank, RankStatus status) {
        monitor.applyStatus(run, rank, status);
    }

    /** A rank failure held back while the run was re-attached to: it fails the run, or restarts it (see {@link Run#endStartup}). */
    void heldBack(Run run, Run.HeldBack h) {
        lifecycle.heldBack(run, h);
    }

    void persist(Run run) {
        journal.persist(run);
    }

    void record(Run run, Integer rank, String kind, Object body) {
        journal.record(run, rank, kind, body);
    }

    /**
     * The engine begins to stop (before it releases its capacity jobs, whose hosts then say goodbye): hosts that leave
     * the registry from now on leave their runs unfinished in the store, for the engine started next on the same data
     * (docs/durability.md), instead of failing them over. {@link #close} implies it.
     */
    public void stopping() {
        monitor.engineStopping();
    }

    @Override
    public void close() {
        stopping();
        ticker.shutdownNow();
        for (Run run : runs.all()) {
            journal.persistIfChanged(run);
        }
        workers.shutdownNow();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS);
            ticker.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The answer to a cancel request.
     *
     * @param runId     the run
     * @param cancelled whether this request cancelled it ({@code false}: it had already ended)
     * @param state     its state now
     */
    public record Cancellation(String runId, boolean cancelled, String state) {
    }
}
