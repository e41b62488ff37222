package org.mpfl.engine.run;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.mpfl.engine.deploy.DeploymentService;
import org.mpfl.engine.registry.HostInfo;
import org.mpfl.engine.registry.HostRegistry;
import org.mpfl.engine.registry.Quarantine;
import org.mpfl.engine.run.checkpoint.CheckpointStore;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.mpfl.protocol.RunRequest;
import org.mpfl.protocol.RunRequest.ProcessSlice;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The placement room of the run service: places a run's ranks on hosts ({@link SitePlacement}: within one
 * site while capacity allows, then {@link Placement}), deploys
 * the services they lack, records the domain as live and fans {@code run} out to every rank, until
 * every rank accepted it ({@link Launched#started}).
 *
 * <p>A host that refuses a deployment or {@code run}, or does not answer {@code run} within the
 * fan-out timeout, does not fail the run: it is quarantined (see
 * {@link HostRegistry#quarantine(String, String, java.time.Duration, java.time.Duration)}), the run gets
 * a {@code placement} event and a {@code hostFaults} entry, the half-started domain is aborted and the
 * ranks are placed again on other hosts under a new domain, at most {@link RunSettings#maxReplacements}
 * times. The launch fails only when no host is left for some process ("no capacity: …", naming every
 * host kept out and why) or the re-placements are used up; what then becomes of the run is the
 * lifecycle's decision, not this room's.
 */
final class RunPlacer {
    private static final Logger LOG = LoggerFactory.getLogger(RunPlacer.class);

    private final HostRegistry registry;
    private final DeploymentService deployments;
    private final RankInvoker invoker;
    private final RankFanOut fanOut;
    private final RunSettings settings;
    private final Supplier<String> engineUrl;
    private final RunJournal journal;
    private final RunDomains domains;
    private final ExecutorService workers;
    private final LiveRuns runs;

    RunPlacer(HostRegistry registry, DeploymentService deployments, RankInvoker invoker, RankFanOut fanOut, RunSettings settings,
              Supplier<String> engineUrl, RunJournal journal, RunDomains domains, ExecutorService workers, LiveRuns runs) {
        this.runs = runs;
        this.registry = registry;
        this.deployments = deployments;
        this.invoker = invoker;
        this.fanOut = fanOut;
        this.settings = settings;
        this.engineUrl = engineUrl;
        this.journal = journal;
        this.domains = domains;
        this.workers = workers;
    }

    /**
     * How a launch ended.
     *
     * @param failure why the run must fail ({@link Kind#FAILED} only)
     * @param domainId the domain whose ranks all accepted {@code run} ({@link Kind#STARTED} only)
     */
    record Launched(Kind kind, RunError failure, String domainId) {
        enum Kind {
            /** Every rank of the current domain accepted {@code run}. */
            STARTED,
            /** No domain could be started: the run must fail with {@code failure}. */
            FAILED,
            /**
             * The run ended (cancelled, failed or succeeded) while it was being started, or the attempt was given up by
             * a restart meanwhile (the restart launches the next one).
             */
            ENDED,
            /** After host faults, the ranks no longer fit in the free capacity: the run goes back to the queue. */
            QUEUED,
            /**
             * The engine is stopping: the run stays as it is, unfinished, for the engine started next on the same data
             * (which fails it as "engine restarted", as any run an engine left while starting it); the hosts'
             * answers, or their absence, say nothing about the run or the hosts.
             */
            STOPPED
        }

        static final Launched ENDED = new Launched(Kind.ENDED, null, null);
        static final Launched STOPPED = new Launched(Kind.STOPPED, null, null);

        static Launched started(Run.Domain domain) {
            return new Launched(Kind.STARTED, null, domain.id());
        }

        static Launched failed(RunError why) {
            return new Launched(Kind.FAILED, why, null);
        }

        static final Launched QUEUED = new Launched(Kind.QUEUED, null, null);
    }

    /**
     * What {@link #reserve} found: the run's placements (recorded on the run, so its ranks count as
     * taken) with the domain they are to be started under, or why it must wait, or why it can never be
     * placed as things are.
     *
     * @param domain    the attempt's domain and placements, or {@code null} when the run was not placed
     * @param leftQueue whether the run was QUEUED until now (a state event is due)
     */
    record Reservation(Run.Domain domain, String waitReason, RunError failure, boolean leftQueue) {
        /** The placements, or {@code null} when the run was not placed. */
        List<RankPlacement> placements() {
            return domain == null ? null : domain.placements();
        }
    }

    /**
     * When the wait for the relays of a given-up attempt's hosts ends, counted from now: the engine's relay-return
     * bound ({@link org.mpfl.engine.registry.Relays#relayReturn}). A restart's wait for the relays
     * ({@link #awaitRelays}) and its retried abort of the hosts behind them ({@link RunDomains#abortThroughRelays})
     * share this one deadline, so that the two together wait no longer than the bound.
     */
    long relayReturnDeadline() {
        return System.nanoTime() + registry.relays().relayReturn().toNanos();
    }

    /**
     * Waits, until {@code deadlineNanos} ({@link #relayReturnDeadline}), until every relay the hosts of
     * {@code placements} reach the other sites through is registered again (a restart after a lost relay: the hosts
     * behind it cannot be aborted nor reached across sites before it is back). Returns the relays still missing.
     */
    List<String> awaitRelays(List<RankPlacement> placements, long deadlineNanos) {
        java.util.Set<String> needed = new java.util.TreeSet<>();
        placements.forEach(p -> registry.relays().relayOf(p.hostId()).ifPresent(needed::add));
        List<String> missing = needed.stream().filter(r -> !registry.relays().live(r)).toList();
        while (!missing.isEmpty() && System.nanoTime() - deadlineNanos < 0) {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            missing = needed.stream().filter(r -> !registry.relays().live(r)).toList();
        }
        return missing;
    }

    /** The host registry placement works from (which processes the hosts are now: {@link FaultyHosts}). */
    HostRegistry registry() {
        return registry;
    }

    /** Says in the run record (detail and log) how each pair of the placed hosts connects, and why. */
    private void recordConnections(Run run, List<RankPlacement> placements) {
        Map<String, String> sites = new java.util.LinkedHashMap<>();
        placements.forEach(p -> sites.putIfAbsent(p.hostId(), p.endpoint().site()));
        List<Map<String, Object>> methods = registry.relays().connections(sites);
        run.connections(methods);
        List<String> notDirect = methods.stream().filter(m -> !"direct".equals(m.get("method")))
                .map(m -> m.get("from") + " -> " + m.get("to") + ": " + m.get("why")).toList();
        if (!notDirect.isEmpty()) {
            long relayed = methods.stream().filter(m -> "relay".equals(m.get("method"))).count();
            Map<String, Object> body = new java.util.LinkedHashMap<>();
            body.put("action", "connections");
            body.put("message", "attempt " + run.attempts() + ": " + relayed + " of " + methods.size()
                    + " host pairs through a relay, " + (notDirect.size() - relayed) + " reverse (" + String.join("; ", notDirect)
                    + "), the others direct");
            body.put("timeMs", System.currentTimeMillis());
            journal.record(run, null, "placement", body);
            LOG.info("run {}: {}", run.id(), body.get("message"));
        }
    }

    /**
     * Places all of a run's ranks in the free capacity, or none (gang placement). Under one lock for
     * the whole engine, so that two runs never take the same free places: the ranks every other live
     * run holds (placed, starting or running, re-attached too) are counted per host, and the placements
     * found are recorded on the run ({@link Run#placed}) before the lock is let go.
     *
     * @param faulty hosts this run must not be placed on, with why
     */
    synchronized Reservation reserve(Run run, LaunchSpec spec, FaultyHosts faulty) {
        Map<String, String> services = spec.services();
        Map<String, String> plainType = new HashMap<>();
        spec.slices().forEach(s -> plainType.put(services.get(s.name()), s.service()));
        // a static host-file entry has what was installed on it by hand, under the plain type names
        BiFunction<HostInfo, String, String> onHost =
                (h, service) -> h.staticEntry() ? plainType.getOrDefault(service, service) : service;
        Map<String, Integer> busy = new HashMap<>();
        for (Run other : runs.all()) {
            RunState state = other.state();
            if (other != run && !state.isFinal() && state != RunState.QUEUED) {
                other.placements().forEach(p -> busy.merge(p.hostId(), 1, Integer::sum));
            }
        }
        try {
            SitePlacement.Placed placed = SitePlacement.place(spec.layout(), services, registry.hosts(),
                    // only services the run's project may use: matched by name alone, a plan could name another
                    // project's deployed service and run its code (placed nowhere, as a service that does not exist)
                    (h, service) -> deployments.usableBy(onHost.apply(h, service), spec.project())
                            && (h.offers(onHost.apply(h, service)) || (!h.staticEntry() && deployments.hasArchive(service))),
                    unavailable(faulty), onHost, new Placement.Load(busy, spec.queueing().oversubscribe()), spec.queueing().sites());
            List<RankPlacement> placements = placed.ranks();
            if (run.state().isFinal()) {
                return new Reservation(null, null, null, false);
            }
            boolean left = run.leaveQueue();
            Run.Domain domain = run.placed(placements, placed.reason() == null ? null : placed.toJson());
            recordConnections(run, placements);
            return new Reservation(domain, null, null, left);
        } catch (Placement.NoRoomException e) {
            return new Reservation(null, e.getMessage(), null, false);
        } catch (Placement.NoCapacityException e) {
            // hosts behind a relay that has just come back register there again within seconds (a restart after the
            // relay's loss comes right then): the run waits for them, in the queue and bounded by its queue timeout,
            // as for room, rather than failing for want of hosts that are on their way back
            boolean returning = e.keptOut().stream().anyMatch(h -> registry.relays().unregisteredAt(h).isPresent());
            return returning ? new Reservation(null, e.getMessage(), null, false)
                    : new Reservation(null, null, new RunError(null, null, e.getMessage()), false);
        } catch (Placement.PlacementException e) {
            return new Reservation(null, null, new RunError(null, null, e.getMessage()), false);
        }
    }

    /**
     * Deploys and starts a run on the places {@link #reserve}d for it; when hosts fail the attempt before
     * the domain started (deploy refused, {@code run} refused or unanswered), quarantines them and tries
     * again on other hosts with a new domain, at most {@link RunSettings#maxReplacements} times (back to
     * the queue when the rest no longer fits).
     *
     * <p>Each attempt works on the domain its placements were recorded under, never on whatever domain the run
     * has by then: a host lost while the attempt's ranks are being started restarts the run from the lifecycle
     * ({@link RunLifecycle#infrastructureFault}) under a new domain while this fan-out still waits. The attempt
     * then gives way: it aborts its own domain once more (a rank whose {@code run} was answered after the
     * restart's abort would otherwise run on beside the restart's) and ends, without recording host faults or
     * placing the ranks again: the restart places them, once.
     *
     * @param reserved the run's placements and their domain from {@link #reserve} ({@code null}: reserve them first)
     * @param resume the checkpoint the ranks resume from, or {@code null} (from the start)
     * @param faulty hosts that failed this run, with why: kept out of its later attempts even if their
     *               quarantine ends, until they come back as a new process (updated)
     */
    Launched launch(Run run, LaunchSpec spec, CheckpointStore.Usable resume, FaultyHosts faulty, Run.Domain reserved) {
        List<ProcessSlice> slices = spec.slices();
        try {
            run.markStarting(System.currentTimeMillis());
            int attemptsBefore = run.attempts() - (reserved == null ? 0 : 1);
            Run.Domain domain = reserved;
            for (;;) {
                if (domain == null) {
                    Reservation r = reserve(run, spec, faulty);
                    if (r.failure() != null) {
                        return Launched.failed(r.failure());
                    }
                    if (r.waitReason() != null) {
                        return Launched.QUEUED;
                    }
                    if (r.domain() == null) {
                        return Launched.ENDED;
                    }
                    domain = r.domain();
                }
                if (!run.current(domain.id())) {
                    return Launched.ENDED; // given up before a rank of it was started: the restart that did so goes on
                }
                domains.live(run, domain);
                List<HostFault> faults = deployMissing(domain.placements());
                if (run.state().isFinal()) {
                    return Launched.ENDED; // cancelled while deploying: nothing of this domain runs yet
                }
                Attempt attempt = faults.isEmpty() ? start(run, domain, slices, resume) : new Attempt(faults, Set.of(), Set.of());
                if (stopping()) {
                    return stopped(run);
                }
                if (attempt.ended()) {
                    return Launched.ENDED;
                }
                if (!run.current(domain.id())) {
                    giveWay(run, domain, attempt);
                    return Launched.ENDED;
                }
                if (attempt.started()) {
                    return Launched.started(domain);
                }
                Optional<Launched> givenUp = placeAgain(run, domain, attempt, faulty, run.attempts() - attemptsBefore);
                if (givenUp.isPresent()) {
                    return givenUp.get();
                }
                if (run.state().isFinal()) {
                    return Launched.ENDED;
                }
                domain = null;
            }
        } catch (RuntimeException e) {
            if (stopping()) {
                return stopped(run); // the stop interrupted this thread, which ended the fan-out's wait
            }
            LOG.error("run {} could not be started", run.id(), e);
            return Launched.failed(new RunError(null, null, "the engine could not start the run: " + Failures.describe(e)));
        }
    }

    /** Whether the engine is stopping: the run service stops its workers first (RunService#close). */
    private boolean stopping() {
        return workers.isShutdown();
    }

    private static Launched stopped(Run run) {
        LOG.info("run {} ({}): the engine stopped while starting its ranks; it stays unfinished for the engine started next",
                run.id(), run.workflow());
        return Launched.STOPPED;
    }

    /**
     * A host that failed a start attempt before the domain started.
     *
     * @param quarantine whether the host is to blame (a host that left the registry is not quarantined)
     */
    record HostFault(String hostId, Integer rank, String location, String reason, boolean quarantine) {
        /** Longest reason kept: a host's answer is quoted in it and a rogue host could send anything. */
        static final int MAX_REASON = 300;

        HostFault {
            if (reason.length() > MAX_REASON) {
                reason = reason.substring(0, MAX_REASON) + "…";
            }
        }
    }

    /**
     * One start attempt's end: every rank accepted {@code run} ({@code faults} empty, not ended), the run
     * ended meanwhile, or the attempt is given up: the host faults, and the service URLs where ranks of
     * its domain were started (they must be aborted) or may still start (their {@code run} went unanswered).
     */
    private record Attempt(List<HostFault> faults, Set<String> startedUrls, Set<String> unansweredUrls, boolean ended) {
        Attempt(List<HostFault> faults, Set<String> startedUrls, Set<String> unansweredUrls) {
            this(faults, startedUrls, unansweredUrls, false);
        }

        static final Attempt ENDED = new Attempt(List.of(), Set.of(), Set.of(), true);

        boolean started() {
            return !ended && faults.isEmpty();
        }
    }

    /** Hosts not to place on: those quarantined now and those that failed this run, with why. */
    private Map<String, String> unavailable(FaultyHosts faultyForThisRun) {
        Map<String, String> out = new LinkedHashMap<>();
        for (HostInfo h : registry.hosts()) {
            registry.quarantine(h.hostId()).filter(q -> registry.quarantined(h.hostId()))
                    .ifPresent(q -> out.put(h.hostId(), quarantineText(q.untilMs(), q.reason())));
        }
        faultyForThisRun.active(registry).forEach(out::putIfAbsent);
        // healthy, but reached only through a relay that is lost now (or never announced, or back without it yet):
        // left out, not quarantined, until it is back
        for (HostInfo h : registry.hosts()) {
            registry.relays().unreachable(h.hostId()).ifPresent(why -> out.putIfAbsent(h.hostId(), why));
        }
        return out;
    }

    /** Whether {@code hostId} is reached only through a relay that is lost now. */
    boolean behindLostRelay(String hostId) {
        return registry.relays().lostRelayOf(hostId).isPresent();
    }

    private static String quarantineText(long untilMs, String reason) {
        return "quarantined until " + java.time.Instant.ofEpochMilli(untilMs) + " (" + reason + ")";
    }

    /**
     * An attempt given up by a restart while its ranks were being started: the restart aborted its domain, but a
     * rank whose {@code run} was answered after that abort runs on, so the domain is aborted once more where ranks
     * started (and, in the background, where {@code run} went unanswered and a rank may still appear).
     */
    private void giveWay(Run run, Run.Domain domain, Attempt attempt) {
        LOG.info("run {}: an attempt was given up by a restart while its ranks started; aborting the ranks it started",
                run.id());
        domains.abort(run.id(), domain, attempt.startedUrls());
        if (!attempt.unansweredUrls().isEmpty()) {
            workers.submit(() -> domains.abort(run.id(), domain, attempt.unansweredUrls()));
        }
    }

    /** Fans {@code run} out to every rank of the attempt's domain. */
    private Attempt start(Run run, Run.Domain domain, List<ProcessSlice> slices, CheckpointStore.Usable resume) {
        List<RankPlacement> placements = domain.placements();
        // each host's relay goes with its endpoint: a peer that accepts inbound connections asks it there to connect out
        List<Endpoint> endpoints = placements.stream()
                .map(p -> p.endpoint().withRelay(registry.relays().relayOf(p.hostId()).orElse(null))).toList();
        String callback = engineUrl.get() + "/api/runs/" + run.id() + "/ranks";
        List<RankFanOut.RankCall> calls = new ArrayList<>();
        for (RankPlacement p : placements) {
            RunRequest req = new RunRequest(domain.id(), p.rank(), endpoints, slices, run.params(), domain.token(),
                    callback, settings.transport(),
                    resume == null ? null : new RunRequest.Resume(resume.seq(), resume.parts().get(p.rank())));
            calls.add(new RankFanOut.RankCall(p.rank(), () -> invoker.run(p, req)));
        }
        fanOut.callAll(calls);
        if (stopping()) {
            return Attempt.ENDED; // no probe of hosts whose calls the stop cut short: the caller sees the stop too
        }
        if (run.state() == RunState.SUCCEEDED && calls.stream().allMatch(c -> c.done() && c.failure() == null)) {
            // every rank ended before the fan-out saw the last acceptance: the start-up still ended now
            // (startupMs of a run is never missing because its ranks were quick)
            run.markRunning(System.currentTimeMillis(), true);
            journal.persist(run);
        }
        if (run.state().isFinal()) {
            // cancelled or failed while ranks were being started: the abort sent then may have
            // missed ranks that were created after it, so abort once more now that all are out
            // (a run that succeeded meanwhile has no rank left to abort, as after any success: its
            // needless abort also raced with a 'run --local' that stops its engine at the result)
            if (run.state() != RunState.SUCCEEDED) {
                domains.abortEnded(run, domain);
            }
            return Attempt.ENDED;
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
                faults.add(unanswered(p, domain));
            } else if (c.failure() != null) {
                faults.add(new HostFault(p.hostId(), c.rank(), url, "rank " + c.rank() + " refused run: "
                        + Failures.describe(c.failure()), true));
            } else {
                started.add(url);
            }
        }
        Set<String> faultyHosts = new LinkedHashSet<>();
        faults.forEach(f -> faultyHosts.add(f.hostId()));
        placements.stream().map(RankPlacement::hostId).filter(h -> !faultyHosts.contains(h)).distinct()
                .forEach(registry::forgive);
        // every rank's service URL is in started or unanswered: an attempt a restart gave up meanwhile aborts them
        return new Attempt(faults, started, unanswered);
    }

    /**
     * A rank whose host did not accept {@code run} in time: quarantined only when the host does not
     * answer a health probe either. One that answers is slow (e.g. busy with strangers' connections,
     * docs/security.md "Slow and flooding clients"), not faulty: quarantining it would let anyone on
     * the network take hosts out of service; the run record says what was seen instead.
     */
    private HostFault unanswered(RankPlacement p, Run.Domain domain) {
        long t0 = System.nanoTime();
        boolean answers = invoker.answersHealthProbe(p, domain.id());
        long probeMs = (System.nanoTime() - t0) / 1_000_000;
        String slow = "rank " + p.rank() + " did not accept run within " + settings.fanOutTimeout().toSeconds() + " s";
        return answers
                ? new HostFault(p.hostId(), p.rank(), p.endpoint().soapUrl(), slow + " but host " + p.hostId()
                        + " answered its health probe (" + probeMs + " ms): slow, not quarantined", false)
                : new HostFault(p.hostId(), p.rank(), p.endpoint().soapUrl(), slow
                        + " and host " + p.hostId() + " did not answer its health probe", true);
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
     * @param domain     the attempt's domain
     * @param faulty     this run's faulty hosts so far (updated)
     * @param placements how many placements this launch has tried
     * @return how the launch ends: failed (the re-placements are used up), or ended (a restart gave the attempt up
     *         meanwhile); empty to place again
     */
    private Optional<Launched> placeAgain(Run run, Run.Domain domain, Attempt attempt, FaultyHosts faulty, int placements) {
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
            faulty.put(registry, f.hostId(), null, why);
            body.put("action", again ? "placing again" : "gave up");
            body.put("message", "attempt " + run.attempts() + ": host " + f.hostId() + " " + why + "; "
                    + (again ? "placing the ranks again without it" : "no more placements (at most "
                    + settings.maxReplacements() + " re-placements per run)"));
            body.put("timeMs", System.currentTimeMillis());
            run.hostFault(body);
            journal.record(run, f.rank(), "placement", body);
            LOG.warn("run {}: {}", run.id(), body.get("message"));
        }
        if (!again) {
            HostFault first = attempt.faults().get(0);
            return Optional.of(Launched.failed(new RunError(first.rank(), first.location(), "could not start the run after "
                    + placements + " placements: " + String.join("; ", faulty.reasons().entrySet().stream()
                    .map(e -> "host " + e.getKey() + " " + e.getValue()).toList()))));
        }
        Optional<Run.Domain> given = run.newDomainAfter(domain.id(), RandomIds.domainId(), RandomIds.domainToken());
        if (given.isEmpty()) {
            giveWay(run, domain, attempt); // a restart took over between the check and now
            return Optional.of(Launched.ENDED);
        }
        Run.Domain old = given.get();
        journal.persist(run);
        // ranks that started must go before the new domain starts (bounded by the fan-out timeout);
        // where run went unanswered a rank may still appear later, so abort there too, in the background
        domains.abort(run.id(), old, attempt.startedUrls());
        if (!attempt.unansweredUrls().isEmpty()) {
            workers.submit(() -> domains.abort(run.id(), old, attempt.unansweredUrls()));
        }
        return Optional.empty();
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
                        + "': " + Failures.describe(e), true));
            }
        }
        return faults;
    }
}
