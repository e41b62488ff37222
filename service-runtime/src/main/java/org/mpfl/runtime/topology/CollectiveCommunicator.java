package org.mpfl.runtime.topology;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.protocol.RunRequest;
import org.mpfl.runtime.api.CartesianCommunicator;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.ReduceOp;
import org.mpfl.runtime.collective.CollectiveConfig;
import org.mpfl.runtime.collective.Collectives;
import org.mpfl.runtime.collective.P2PCollectiveChannel;
import org.mpfl.runtime.p2p.P2PCommunicator;
import org.mpfl.runtime.p2p.RankInstance;

/**
 * The complete {@link Communicator}: the point-to-point core's communicator plus collectives
 * (run by {@link Collectives} on the communicator's private context
 * {@link ContextIds#collectiveContext}) and communicator creation (split, dup, cartesian).
 *
 * <p>Use {@link #world}, {@link #process} or {@link #ownProcess} to get the predefined
 * communicators of a rank instance; the others come from split, dup and cartesian.
 */
public class CollectiveCommunicator extends P2PCommunicator {
    private final CollectiveConfig config;
    private final Collectives collectives;

    public CollectiveCommunicator(RankInstance rank, int context, int[] memberWorldRanks, String name,
                                  CollectiveConfig config) {
        super(rank, context, memberWorldRanks, name);
        if ((context & 1) != 0) {
            throw new IllegalArgumentException("user contexts are even; " + context + " is a collective context");
        }
        this.config = config;
        P2PCommunicator privateContext = new P2PCommunicator(rank, ContextIds.collectiveContext(context),
                memberWorldRanks, name + "/collectives");
        this.collectives = new Collectives(new P2PCollectiveChannel(privateContext), config);
    }

    /** The world communicator of a rank instance (context 0), with configuration from system properties. */
    public static CollectiveCommunicator world(RankInstance rank) {
        return world(rank, CollectiveConfig.fromSystemProperties());
    }

    public static CollectiveCommunicator world(RankInstance rank, CollectiveConfig config) {
        int[] all = new int[rank.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        return new CollectiveCommunicator(rank, ContextIds.WORLD, all, "world", config);
    }

    /**
     * The communicator of the process named {@code processName} (MPMD), which must be this rank's
     * process (a rank can only use communicators it belongs to).
     */
    public static CollectiveCommunicator process(RankInstance rank, List<RunRequest.ProcessSlice> processes,
                                                 String processName) {
        ProcessLayout layout = layoutOf(processes);
        if (!layout.hasProcess(processName)) {
            throw new IllegalArgumentException("no process named '" + processName + "' in this run");
        }
        int first = layout.first(processName);
        int count = layout.count(processName);
        if (rank.rank() < first || rank.rank() >= first + count) {
            throw new IllegalArgumentException("world rank " + rank.rank() + " is not a rank of process '"
                    + processName + "' (ranks " + first + ".." + (first + count - 1) + ")");
        }
        return new CollectiveCommunicator(rank, processContext(layout, processName), IntStream.range(first, first + count).toArray(),
                processName, CollectiveConfig.fromSystemProperties());
    }

    /**
     * The MPMD layout of a run as its request gives it, with the compiler's {@link ProcessLayout}: every
     * rank, the engine and the static check place processes the same way.
     */
    static ProcessLayout layoutOf(List<RunRequest.ProcessSlice> processes) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (RunRequest.ProcessSlice p : processes) {
            counts.put(p.name(), p.ranks());
        }
        return ProcessLayout.ofCounts(counts);
    }

    /** Process i (document order) talks in context {@link ContextIds#processContext(int) 2 + 2i}. */
    static int processContext(ProcessLayout layout, String processName) {
        return ContextIds.processContext(layout.processes().indexOf(processName));
    }

