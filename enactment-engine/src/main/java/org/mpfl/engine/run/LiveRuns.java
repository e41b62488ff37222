package org.mpfl.engine.run;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The runs this engine holds in memory, each with what placing it again needs (absent for a re-attached run). */
final class LiveRuns {
    private final Map<String, Run> runs = new ConcurrentHashMap<>();
    private final Map<String, LaunchSpec> launches = new ConcurrentHashMap<>();

    /** A run accepted by this engine. */
    void add(Run run, LaunchSpec spec) {
        launches.put(run.id(), spec);
        runs.put(run.id(), run);
    }

    /** A run re-attached to after an engine restart (it cannot be placed again). */
    void adopt(Run run) {
        runs.put(run.id(), run);
    }

    /** The run, or {@code null}. */
    Run get(String runId) {
        return runs.get(runId);
    }

    Optional<LaunchSpec> launch(String runId) {
        return Optional.ofNullable(launches.get(runId));
    }

    boolean holds(String runId) {
        return runs.containsKey(runId);
    }

    Collection<Run> all() {
        return runs.values();
    }

    /** Lets a finished run go (the store keeps it). */
    void forget(String runId) {
        runs.remove(runId);
        launches.remove(runId);
    }
}
