package org.mpfl.engine.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.mpfl.ir.eval.ConstantEnvironment;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.ir.eval.RuntimeFault;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.engine.deploy.DeploymentService;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.engine.registry.HostRegistry;
import org.mpfl.engine.registry.Quarantine;
import org.mpfl.engine.run.checkpoint.CheckpointStore;
import org.mpfl.engine.store.RunStore;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RankEvent;
import org.mpfl.protocol.RunRequest.ProcessSlice;
import org.mpfl.protocol.RunRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts, watches and ends runs: places ranks, deploys missing services, creates the domain (ID and
 * token), fans {@code run} out to every rank, applies rank events and {@code status} answers, fails
 * the run and aborts the domain when a rank fails, a host is lost or a deadlock is found, and keeps
 * the store up to date.
 *
 * <p>A host that refuses a deployment or {@code run}, or does not answer {@code run} within the
 * fan-out timeout, does not fail the run: the engine quarantines it (see
 * {@link HostRegistry#quarantine(String, String, java.time.Duration, java.time.Duration)}), records a
 * {@code placement} event and a {@code hostFaults} entry, aborts the half-started domain and places
 * the ranks again on other hosts under a new domain, at most {@link RunSettings#maxReplacements}
 * times. The run fails only when no host is left for some process ("no capacity: …", naming every
 * host kept out and why) or the re-placements are used up. Faults after every rank accepted
 * {@code run} (the workflow's own, a lost host) fail the run as before.
 */
public final class RunService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RunService.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final HostRegistry registry;
    private final RunStore store;
    private final RankInvoker invoker;
    private final DeploymentService deployments;
    private final RankFanOut fanOut;
    private final RunSettings settings;
    private final Supplier<String> engineUrl;
    private final Map<String, Run> runs = new ConcurrentHashMap<>();
    private final Map<String, List<RunListener>> listeners = new ConcurrentHashMap<>();
    private final Map<String, AtomicBoolean> polling = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> hostFailures = new ConcurrentHashMap<>();
    private final ExecutorService workers = Executors.newCachedThreadPool(daemon("mpfl-run"));
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(daemon("mpfl-run-ticker"));
    private final CheckpointStore checkpoints;
    private final CheckpointIntake intake;
    /** What each run needs to be placed again (a restart or a resume): its layout, services and process slices. */
    private final Map<String, Launch> launches = new ConcurrentHashMap<>();

    /** What placing a run's ranks needs, kept for restarts and resumes. */
    private record Launch(ProcessLayout layout, Map<String, String> services, List<ProcessSlice> slices) {
    }

    /**
     * @param engineUrl the engine's base URL as ranks reach it (their callback address is built from it)
     */
    public RunService(HostRegistry registry, RunStore store, RankInvoker invoker, DeploymentService deployments,
                      RankFanOut fanOut, RunSettings settings, Supplier<String> engineUrl, CheckpointStore checkpoints) {
        this.checkpoints = checkpoints;
        this.intake = new CheckpointIntake(runs::get, checkpoints, new CheckpointIntake.Callback() {
            @Override
            public void recorded(Run run, CheckpointStore.Checkpoint c) {
                run.history().checkpoint(c);
                run.touch();
            }

            @Override
            public void stored(Run run, CheckpointStore.Checkpoint c) {
                checkpointStored(run, c);
            }
        });
        this.registry = registry;
        this.store = store;
        this.invoker = invoker;
        this.deployments = deployments;
        this.fanOut = fanOut;
        this.settings = settings;
        this.engineUrl = engineUrl;
        registry.onHostLost(this::hostLost);
        long tick = Math.max(100, Math.min(500, settings.statusPollInterval().toMillis()));
        ticker.scheduleWithFixedDelay(this::tick, tick, tick, TimeUnit.MILLISECONDS);
    }

    static java.util.concurrent.ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** A random, unguessable identifier of {@code bytes} bytes, base64url without padding. */
    public static String randomId(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
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
        String id = randomId(12);
        Run run = new Run(id, plan.workflow(), randomId(24), randomId(32), Map.copyOf(all), System.currentTimeMillis());
        run.workflowVersion(version);
        run.history().restartsAllowed(allowedRestarts);
        Launch spec = new Launch(layout, Map.copyOf(services), List.copyOf(slices));
        launches.put(id, spec);
        runs.put(id, run);
        persist(run);
        record(run, null, "run", stateEvent(run));
        workers.submit(() -> launch(run, spec, null, new LinkedHashMap<>()));
        return run;
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

    /**
     * Places, deploys and starts a run; when hosts fail the attempt before the domain started
     * (deploy refused, {@code run} refused or unanswered), quarantines them and tries again on other
     * hosts with a new domain, at most {@link RunSettings#maxReplacements} times.
     */
    private void launch(Run run, Launch spec, CheckpointStore.Usable resume, Map<String, String> faulty) {
        ProcessLayout layout = spec.layout();
        Map<String, String> services = spec.services();
        List<ProcessSlice> slices = spec.slices();
        try {
            run.markStarting(System.currentTimeMillis());
            // faulty: hosts that failed this run, with why: kept out of its later attempts even if their quarantine ends
            int attemptsBefore = run.attempts();
            // a static host-file entry has what was installed on it by hand, under the plain type names
            Map<String, String> plainType = new HashMap<>();
            slices.forEach(s -> plainType.put(services.get(s.name()), s.service()));
            java.util.function.BiFunction<HostInfo, String, String> onHost =
                    (h, service) -> h.staticEntry() ? plainType.getOrDefault(service, service) : service;
            for (;;) {
                List<RankPlacement> placements;
                try {
                    placements = Placement.place(layout, services, registry.hosts(),
                            (h, service) -> h.offers(onHost.apply(h, service)) || (!h.staticEntry() && deployments.hasArchive(service)),
                            unavailable(faulty), onHost);
                } catch (Placement.PlacementException e) {
                    fail(run, new RunError(null, null, e.getMessage()));
                    return;
                }
                run.placed(placements);
                recordLiveDomain(run, placements);
                List<HostFault> faults = deployMissing(placements);
                if (run.state().isFinal()) {
                    return; // cancelled while deploying: nothing of this domain runs yet
                }
                Attempt attempt = faults.isEmpty() ? start(run, placements, slices, resume) : new Attempt(faults, Set.of(), Set.of());
                if (attempt == null || !placeAgain(run, attempt, faulty, run.attempts() - attemptsBefore)) {
                    return;
                }
            }
        } catch (RuntimeException e) {
            LOG.error("run {} could not be started", run.id(), e);
            fail(run, new RunError(null, null, "the engine could not start the run: " + describe(e)));
        }
    }

    /**
     * A host that failed a start attempt before the domain started.
     *
     * @param quarantine whether the host is to blame (a host that left the registry is not quarantined)
     */
    private record HostFault(String hostId, Integer rank, String location, String reason, boolean quarantine) {
        /** Longest reason kept: a host's answer is quoted in it and a rogue host could send anything. */
        static final int MAX_REASON = 300;

        HostFault {
            if (reason.length() > MAX_REASON) {
                reason = reason.substring(0, MAX_REASON) + "…";
            }
        }
    }

    /**
     * A start attempt given up: the host faults, and the service URLs where ranks of its domain were
     * started (they must be aborted) or may still start (their {@code run} went unanswered).
     */
    private record Attempt(List<HostFault> faults, Set<String> startedUrls, Set<String> unansweredUrls) {
    }

    /** Hosts not to place on: those quarantined now and those that failed this run, with why. */
    private Map<String, String> unavailable(Map<String, String> faultyForThisRun) {
        Map<String, String> out = new LinkedHashMap<>();
        for (HostInfo h : registry.hosts()) {
            registry.quarantine(h.hostId()).filter(q -> registry.quarantined(h.hostId()))
                    .ifPresent(q -> out.put(h.hostId(), quarantineText(q.untilMs(), q.reason())));
        }
        faultyForThisRun.forEach(out::putIfAbsent);
        return out;
    }

    private static String quarantineText(long untilMs, String reason) {
        return "quarantined until " + java.time.Instant.ofEpochMilli(untilMs) + " (" + reason + ")";
    }

    /**
     * Fans {@code run} out to every rank of the current domain.
     *
     * @return the attempt to give up when hosts refused or did not answer; {@code null} when the run
     *         is under way or ended
     */
    private Attempt start(Run run, List<RankPlacement> placements, List<ProcessSlice> slices, CheckpointStore.Usable resume) {
        List<org.mpfl.protocol.Endpoint> endpoints = placements.stream().map(RankPlacement::endpoint).toList();
        String callback = engineUrl.get() + "/api/runs/" + run.id() + "/ranks";
        Run.Domain domain = run.domain();
        List<RankFanOut.RankCall> calls = new ArrayList<>();
        for (RankPlacement p : placements) {
            RunRequest req = new RunRequest(domain.id(), p.rank(), endpoints, slices, paramsOf(run), domain.token(),
                    callback, settings.transport(),
                    resume == null ? null : new RunRequest.Resume(resume.seq(), resume.parts().get(p.rank())));
            calls.add(new RankFanOut.RankCall(p.rank(), () -> invoker.run(p, req)));
        }
        fanOut.callAll(calls);
        if (run.state() == RunState.SUCCEEDED && calls.stream().allMatch(c -> c.done() && c.failure() == null)) {
            // every rank ended before the fan-out saw the last acceptance: the start-up still ended now
            // (startupMs of a run is never missing because its ranks were quick)
            run.markRunning(System.currentTimeMillis(), true);
            persist(run);
        }
        if (run.state().isFinal()) {
            // cancelled or failed while ranks were being started: the abort sent then may have
            // missed ranks that were created after it, so abort once more now that all are out
            // (a run that succeeded meanwhile has no rank left to abort, as after any success: its
            // needless abort also raced with a 'run --local' that stops its engine at the result)
            if (run.state() != RunState.SUCCEEDED) {
                abortDomain(run);
            }
            return null;
        }
        List<HostFault> faults = new ArrayList<>();
        Set<String> started = new LinkedHashSet<>();
        Set<String> unanswered = new LinkedHashSet<>();
        for (RankFanOut.RankCall c : calls) {
            RankPlacement p = placements.get(c.rank());
            String url = p.endpoint().soapUrl();
            if (!c.done() || neverAnswered(c.failure())) {
                // the call's own timeout equals the fan-out's: whichever fires first, it is the same fault
                unanswered.add(url);
                faults.add(new HostFault(p.hostId(), c.rank(), url, "rank " + c.rank() + " did not accept run within "
                        + settings.fanOutTimeout().toSeconds() + " s", true));
            } else if (c.failure() != null) {
                faults.add(new HostFault(p.hostId(), c.rank(), url, "rank " + c.rank() + " refused run: " + describe(c.failure()), true));
            } else {
                started.add(url);
            }
        }
        Set<String> faultyHosts = new LinkedHashSet<>();
        faults.forEach(f -> faultyHosts.add(f.hostId()));
        placements.stream().map(RankPlacement::hostId).filter(h -> !faultyHosts.contains(h)).distinct()
                .forEach(registry::forgive);
        if (!faults.isEmpty()) {
            return new Attempt(faults, started, unanswered);
        }
        Optional<RunError> heldBack = run.endStartup();
        if (heldBack.isPresent()) {
            // every rank accepted run: a rank that failed meanwhile failed in the workflow, not in placement
            fail(run, heldBack.get());
        } else {
            run.history().running(run.attempts(), System.currentTimeMillis());
            run.touch();
            if (run.markRunning(System.currentTimeMillis(), true)) {
                persist(run);
                record(run, null, "run", stateEvent(run));
            }
        }
        return null;
    }

    private static boolean neverAnswered(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof MpiwsClient.MpiwsCallException e && e.timedOut()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Quarantines the hosts that failed an attempt, records what happened, aborts the half-started
     * domain and gives the run a new one.
     *
     * @param faulty this run's faulty hosts so far (updated)
     * @return whether to place again ({@code false}: the run failed, or ended meanwhile)
     */
    private boolean placeAgain(Run run, Attempt attempt, Map<String, String> faulty, int placements) {
        boolean again = placements <= settings.maxReplacements();
        Map<String, HostFault> byHost = new LinkedHashMap<>();
        attempt.faults().forEach(f -> byHost.putIfAbsent(f.hostId(), f));
        for (HostFault f : byHost.values()) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("host", f.hostId());
            body.put("rank", f.rank());
            body.put("reason", f.reason());
            String why;
            if (f.quarantine()) {
                Quarantine q = registry.quarantine(f.hostId(), f.reason(), settings.quarantine(), settings.quarantineMax());
                body.put("quarantinedUntilMs", q.untilMs());
                why = quarantineText(q.untilMs(), f.reason());
            } else {
                body.put("quarantinedUntilMs", null);
                why = "(" + f.reason() + ")";
            }
            faulty.put(f.hostId(), why);
            body.put("action", again ? "placing again" : "gave up");
            body.put("message", "attempt " + run.attempts() + ": host " + f.hostId() + " " + why + "; "
                    + (again ? "placing the ranks again without it" : "no more placements (at most "
                    + settings.maxReplacements() + " re-placements per run)"));
            body.put("timeMs", System.currentTimeMillis());
            run.hostFault(body);
            record(run, f.rank(), "placement", body);
            LOG.warn("run {}: {}", run.id(), body.get("message"));
        }
        if (!again) {
            HostFault first = attempt.faults().get(0);
            fail(run, new RunError(first.rank(), first.location(), "could not start the run after " + placements
                    + " placements: " + String.join("; ", faulty.entrySet().stream()
                    .map(e -> "host " + e.getKey() + " " + e.getValue()).toList())));
            return false;
        }
        Run.Domain old = run.newDomain(randomId(24), randomId(32));
        persist(run);
        // ranks that started must go before the new domain starts (bounded by the fan-out timeout);
        // where run went unanswered a rank may still appear later, so abort there too, in the background
        abortDomain(run.id(), old, attempt.startedUrls());
        if (!attempt.unansweredUrls().isEmpty()) {
            workers.submit(() -> abortDomain(run.id(), old, attempt.unansweredUrls()));
        }
        return !run.state().isFinal();
    }

    private void recordLiveDomain(Run run, List<RankPlacement> placements) {
        try {
            List<String> urls = placements.stream().map(p -> p.endpoint().soapUrl()).distinct().toList();
            store.saveLiveDomain(new RunStore.LiveDomain(run.id(), run.domainId(), run.token(), urls));
        } catch (RuntimeException e) {
            LOG.warn("run {}: {}", run.id(), describe(e));
        }
    }

    private void forgetLiveDomain(Run run) {
        try {
            store.deleteLiveDomain(run.id());
        } catch (RuntimeException e) {
            LOG.warn("run {}: {}", run.id(), describe(e));
        }
    }

    /**
     * Aborts the domains a previous engine left running (recorded live, never ended) and forgets them;
     * called once at start, in the background, each abort bounded by the invoker's timeout.
     */
    public void abortOrphanedDomains() {
        List<RunStore.LiveDomain> orphans = store.liveDomains();
        if (orphans.isEmpty()) {
            return;
        }
        workers.submit(() -> {
            for (RunStore.LiveDomain d : orphans) {
                if (runs.containsKey(d.runId())) {
                    continue; // re-attached to (Reattachment): its domain lives on
                }
                List<RankFanOut.RankCall> calls = new ArrayList<>();
                for (String url : d.serviceUrls()) {
                    RankPlacement target = new RankPlacement(0, "", "", "", new org.mpfl.protocol.Endpoint(url, null, null));
                    calls.add(new RankFanOut.RankCall(0, () -> invoker.abort(target, d.domainId(), d.token())));
                }
                try {
                    fanOut.callAll(calls);
                } catch (RuntimeException e) {
                    LOG.debug("aborting orphaned domain of run {}: {}", d.runId(), describe(e));
                }
                try {
                    store.deleteLiveDomain(d.runId());
                } catch (RuntimeException e) {
                    LOG.warn("run {}: {}", d.runId(), describe(e));
                }
                LOG.info("aborted the domain of run {} left running by a previous engine", d.runId());
            }
        });
    }

    /** Installs missing services on the placed hosts; returns the hosts that could not take them. */
    private List<HostFault> deployMissing(List<RankPlacement> placements) {
        Set<String> done = new LinkedHashSet<>();
        Set<String> failedHosts = new LinkedHashSet<>();
        List<HostFault> faults = new ArrayList<>();
        for (RankPlacement p : placements) {
            if (failedHosts.contains(p.hostId()) || !done.add(p.hostId() + "\u0000" + p.service())) {
                continue;
            }
            Optional<HostInfo> host = registry.host(p.hostId());
            if (host.isEmpty()) {
                failedHosts.add(p.hostId());
                faults.add(new HostFault(p.hostId(), p.rank(), p.endpoint().soapUrl(), "left the registry while the run started", false));
                continue;
            }
            try {
                deployments.ensureDeployed(host.get(), p.service());
            } catch (Exception e) {
                failedHosts.add(p.hostId());
                faults.add(new HostFault(p.hostId(), p.rank(), p.endpoint().soapUrl(), "cannot deploy service '" + p.service()
                        + "': " + describe(e), true));
            }
        }
        return faults;
    }

    private static Map<String, Object> paramsOf(Run run) {
        return run.params();
    }

    static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root && root.getMessage() == null) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    /** Applies events POSTed by ranks of run {@code runId}. */
    public void rankEvents(String runId, List<RankEvent> events) throws UnknownRunException, ForeignEventException {
        Run run = runs.get(runId);
        if (run == null) {
            throw new UnknownRunException(runId);
        }
        for (RankEvent e : events) {
            if (e == null || e.type() == null) {
                continue;
            }
            Run.Outcome outcome = run.apply(e);
            if (outcome == Run.Outcome.FOREIGN) {
                // the run's domain, or one it gave up when it placed its ranks again
                throw new ForeignEventException("event for domain '" + e.domainId() + "' does not belong to run " + runId);
            }
            record(run, e.rank(), "rank", published(e));
            handle(run, outcome, e.rank(), e.domainId());
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
        return m;
    }

    /**
     * What a rank's outcome means for the run.
     *
     * @param domainId the domain the outcome came from (a fault of a domain given up is stale)
     */
    private void handle(Run run, Run.Outcome outcome, int rank, String domainId) {
        switch (outcome) {
            case ALL_DONE -> succeed(run);
            case RANK_FAILED -> {
                RunError error = run.rankError(rank);
                if (!RestartPolicy.infrastructure(error.message())) {
                    fail(run, error);
                    return;
                }
                // a transport failure: give a workflow fault of another rank (which may have caused it,
                // by aborting the domain) a moment to arrive and win
                workers.submit(() -> {
                    settle();
                    Optional<RunError> own = run.workflowFailure(RestartPolicy::infrastructure);
                    if (own.isPresent()) {
                        fail(run, own.get());
                    } else {
                        infrastructureFault(run, domainId, error, Set.of());
                    }
                });
            }
            case ALL_ABORTED -> {
                // give a late FAILED event of the causing rank a moment to arrive and win
                workers.submit(() -> {
                    settle();
                    Optional<RunError> own = run.workflowFailure(RestartPolicy::infrastructure);
                    if (own.isPresent()) {
                        fail(run, own.get());
                        return;
                    }
                    RunError e = run.rankError(rank);
                    RunError error = new RunError(e.rank(), e.location(), e.message() == null ? "domain aborted" : e.message());
                    // every rank aborted and none failed on its own: aborted from outside the workflow
                    infrastructureFault(run, domainId, error, Set.of());
                });
            }
            case RANK_LOST -> {
                RankPlacement p = run.placements().stream().filter(x -> x.rank() == rank).findFirst().orElse(null);
                infrastructureFault(run, domainId, new RunError(rank, p == null ? null : p.endpoint().soapUrl(), "rank " + rank
                        + " is unknown to its host " + (p == null ? "" : p.hostId()) + " (killed from outside?)"), Set.of());
            }
            default -> { }
        }
    }

    private static void settle() {
        try {
            Thread.sleep(RestartPolicy.SETTLE_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * An infrastructure fault of domain {@code domainId} (see {@link RestartPolicy}): restarts the run
     * under a new domain while it has restarts left, fails it with {@code error} otherwise. Stale
     * faults (of a domain the run gave up, or of an ended run) change nothing.
     *
     * @param lostHosts hosts known to be lost (kept out of the new placement)
     */
    private void infrastructureFault(Run run, String domainId, RunError error, Set<String> lostHosts) {
        long faultMs = System.currentTimeMillis();
        Run.RestartDecision d = run.restartOrFail(domainId, randomId(24), randomId(32));
        switch (d.decision()) {
            case STALE -> { }
            case FAIL -> {
                int allowed = run.history().restartsAllowed();
                fail(run, allowed == 0 ? error : new RunError(error.rank(), error.location(), error.message()
                        + " (no restarts left: " + allowed + " of " + allowed + " used)"));
            }
            case RESTART -> {
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("cause", error.message());
                body.put("rank", error.rank());
                body.put("restart", run.history().restartsUsed());
                body.put("allowed", run.history().restartsAllowed());
                body.put("timeMs", faultMs);
                persist(run);
                record(run, null, "restart", body);
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
    private void restart(Run run, Run.Domain old, RunError cause, Set<String> lostHosts, long faultMs) {
        Map<String, String> faulty = new LinkedHashMap<>();
        lostHosts.forEach(h -> faulty.put(h, "(lost: " + cause.message() + ")"));
        abortUnreachable(run.id(), old).forEach(h -> faulty.putIfAbsent(h, "(unreachable when its ranks were aborted)"));
        Launch spec = launches.get(run.id());
        if (spec == null || run.state().isFinal()) {
            return;
        }
        CheckpointStore.Usable from = resumePoint(run, "restart after: " + cause.message(), faultMs);
        launch(run, spec, from, faulty);
    }

    /**
     * Where the next attempt resumes: the newest complete checkpoint whose parts all check out (newer
     * ones that do not are marked unusable and the attempt's note says so); checkpoints after it are
     * discarded (the new attempt takes them again).
     */
    private CheckpointStore.Usable resumePoint(Run run, String cause, Long faultMs) {
        Launch spec = launches.get(run.id());
        int ranks = spec.slices().stream().mapToInt(ProcessSlice::ranks).sum();
        CheckpointStore.Selection sel = checkpoints.latestUsable(run.id(), ranks);
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
            LOG.warn("run {}: cannot discard checkpoints after the one resumed from: {}", run.id(), describe(e));
        }
        run.history().next(cause, from == null ? null : from.seq(), note, faultMs);
        run.touch();
        return from;
    }

    /**
     * Aborts a domain at every service URL and returns the hosts that could not be reached (no answer,
     * or a transport failure rather than a SOAP answer): they are lost for the next placement.
     */
    private Set<String> abortUnreachable(String runId, Run.Domain domain) {
        Map<String, RankPlacement> byUrl = new LinkedHashMap<>();
        domain.placements().forEach(p -> byUrl.putIfAbsent(p.endpoint().soapUrl(), p));
        List<RankFanOut.RankCall> calls = byUrl.values().stream()
                .map(p -> new RankFanOut.RankCall(p.rank(), () -> invoker.abort(p, domain.id(), domain.token()))).toList();
        try {
            fanOut.callAll(calls);
        } catch (RuntimeException e) {
            LOG.warn("aborting the domain of run {}: {}", runId, describe(e));
        }
        Set<String> unreachable = new LinkedHashSet<>();
        List<RankPlacement> targets = List.copyOf(byUrl.values());
        for (int i = 0; i < calls.size(); i++) {
            RankFanOut.RankCall c = calls.get(i);
            if (!c.done() || transportFailure(c.failure())) {
                unreachable.add(targets.get(i).hostId());
            }
        }
        return unreachable;
    }

    private static boolean transportFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof MpiwsClient.MpiwsCallException e) {
                return e.fault() == null;
            }
            if (t instanceof java.io.IOException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Starts a new attempt of a FAILED or CANCELLED run right after its newest usable checkpoint (from
     * the start without one), under a new domain, on hosts placed afresh.
     *
     * @throws UnknownRunException if there is no such run
     * @throws ResumeRefusedException if the run is in another state, or this engine no longer holds it
     */
    public Run resume(String runId) throws UnknownRunException, ResumeRefusedException {
        Run run = runs.get(runId);
        Launch spec = launches.get(runId);
        if (run == null || spec == null) {
            if (store.run(runId).isPresent()) {
                throw new ResumeRefusedException("run " + runId + " is no longer held by this engine (it ended before the engine "
                        + "restarted, or long ago); it cannot be resumed");
            }
            throw new UnknownRunException(runId);
        }
        try {
            run.reopen(randomId(24), randomId(32));
        } catch (IllegalStateException e) {
            throw new ResumeRefusedException(e.getMessage());
        }
        CheckpointStore.Usable from = resumePoint(run, "resumed by user", null);
        persist(run);
        record(run, null, "run", stateEvent(run));
        LOG.info("run {} ({}) resumed {}", run.id(), run.workflow(), from == null ? "from the start" : "from checkpoint " + from.seq());
        workers.submit(() -> launch(run, spec, from, new LinkedHashMap<>()));
        return run;
    }

    /** A resume that the run's state does not allow. */
    public static final class ResumeRefusedException extends Exception {
        private static final long serialVersionUID = 1L;

        public ResumeRefusedException(String message) {
            super(message);
        }
    }

    /** Where ranks' checkpoint parts are admitted and stored. */
    public CheckpointIntake checkpoints() {
        return intake;
    }

    private void checkpointStored(Run run, CheckpointStore.Checkpoint c) {
        if (c.complete()) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("checkpoint", c.seq());
            body.put("attempt", c.attempt());
            body.put("bytes", c.bytes());
            body.put("spanMs", c.lastMs() - c.firstMs());
            body.put("timeMs", c.lastMs());
            record(run, null, "checkpoint", body);
        }
    }

    private void succeed(Run run) {
        // a rank may report DONE before every rank has accepted run; that is still a success
        run.markRunning(System.currentTimeMillis(), false);
        if (run.finish(RunState.SUCCEEDED, null, System.currentTimeMillis())) {
            forgetLiveDomain(run);
            try {
                // a succeeded run is never resumed: its checkpoints are of no further use
                checkpoints.delete(run.id());
            } catch (java.io.IOException | RuntimeException e) {
                LOG.warn("run {}: cannot delete its checkpoints: {}", run.id(), describe(e));
            }
            persist(run);
            record(run, null, "run", stateEvent(run));
            LOG.info("run {} ({}) succeeded", run.id(), run.workflow());
        }
    }

    /** Fails a run (once) and aborts its domain on every rank. */
    void fail(Run run, RunError error) {
        if (run.finish(RunState.FAILED, error, System.currentTimeMillis())) {
            LOG.info("run {} ({}) failed: {}", run.id(), run.workflow(), error.message());
            persist(run);
            record(run, null, "run", stateEvent(run));
            Run.Domain domain = run.domain();
            workers.submit(() -> abortDomain(run, domain));
        }
    }

    /** Cancels a run; {@code false} when it had already ended. */
    public boolean cancel(String runId) throws UnknownRunException {
        Run run = runs.get(runId);
        if (run == null) {
            if (store.run(runId).isPresent()) {
                return false;
            }
            throw new UnknownRunException(runId);
        }
        if (run.finish(RunState.CANCELLED, new RunError(null, null, "cancelled by user"), System.currentTimeMillis())) {
            persist(run);
            record(run, null, "run", stateEvent(run));
            Run.Domain domain = run.domain();
            workers.submit(() -> abortDomain(run, domain));
            return true;
        }
        return false;
    }

    private void abortDomain(Run run) {
        abortDomain(run, run.domain());
    }

    /** Aborts a domain of the run (captured when the run ended: a resume may have given it a new one since). */
    private void abortDomain(Run run, Run.Domain domain) {
        abortDomain(run.id(), domain, null);
        if (domain.id().equals(run.domainId())) {
            forgetLiveDomain(run);
        }
    }

    /**
     * Aborts a domain at its service URLs (all when {@code onlyUrls} is {@code null}); bounded by the
     * fan-out timeout.
     */
    private void abortDomain(String runId, Run.Domain domain, Set<String> onlyUrls) {
        // abort is per service instance and domain, so one call per distinct service URL is enough
        Map<String, RankPlacement> byUrl = new LinkedHashMap<>();
        domain.placements().stream().filter(p -> onlyUrls == null || onlyUrls.contains(p.endpoint().soapUrl()))
                .forEach(p -> byUrl.putIfAbsent(p.endpoint().soapUrl(), p));
        List<RankFanOut.RankCall> calls = byUrl.values().stream()
                .map(p -> new RankFanOut.RankCall(p.rank(), () -> invoker.abort(p, domain.id(), domain.token()))).toList();
        try {
            fanOut.callAll(calls);
        } catch (RuntimeException e) {
            LOG.warn("aborting the domain of run {}: {}", runId, describe(e));
        }
        for (RankFanOut.RankCall c : calls) {
            if (c.failure() != null || !c.done()) {
                LOG.debug("abort at rank {} of run {}: {}", c.rank(), runId,
                        c.done() ? describe(c.failure()) : "no answer");
            }
        }
    }

    private void hostLost(HostInfo host) {
        for (Run run : runs.values()) {
            if (run.state().isFinal()) {
                continue;
            }
            Run.Domain domain = run.domain();
            domain.placements().stream().filter(p -> p.hostId().equals(host.hostId())).findFirst().ifPresent(p ->
                    infrastructureFault(run, domain.id(), new RunError(p.rank(), host.soapUrl(), "service host " + host.hostId()
                            + " at " + host.soapUrl() + " was lost (rank " + p.rank() + " ran there)"), Set.of(host.hostId())));
        }
    }

    private void tick() {
        try {
            registry.expire();
            long now = System.currentTimeMillis();
            for (Run run : runs.values()) {
                if (run.state() == RunState.RUNNING && !run.reattaching()) {
                    run.checkDeadlock(now, settings.deadlockGrace().toMillis()).ifPresent(err -> {
                        // ranks blocked on a peer whose host has stopped answering are not deadlocked:
                        // that is a lost host (an infrastructure fault), found by the status polls
                        if (!anyHostSilent(run)) {
                            fail(run, err);
                        }
                    });
                    pollStatus(run, now);
                }
                if (run.takeDirty()) {
                    persist(run);
                }
            }
            forgetOldRuns(now);
        } catch (RuntimeException e) {
            LOG.warn("run ticker: {}", describe(e), e);
        }
    }

    private final Map<String, Long> lastPoll = new ConcurrentHashMap<>();

    /** Whether a host of the run's current ranks missed its last {@code status} poll or left the registry. */
    private boolean anyHostSilent(Run run) {
        return run.placements().stream().map(RankPlacement::hostId).distinct().anyMatch(h ->
                hostFailures.getOrDefault(h, new AtomicInteger()).get() > 0 || registry.host(h).isEmpty());
    }

    /** Finished runs kept in memory (for late events and fast reads) before only the store has them. */
    static final int FINISHED_IN_MEMORY = 500;
    /** How long a finished run stays in memory at least (late OUTPUT/COUNTERS events still apply). */
    static final long FINISHED_MIN_AGE_MS = 60_000;

    private void forgetOldRuns(long now) {
        List<Run> finished = runs.values().stream().filter(r -> r.state().isFinal()).toList();
        if (finished.size() <= FINISHED_IN_MEMORY) {
            return;
        }
        finished.stream().filter(r -> now - r.endedMs() > FINISHED_MIN_AGE_MS)
                .sorted(java.util.Comparator.comparingLong(Run::endedMs))
                .limit(finished.size() - FINISHED_IN_MEMORY)
                .forEach(r -> {
                    if (r.takeDirty()) {
                        persist(r);
                    }
                    runs.remove(r.id());
                    launches.remove(r.id());
                    polling.remove(r.id());
                    lastPoll.remove(r.id());
                    listeners.remove(r.id());
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
                    try {
                        RankStatus s = invoker.status(p, domain.id());
                        hostOk.put(p.hostId(), true);
                        handle(run, run.applyStatus(domain.id(), p.rank(), s, System.currentTimeMillis()), p.rank(), domain.id());
                    } catch (UnsupportedOperationException e) {
                        return;
                    } catch (Exception e) {
                        hostOk.put(p.hostId(), false);
                        LOG.debug("status of rank {} of run {}: {}", p.rank(), run.id(), describe(e));
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
                            registry.remove(host, true);
                        } else {
                            domain.placements().stream().filter(p -> p.hostId().equals(host)).findFirst().ifPresent(p ->
                                    infrastructureFault(run, domain.id(), new RunError(p.rank(), p.endpoint().soapUrl(),
                                            "service host " + host + " does not answer (rank " + p.rank() + " ran there)"),
                                            Set.of(host)));
                        }
                    }
                });
            } finally {
                busy.set(false);
            }
        });
    }

    void persist(Run run) {
        try {
            Map<String, Object> detail = run.toJson();
            store.saveRun(run.id(), run.workflow(), run.state().name(), (Long) detail.get("createdMs"), detail);
        } catch (RuntimeException e) {
            LOG.error("cannot persist run {}: {}", run.id(), describe(e));
        }
    }

    private static Map<String, Object> stateEvent(Run run) {
        return run.summaryJson();
    }

    void record(Run run, Integer rank, String kind, Object body) {
        long id;
        try {
            id = store.appendEvent(run.id(), rank, System.currentTimeMillis(), kind, body);
        } catch (RuntimeException e) {
            LOG.error("cannot store an event of run {}: {}", run.id(), describe(e));
            id = -1;
        }
        for (RunListener l : listeners.getOrDefault(run.id(), List.of())) {
            try {
                l.onEvent(id, kind, body);
            } catch (RuntimeException e) {
                LOG.debug("run listener failed: {}", describe(e));
            }
        }
    }

    /** Subscribes to a run's events; close the result to unsubscribe. */
    public AutoCloseable listen(String runId, RunListener listener) {
        listeners.computeIfAbsent(runId, k -> new CopyOnWriteArrayList<>()).add(listener);
        return () -> listeners.getOrDefault(runId, new ArrayList<>()).remove(listener);
    }

    /**
     * Cancels a run, telling what became of it.
     *
     * @throws UnknownRunException if there is no such run
     */
    public Cancellation cancelRun(String runId) throws UnknownRunException {
        boolean cancelled = cancel(runId);
        return new Cancellation(runId, cancelled, detail(runId).map(d -> d.path("state").asText()).orElse(null));
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

    /**
     * A run's event log: stored events after event {@code afterId}, at most {@code limit}.
     *
     * @throws UnknownRunException if there is no such run
     */
    public List<RunStore.StoredEvent> log(String runId, long afterId, int limit) throws UnknownRunException {
        if (detail(runId).isEmpty()) {
            throw new UnknownRunException(runId);
        }
        return store.events(runId, afterId, limit);
    }

    /**
     * The run as Chrome Trace Event JSON ({@link RunTrace}), from its detail and all its stored events
     * (read in pages; at most {@link RunTrace#maxEvents()} events).
     */
    public Map<String, Object> trace(String runId) throws UnknownRunException {
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

    /** A run's detail: live if this engine runs it, else as stored. */
    public Optional<JsonNode> detail(String runId) {
        Run run = runs.get(runId);
        if (run != null) {
            return Optional.of(Json.MAPPER.valueToTree(run.toJson()));
        }
        return store.run(runId);
    }

    /** Takes over a run re-attached to after an engine restart ({@link Reattachment}); before the API serves. */
    void adopt(Run run) {
        runs.put(run.id(), run);
    }

    /** Applies a {@code status} answer of one rank as the status poller does (ending the run if it ended). */
    void applyStatus(Run run, int rank, RankStatus status) {
        String domain = run.domain().id();
        handle(run, run.applyStatus(domain, rank, status, System.currentTimeMillis()), rank, domain);
    }

    /** A live run of this engine instance. */
    public Optional<Run> live(String runId) {
        return Optional.ofNullable(runs.get(runId));
    }

    /** Runs, newest first (live state for this engine's runs, stored otherwise). */
    public List<JsonNode> list(String state, int limit) {
        List<JsonNode> stored = store.runs(state, limit);
        List<JsonNode> out = new ArrayList<>(stored.size());
        for (JsonNode n : stored) {
            Run live = runs.get(n.path("id").asText());
            out.add(live == null ? n : Json.MAPPER.valueToTree(live.summaryJson()));
        }
        return out;
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        for (Run run : runs.values()) {
            if (run.takeDirty()) {
                persist(run);
            }
        }
        workers.shutdownNow();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS);
            ticker.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** No run with that id. */
    public static final class UnknownRunException extends Exception {
        private static final long serialVersionUID = 1L;

        public UnknownRunException(String runId) {
            super("no run '" + runId + "'");
        }
    }

    /** An event whose domain does not match the run (a stray or forged event). */
    public static final class ForeignEventException extends Exception {
        private static final long serialVersionUID = 1L;

        public ForeignEventException(String message) {
            super(message);
        }
    }
}
