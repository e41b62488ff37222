package org.mpfl.engine.run;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiConsumer;
import org.mpfl.engine.run.checkpoint.CheckpointStore;
import org.mpfl.engine.store.RunStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run queue: every launch (a new run, a restart, a resume) takes its places here. Runs are
 * served in order — higher {@linkplain Queueing#priority priority} first, then the run accepted first
 * — and a run is placed only when all its ranks fit in the hosts' free capacity at once
 * ({@link RunPlacer#reserve}, gang placement); until then it is QUEUED with the reason and its
 * position, holding no host. The head of the queue is never overtaken (no backfill): a large run is
 * not starved by a stream of small ones.
 *
 * <p>The queue is looked at again whenever a run is submitted, a run ends and on every tick of the
 * run service (hosts joining free capacity too); the tick also fails runs that waited longer than their
 * queue timeout, saying why. Runs waiting before their first start are recorded in the run store
 * ({@code run_queue}) and queued again in the same order by a restarted engine ({@link #restore}).
 */
final class RunQueue {
    private static final Logger LOG = LoggerFactory.getLogger(RunQueue.class);

    /**
     * A launch waiting for places.
     *
     * @param resume  the checkpoint the attempt resumes from, or {@code null}
     * @param faulty  hosts this run must not be placed on, with why (updated by the launch)
     * @param sinceMs when it entered the queue this time (its queue timeout counts from here)
     * @param waitForHosts whether it also waits while no host can run it at all (a run queued again after an
     *                     engine restart: its hosts announce themselves again in a moment), instead of failing; a
     *                     capacity provider does not judge it as never fitting before they could
     *                     ({@link CapacityOnDemand#neverFits})
     */
    record Entry(Run run, LaunchSpec spec, CheckpointStore.Usable resume, FaultyHosts faulty, long sinceMs,
                 boolean waitForHosts) {
        Entry(Run run, LaunchSpec spec, CheckpointStore.Usable resume, FaultyHosts faulty, long sinceMs) {
            this(run, spec, resume, faulty, sinceMs, false);
        }

        /** When it fails for waiting too long, or {@code null}. */
        Long deadlineMs(Duration engineDefault) {
            Duration t = spec.queueing().queueTimeout() != null ? spec.queueing().queueTimeout() : engineDefault;
            return t.isZero() ? null : sinceMs + t.toMillis();
        }

        Entry again(long nowMs) {
            return new Entry(run, spec, resume, faulty, nowMs, waitForHosts);
        }
    }

    /** Queue order: priority, then the run accepted first. */
    static final Comparator<Entry> ORDER = Comparator.<Entry>comparingInt(e -> -e.spec().queueing().priority())
            .thenComparingLong(e -> e.run().createdMs()).thenComparing(e -> e.run().id());

    private final List<Entry> waiting = new ArrayList<>();
    /**
     * Capacity on demand (a provider asks a scheduler for hosts), or {@code null}: with one, a run that no
     * host can run yet waits for the hosts the provider brings instead of failing, and every reason ends
     * with what the provider is doing about it.
     */
    private volatile CapacityOnDemand onDemand;
    private final RunPlacer placer;
    private final RunJournal journal;
    private final RunStore store;
    private final Duration defaultTimeout;
    /** Launches what got its places (in the background). */
    private final BiConsumer<Entry, Run.Domain> starter;
    /** Fails a run that cannot be placed at all, or waited too long. */
    private final BiConsumer<Run, RunError> failer;

    RunQueue(RunPlacer placer, RunJournal journal, RunStore store, Duration defaultTimeout,
             BiConsumer<Entry, Run.Domain> starter, BiConsumer<Run, RunError> failer) {
        this.placer = placer;
        this.journal = journal;
        this.store = store;
        this.defaultTimeout = defaultTimeout;
        this.starter = starter;
        this.failer = failer;
    }

    /** Queues a launch and serves the queue. */
    synchronized void submit(Entry e) {
        waiting.removeIf(w -> w.run() == e.run());
        waiting.add(e);
        waiting.sort(ORDER);
        drain();
    }

    /**
     * Places waiting runs in order while the head fits; the rest get their reason and position.
     * Runs that cannot be placed at all (no host offers a service) fail at once.
     */
    synchronized void drain() {
        // what the loop decides is acted on after it, still under the lock: a failure ends a run, which
        // serves the queue again (re-entrantly), and the stored queue must follow the order of decisions
        List<Runnable> after = new ArrayList<>();
        waiting.removeIf(e -> {
            if (e.run().state().isFinal()) {
                after.add(() -> forget(e.run()));
                return true;
            }
            return false;
        });
        String blockedBy = null;
        int position = 0;
        for (var it = waiting.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (blockedBy == null) {
                RunPlacer.Reservation r = placer.reserve(e.run(), e.spec(), e.faulty());
                if (r.placements() != null) {
                    it.remove();
                    boolean wasQueued = r.leftQueue();
                    after.add(() -> {
                        if (wasQueued) {
                            forget(e.run());
                            journal.stateChanged(e.run());
                        }
                        starter.accept(e, r.domain());
                    });
                    continue;
                }
                if (r.waitReason() == null && r.failure() == null) {
                    it.remove(); // it ended (cancelled) a moment ago
                    after.add(() -> forget(e.run()));
                    continue;
                }
                CapacityOnDemand provider = onDemand;
                if (failsForNeverFitting(e, it, after)) {
                    continue;
                }
                if (r.failure() != null && !e.waitForHosts() && provider == null) {
                    it.remove();
                    after.add(() -> {
                        forget(e.run());
                        failer.accept(e.run(), r.failure());
                    });
                    continue;
                }
                blockedBy = reason(r, provider);
                waitFor(e, ++position, blockedBy, after);
            } else if (!failsForNeverFitting(e, it, after)) {
                // checked behind the head too: a run submitted behind others learns now, not when its turn comes
                waitFor(e, ++position, "waiting behind run " + waiting.get(0).run().id() + " (" + blockedBy + ")", after);
            }
        }
        after.forEach(Runnable::run);
    }

    /**
     * Takes a run larger than all the capacity the provider may ever bring out of the queue (it would wait for ever)
     * and fails it after the loop, saying what it asks and the most there can be; {@code false} when it may fit.
     */
    private boolean failsForNeverFitting(Entry e, java.util.Iterator<Entry> it, List<Runnable> after) {
        CapacityOnDemand provider = onDemand;
        String never = provider == null || e.spec().queueing().oversubscribe() ? null
                : provider.neverFits(e.spec().ranks(), e.waitForHosts());
        if (never == null) {
            return false;
        }
        it.remove();
        after.add(() -> {
            forget(e.run());
            failer.accept(e.run(), new RunError(null, null, never));
        });
        return true;
    }

    private void waitFor(Entry e, int position, String reason, List<Runnable> after) {
        int priority = e.spec().queueing().priority();
        if (e.run().markQueued(new QueuePlace(reason, position, priority, e.sinceMs(), e.deadlineMs(defaultTimeout),
                e.spec().ranks()))) {
            after.add(() -> {
                if (e.run().attempts() == 0) {
                    persist(e);
                }
                journal.stateChanged(e.run());
                LOG.info("run {} queued: {}", e.run().id(), reason);
            });
        }
    }

    /**
     * Why the head of the queue waits. With a provider whose hosts are on their way, what it does comes first (a run
     * waiting for a Slurm job to start reads that before why the hosts registered now are not enough), then the
     * placement's reason, then what else holds the provider back. With no host registered yet the placement's reason is
     * left out: the hint to enrol a host ({@link Placement#NO_HOSTS}) is for engines without a provider, and misleading
     * while the provider starts them.
     */
    private static String reason(RunPlacer.Reservation r, CapacityOnDemand provider) {
        String placement = r.waitReason() != null ? r.waitReason() : r.failure().message();
        if (provider == null) {
            return placement;
        }
        String coming = provider.coming();
        String note = provider.note();
        boolean hasComing = coming != null && !coming.isBlank();
        boolean noted = note != null && !note.isBlank();
        boolean noHosts = r.waitReason() == null && Placement.NO_HOSTS.equals(placement);
        if (noHosts && !hasComing) {
            return "waiting for hosts from the capacity provider" + (noted ? ": " + note : "");
        }
        List<String> parts = new ArrayList<>();
        if (hasComing) {
            parts.add(coming);
        }
        if (!noHosts) {
            parts.add(placement);
        }
        if (noted) {
            parts.add(note);
        }
        return String.join("; ", parts);
    }

    /** Turns capacity on demand on: see {@link #onDemand}. */
    void onDemand(CapacityOnDemand provider) {
        this.onDemand = provider;
    }

    /** The ranks each waiting run needs, in queue order (what a capacity provider brings hosts for). */
    synchronized List<Integer> waitingRanks() {
        return waiting.stream().filter(e -> !e.run().state().isFinal())
                .map(e -> e.spec().ranks()).toList();
    }

    /** Fails the runs that waited longer than their queue timeout, then serves the queue. */
    synchronized void tick(long nowMs) {
        List<Entry> expired = new ArrayList<>();
        waiting.removeIf(e -> {
            Long deadline = e.deadlineMs(defaultTimeout);
            if (deadline != null && nowMs >= deadline && e.run().state() == RunState.QUEUED) {
                expired.add(e);
                return true;
            }
            return false;
        });
        for (Entry e : expired) {
            forget(e.run());
            Duration waited = Duration.ofMillis(nowMs - e.sinceMs());
            failer.accept(e.run(), new RunError(null, null, "waited " + waited.toSeconds() + " s in the run queue (queue timeout "
                    + Duration.ofMillis(e.deadlineMs(defaultTimeout) - e.sinceMs()).toSeconds() + " s) and was never placed: "
                    + e.run().queueReason()));
        }
        drain();
    }

    /** Records a run waiting before its first start, so a restarted engine queues it again. */
    private void persist(Entry e) {
        ObjectNode launch = e.spec().toJson(e.run().history().restartsAllowed());
        Queueing q = e.spec().queueing();
        try {
            store.saveQueued(new RunStore.QueuedRun(e.run().id(), q.priority(), e.run().createdMs(), e.sinceMs(),
                    q.oversubscribe(), q.queueTimeout() == null ? null : q.queueTimeout().toMillis(), launch));
        } catch (RuntimeException ex) {
            LOG.warn("run {}: cannot record it in the stored queue: {}", e.run().id(), Failures.describe(ex));
        }
    }

    private void forget(Run run) {
        try {
            store.deleteQueued(run.id());
        } catch (RuntimeException ex) {
            LOG.warn("run {}: cannot take it off the stored queue: {}", run.id(), Failures.describe(ex));
        }
    }
}
