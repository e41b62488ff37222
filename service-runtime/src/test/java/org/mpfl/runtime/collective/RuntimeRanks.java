package org.mpfl.runtime.collective;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.p2p.InProcessCluster;
import org.mpfl.runtime.p2p.InProcessRankContext;
import org.mpfl.runtime.topology.CollectiveCommunicator;

/** Runs a body on p ranks of the real point-to-point runtime ({@link InProcessCluster}), each with the collective world communicator. */
public final class RuntimeRanks {
    private RuntimeRanks() {
    }

    /** Round-robin placement of p ranks over {@code hosts} hosts. */
    public static int[] roundRobin(int p, int hosts) {
        int[] out = new int[p];
        for (int r = 0; r < p; r++) {
            out[r] = r % hosts;
        }
        return out;
    }

    public static Object[] run(InProcessCluster cluster, int[] hostOfRank, String transport, Duration timeout,
                               Function<Communicator, Object> body) {
        InProcessCluster.Run run = cluster.run(hostOfRank, transport, Map.of(), ctx -> {
            CollectiveCommunicator world = CollectiveCommunicator.world(((InProcessRankContext) ctx).rankInstance());
            Object r = body.apply(world);
            ctx.output("result", r == null ? "null" : r);
        });
        List<InProcessCluster.RankResult> results = run.await(timeout);
        Object[] out = new Object[hostOfRank.length];
        for (InProcessCluster.RankResult r : results) {
            if (r.failure() != null) {
                if (r.failure() instanceof Error e) {
                    throw e;
                } else if (r.failure() instanceof RuntimeException e) {
                    throw e;
                }
                throw new IllegalStateException("rank " + r.rank() + " failed", r.failure());
            }
            out[r.rank()] = r.outputs().get("result");
        }
        return out;
    }
}
