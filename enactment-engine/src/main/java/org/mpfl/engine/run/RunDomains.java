package org.mpfl.engine.run;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.mpfl.engine.registry.Relays;
import org.mpfl.engine.store.LiveDomainStore;
import org.mpfl.protocol.Endpoint;
import org.mpfl.protocol.MpiwsClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's domains on the hosts: recorded as live while they may have ranks (so that a restarted engine
 * can re-attach to them or abort them) and aborted through one path, {@link #abort}, whoever asks —
 * the lifecycle when a run ends or restarts, placement when it gives up a half-started domain, the
 * engine at start for domains its predecessor left running.
 *
 * <p>An engine stopping cuts the abort calls under way short (their answers no longer matter to it); a
 * domain whose abort a stop may have cut short stays recorded, so the engine started next on the same
 * data aborts it, as it does for the domains of an engine that was killed.
 */
final class RunDomains {
    private static final Logger LOG = LoggerFactory.getLogger(RunDomains.class);

    private final LiveDomainStore store;
    private final RankInvoker invoker;
    private final RankFanOut fanOut;
    /** Whether the engine is stopping (the run service's workers are shut down). */
    private final BooleanSupplier stopping;
    /** The relays hosts are reached through, and the engine's bound on waiting for a lost one. */
    private final Relays relays;

    RunDomains(LiveDomainStore store, RankInvoker invoker, RankFanOut fanOut, BooleanSupplier stopping, Relays relays) {
        this.store = store;
        this.invoker = invoker;
        this.fanOut = fanOut;
        this.stopping = stopping;
        this.relays = relays;
    }

    /**
     * Records an attempt's domain as live on its placements' service URLs, unless the run has
     * ended. The end's own {@link #abortEnded} forgets the domain in the background, and placement calls
     * this without the run's lock: a cancel between a restart's new domain (or a placement) and this
     * call would otherwise have its forget come first and leave the record (with the domain's token)
     * behind until the next engine start. Checking after the save closes the window both ways: an end
     * before the check is seen here, an end after it forgets a record that is already saved.
     *
     * @param domain the attempt's domain, with its placements (not the run's domain of the moment: a restart may have
     *               given the run another one, whose placements are not these)
     */
    void live(Run run, Run.Domain domain) {
        try {
            List<String> urls = domain.placements().stream().map(p -> p.endpoint().soapUrl()).distinct().toList();
            store.save(new LiveDomainStore.LiveDomain(run.id(), domain.id(), domain.token(), urls));
        } catch (RuntimeException e) {
            LOG.warn("run {}: {}", run.id(), Failures.describe(e));
        }
        if (run.state().isFinal()) {
            forget(run.id());
        }
    }

    /** Forgets the run's live domain. */
    void forget(String runId) {
        try {
            store.delete(runId);
        } catch (RuntimeException e) {
            LOG.warn("run {}: {}", runId, Failures.describe(e));
        }
    }

    /**
     * Aborts a domain of an ended run (captured when it ended: a resume may have given it a new one
     * since) at every service URL, and forgets it when it is still the run's current domain.
     */
    void abortEnded(Run run, Run.Domain domain) {
        abortEnded(run, domain, false);
    }

    /**
     * {@link #abortEnded}, and the hosts behind a relay that it could not reach are tried again each second within the
     * engine's relay-return bound ({@link #abortThroughRelays}): a run's end, on a worker of its own, since a run across
     * sites usually fails because a relay was lost, and the ranks behind it are aborted once it is back.
     */
    void abortEndedThroughRelays(Run run, Run.Domain domain) {
        abortEnded(run, domain, true);
    }

    private void abortEnded(Run run, Run.Domain domain, boolean throughRelays) {
        Set<String> unreachable = abort(run.id(), domain, null);
        // ranks there will never report their end (their host is gone or cut off): they must not read as running
        run.ranksLost(domain.id(), unreachable);
        if (throughRelays) {
            retryThroughRelays(run.id(), domain, unreachable, System.nanoTime() + relays.relayReturn().toNanos());
        }
        if (domain.id().equals(run.domainId()) && !leftToSuccessor(run.id())) {
            forget(run.id());
        }
    }

    /** Whether the engine stopped while it aborted the run's domain: then the record stays for its successor. */
    private boolean leftToSuccessor(String runId) {
        if (!stopping.getAsBoolean()) {
            return false;
        }
        LOG.info("engine stopping: the domain of run {} stays recorded; the engine started next on this data aborts it", runId);
        return true;
    }

    /**
     * Aborts a domain at every service URL, then retries each second, until {@code deadlineNanos}, the hosts that
     * could not be reached and are reached through a relay: a relay that has just come back (or is about to) takes
     * their links again within seconds, and their ranks, blocked on peers across the lost relay, would otherwise run
     * on unobserved until they next post an event (hosts that stay out of reach abort them by themselves once their
     * relay link has been down for the engine's relay-return bound).
     *
     * @return the hosts still unreachable at the end
     */
    Set<String> abortThroughRelays(String runId, Run.Domain domain, long deadlineNanos) {
        return retryThroughRelays(runId, domain, abort(runId, domain, null), deadlineNanos);
    }

    private Set<String> retryThroughRelays(String runId, Run.Domain domain, Set<String> unreachable, long deadlineNanos) {
        Set<String> left = unreachable;
        while (!left.isEmpty() && left.stream().anyMatch(h -> relays.relayOf(h).isPresent())
                && System.nanoTime() - deadlineNanos < 0 && !stopping.getAsBoolean()) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            Set<String> again = left;
            Set<String> urls = new java.util.HashSet<>();
            domain.placements().stream().filter(p -> again.contains(p.hostId())).forEach(p -> urls.add(p.endpoint().soapUrl()));
            Set<String> now = abort(runId, domain, urls);
            List<String> reached = again.stream().filter(h -> !now.contains(h)).toList();
            if (!reached.isEmpty()) {
                LOG.info("run {}: aborted its given-up domain at {} through their relay, reachable again", runId, reached);
            }
            left = now;
        }
        return left;
    }

    /**
     * Aborts a domain at its service URLs (all when {@code onlyUrls} is {@code null}), bounded by the
     * fan-out timeout.
     *
     * @return the hosts that could not be reached (no answer, or a transport failure rather than a SOAP answer)
     */
    Set<String> abort(String runId, Run.Domain domain, Set<String> onlyUrls) {
        return abort(runId, domain.id(), domain.token(), domain.placements().stream()
                .filter(p -> onlyUrls == null || onlyUrls.contains(p.endpoint().soapUrl())).toList());
    }

    /** The one abort path: one {@code abort} per distinct service URL (abort is per service instance and domain). */
    private Set<String> abort(String runId, String domainId, String token, Collection<RankPlacement> placements) {
        Map<String, RankPlacement> byUrl = new LinkedHashMap<>();
        placements.forEach(p -> byUrl.putIfAbsent(p.endpoint().soapUrl(), p));
        List<RankPlacement> targets = List.copyOf(byUrl.values());
        List<RankFanOut.RankCall> calls = targets.stream()
                .map(p -> new RankFanOut.RankCall(p.rank(), () -> invoker.abort(p, domainId, token))).toList();
        try {
            fanOut.callAll(calls);
        } catch (RuntimeException e) {
            if (!stopping.getAsBoolean()) { // a stop rejects the calls not yet under way: the callers say what that means
                LOG.warn("aborting the domain of run {}: {}", runId, Failures.describe(e));
            }
        }
        Set<String> unreachable = new LinkedHashSet<>();
        for (int i = 0; i < calls.size(); i++) {
            RankFanOut.RankCall c = calls.get(i);
            if (c.failure() != null || !c.done()) {
                LOG.debug("abort at rank {} of run {}: {}", c.rank(), runId, c.done() ? Failures.describe(c.failure()) : "no answer");
            }
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
     * Aborts, in the background, the domains a previous engine left running (recorded live, never
     * ended) and forgets them, each abort bounded by the fan-out timeout.
     *
     * @param held whether this engine holds the run (re-attached to it: its domain lives on)
     */
    void abortOrphans(Predicate<String> held, Executor workers) {
        List<LiveDomainStore.LiveDomain> orphans = store.all();
        if (orphans.isEmpty()) {
            return;
        }
        workers.execute(() -> {
            for (LiveDomainStore.LiveDomain d : orphans) {
                if (held.test(d.runId())) {
                    continue;
                }
                abort(d.runId(), d.domainId(), d.token(), d.serviceUrls().stream()
                        .map(url -> new RankPlacement(0, "", "", "", new Endpoint(url, null, null))).toList());
                if (leftToSuccessor(d.runId())) {
                    return;
                }
                forget(d.runId());
                LOG.info("aborted the domain of run {} left running by a previous engine", d.runId());
            }
        });
    }
}