    /**
     * The collective communicator for {@code c}: {@code c} itself when it already is one, else a
     * communicator over the same rank instance, context and members (for a plain point-to-point
     * communicator handed out by a host that does not wrap its communicators yet). Both then share
     * one user context; the collectives use the private one. Wrap a plain communicator once and keep
     * the result: two wrappers of one communicator would number their collectives independently.
     */
    public static CollectiveCommunicator of(Communicator c) {
        if (c instanceof CollectiveCommunicator cc) {
            return cc;
        }
        if (c instanceof P2PCommunicator p) {
            return new CollectiveCommunicator(p.rankInstance(), p.contextId(), p.memberWorldRanks(), p.name(),
                    CollectiveConfig.fromSystemProperties());
        }
        throw new IllegalArgumentException("not a communicator of the MPIWS runtime: " + c);
    }

    /** The communicator of this rank's own process. */
    public static CollectiveCommunicator ownProcess(RankInstance rank, List<RunRequest.ProcessSlice> processes) {
        return process(rank, processes, layoutOf(processes).processOf(rank.rank()));
    }

    public CollectiveConfig config() {
        return config;
    }

    /** The engine (for algorithm-specific calls such as a named barrier algorithm). */
    public Collectives collectives() {
        return collectives;
    }

    // ------------------------------------------------------------------ collectives

    @Override
    public void barrier() {
        collectives.barrier();
    }

    @Override
    public Object bcast(Object value, int root, String algorithm) {
        return collectives.bcast(value, root, algorithm);
    }

    @Override
    public Object scatter(Object array, int root, String algorithm) {
        return collectives.scatter(array, root, algorithm);
    }

    @Override
    public Object gather(Object value, int root, String algorithm) {
        return collectives.gather(value, root, algorithm);
    }

    @Override
    public Object allgather(Object value, String algorithm) {
        return collectives.allgather(value, algorithm);
    }

    @Override
    public Object reduce(Object value, ReduceOp op, int root, String algorithm) {
        return collectives.reduce(value, op, root, algorithm);
    }

    @Override
    public Object allreduce(Object value, ReduceOp op, String algorithm) {
        return collectives.allreduce(value, op, algorithm);
    }

    @Override
    public Object alltoall(Object array, String algorithm) {
        return collectives.alltoall(array, algorithm);
    }

    @Override
    public Object scan(Object value, ReduceOp op, String algorithm) {
        return collectives.scan(value, op, algorithm);
    }

    // ------------------------------------------------------------------ communicator creation

    /** MPI_Comm_split; a negative colour (MPI_UNDEFINED) takes part but gets {@code null}. */
    @Override
    public Communicator split(String name, int color, int key) {
        ContextAllocator contexts = ContextAllocator.of(rankInstance());
        int[] triples = (int[]) allgather(new int[] {color, key, contexts.proposal()}, "auto");
        SplitPlan plan = SplitPlan.of(triples, rank());
        contexts.agreed(plan.context());
        if (plan.members() == null) {
            return null;
        }
        return new CollectiveCommunicator(rankInstance(), plan.context(), worldRanks(plan.members()), name, config);
    }

    @Override
    public Communicator dup(String name) {
        int context = agreeOnContext();
        return new CollectiveCommunicator(rankInstance(), context, memberWorldRanks(), name, config);
    }

    @Override
    public CartesianCommunicator cartesian(String name, int[] dims, boolean[] periodic) {
        CartesianTopology grid = new CartesianTopology(dims, periodic);
        if (grid.size() != size()) {
            throw new IllegalArgumentException("cartesian " + name + ": the grid " + java.util.Arrays.toString(dims)
                    + " has " + grid.size() + " places for the " + size() + " ranks of communicator " + name());
        }
        int context = agreeOnContext();
        return new CartesianGridCommunicator(rankInstance(), context, memberWorldRanks(), name, config, grid);
    }

    private int agreeOnContext() {
        ContextAllocator contexts = ContextAllocator.of(rankInstance());
        int context = (Integer) allreduce(contexts.proposal(), ReduceOp.MAX, "auto");
        contexts.agreed(context);
        return context;
    }

    private int[] worldRanks(int[] ranksHere) {
        int[] out = new int[ranksHere.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = worldRankOf(ranksHere[i]);
        }
        return out;
    }
}
