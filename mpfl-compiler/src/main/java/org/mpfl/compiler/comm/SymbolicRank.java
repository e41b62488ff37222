package org.mpfl.compiler.comm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.eval.ProcessLayout;

/**
 * The state of one simulated rank: its variables (concrete values or {@link Unknown}), the
 * communicators it knows by name, its pending requests, its threads (more than one inside a
 * {@code parallel}), and how its analysis ended.
 */
final class SymbolicRank {
    enum Status { RUNNING, DONE, STOPPED }

    private final int worldRank;
    private final IrProcess process;
    private final ProcessLayout layout;
    private final Map<String, Object> params;
    private final Map<String, Object> variables = new HashMap<>();
    /** Communicators by name; a null value: this rank knows the name but is not a member. */
    private final Map<String, Communicator> communicators = new HashMap<>();
    private final Map<String, Request> requests = new HashMap<>();
    private final Map<Integer, Integer> collectivesEntered = new HashMap<>();
    final List<RankThread> threads = new ArrayList<>();
    Status status = Status.RUNNING;
    /** Why the analysis of this rank stopped (with {@link Status#STOPPED}). */
    RankStop stop;
    /** The last collective this rank completed, e.g. {@code "<barrier> on comm half at f:3:5"} (for reports). */
    String lastCollective;

    SymbolicRank(int worldRank, IrProcess process, ProcessLayout layout, Map<String, Object> params) {
        this.worldRank = worldRank;
        this.process = process;
        this.layout = layout;
        this.params = params;
    }

    int worldRank() {
        return worldRank;
    }

    IrProcess process() {
        return process;
    }

    ProcessLayout layout() {
        return layout;
    }

    /** A variable's value, a param's value, or an {@link Unknown} for a param without value; null if neither. */
    Object read(String name) {
        if (variables.containsKey(name)) {
            return variables.get(name);
        }
        if (params.containsKey(name)) {
            return params.get(name);
        }
        return new Unknown(name, "a param without a value (give it with --param " + name + "=…)");
    }

    boolean hasVariable(String name) {
        return variables.containsKey(name);
    }

    void write(String name, Object value) {
        variables.put(name, value);
    }

    void define(String name, Communicator communicator) {
        communicators.put(name, communicator);
    }

    /** The communicator {@code name} this rank uses for an operation; a fault if it cannot (section 7). */
    Communicator communicator(String name, SourceLocation at) {
        Communicator c = communicators.get(name);
        if (c != null) {
            return c;
        }
        if (communicators.containsKey(name)) {
            // the reporter names the ranks, merging the same stop of many ranks into one line: not in the message
            throw RankStop.fault(at, "not a member of communicator '" + name + "'");
        }
        if (layout.processes().contains(name)) {
            throw RankStop.fault(at, "a rank of process '" + process.name() + "' cannot use communicator '" + name + "'");
        }
        throw RankStop.fault(at, "communicator '" + name + "' does not exist yet (its <split> or <cartesian> has not run there)");
    }

    /** {@code rank(c)} for a name that may not be a communicator of this rank. */
    int commRank(String name) {
        Communicator c = communicators.get(name);
        if (c != null) {
            return c.rankOf(worldRank);
        }
        if (communicators.containsKey(name) || layout.processes().contains(name)) {
            return -1;
        }
        throw RankStop.fault(null, "communicator '" + name + "' does not exist yet");
    }

    int commSize(String name) {
        Communicator c = communicators.get(name);
        if (c != null) {
            return c.size();
        }
        if (!communicators.containsKey(name) && layout.processes().contains(name)) {
            return layout.count(name);
        }
        throw RankStop.fault(null, communicators.containsKey(name)
                ? "not a member of communicator '" + name + "'"
                : "communicator '" + name + "' does not exist yet");
    }

    Map<String, Request> requests() {
        return requests;
    }

    /** The index of this rank's next collective on {@code comm} (they must be in the same order on every member). */
    int nextCollectiveIndex(Communicator comm) {
        int index = collectivesEntered.getOrDefault(comm.id(), 0);
        collectivesEntered.put(comm.id(), index + 1);
        return index;
    }

    boolean blocked() {
        return status == Status.RUNNING && threads.stream().noneMatch(RankThread::runnable);
    }

    /** Variables in declaration order (for tests and debugging). */
    Map<String, Object> variables() {
        return new LinkedHashMap<>(variables);
    }
}
