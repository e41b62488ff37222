package org.mpfl.engine.run;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.mpfl.engine.store.RunStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's record as others see it: its stored record ({@link RunStore}), its event log and the
 * listeners that hear each event live. Every room of the run service writes here, none reads back
 * through it; a store failure is logged, never thrown at a run.
 */
final class RunJournal {
    private static final Logger LOG = LoggerFactory.getLogger(RunJournal.class);

    private final RunStore store;
    private final Map<String, List<RunListener>> listeners = new ConcurrentHashMap<>();

    RunJournal(RunStore store) {
        this.store = store;
    }

    /**
     * Saves the run's record. The record is taken under the run's save order, so two threads that
     * changed the run at once cannot save their records the other way round (the stored SUCCEEDED of a
     * run overwritten by the RUNNING its placement took a moment before: the run then stayed RUNNING
     * in every list, found by RunQueueThroughputTest on a loaded machine).
     */
    void persist(Run run) {
        synchronized (run.saveOrder()) {
            try {
                store.save(run.record());
            } catch (RuntimeException e) {
                LOG.error("cannot persist run {}: {}", run.id(), Failures.describe(e));
            }
        }
    }

    /** Saves the run's record if it changed since it was last saved. */
    void persistIfChanged(Run run) {
        if (run.takeDirty()) {
            persist(run);
        }
    }

    /** The run's state changed: saves it and records a {@code run} event with its summary. */
    void stateChanged(Run run) {
        // the state events too go out in the order of the states they carry (a live console shows the last)
        synchronized (run.saveOrder()) {
            persist(run);
            record(run, null, "run", run.summaryJson());
        }
    }

    /** Appends an event to the run's log and tells its listeners. */
    void record(Run run, Integer rank, String kind, Object body) {
        long id;
        try {
            id = store.appendEvent(run.id(), rank, System.currentTimeMillis(), kind, body);
        } catch (RuntimeException e) {
            LOG.error("cannot store an event of run {}: {}", run.id(), Failures.describe(e));
            id = -1;
        }
        for (RunListener l : listeners.getOrDefault(run.id(), List.of())) {
            try {
                l.onEvent(id, kind, body);
            } catch (RuntimeException e) {
                LOG.debug("run listener failed: {}", Failures.describe(e));
            }
        }
    }

    /** Subscribes to a run's events; close the result to unsubscribe. */
    AutoCloseable listen(String runId, RunListener listener) {
        listeners.computeIfAbsent(runId, k -> new CopyOnWriteArrayList<>()).add(listener);
        return () -> listeners.getOrDefault(runId, new ArrayList<>()).remove(listener);
    }

    /** Drops a forgotten run's listeners. */
    void forget(String runId) {
        listeners.remove(runId);
    }
}
