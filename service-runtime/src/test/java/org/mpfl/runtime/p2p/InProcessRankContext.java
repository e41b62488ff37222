package org.mpfl.runtime.p2p;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.topology.CollectiveCommunicator;
import org.mpfl.runtime.topology.RankRuntime;

/** A minimal {@link RankContext} for ranks run without a service host (tests, benchmarks, embedding). */
public final class InProcessRankContext implements RankContext, RankRuntime.Provider {
    private final RankInstance rank;
    private final Communicator world;
    private final Map<String, Object> params;
    private final Map<String, Object> outputs = new ConcurrentHashMap<>();

    public InProcessRankContext(RankInstance rank, Map<String, Object> params) {
        this.rank = rank;
        this.world = CollectiveCommunicator.world(rank); // point-to-point plus collectives, split, dup, cartesian
        this.params = params;
    }

    @Override
    public Communicator world() {
        return world;
    }

    @Override
    public RankRuntime rankRuntime() {
        return RankRuntime.of(rank);
    }

    @Override
    public Communicator process(String processName) {
        throw new UnsupportedOperationException("process communicators need a deployment plan; an in-process rank has only world");
    }

    @Override
    public String domainId() {
        return rank.domainId();
    }

    @Override
    public Map<String, Object> params() {
        return params;
    }

    @Override
    public void output(String name, Object value) {
        outputs.put(name, value);
    }

    @Override
    public void log(String level, String message) {
        System.err.println("[rank " + rank.rank() + " " + level + "] " + message);
    }

    @Override
    public void progress(double value, double total) {
        // nobody listens
    }

    public RankInstance rankInstance() {
        return rank;
    }

    public Map<String, Object> outputs() {
        return outputs;
    }
}
