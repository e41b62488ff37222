package org.mpfl.compiler.check.activity;

import java.util.Map;

/**
 * The registry of activity validators by element name. Elements that are not activities themselves
 * ({@code elseif}, {@code else}, {@code branch}, {@code var}) have none: their parent's validator reads them.
 */
public final class ActivityValidators {
    private static final ActivityValidator SEND = new SendValidator();
    private static final ActivityValidator RECEIVE = new ReceiveValidator();
    private static final ActivityValidator SCATTER = new ScatterValidator();
    private static final ActivityValidator GATHER = new GatherValidator();
    private static final ActivityValidator REDUCE = new ReduceValidator();

    private static final Map<String, ActivityValidator> BY_ELEMENT = Map.ofEntries(
            Map.entry("assign", new AssignValidator()),
            Map.entry("if", new IfValidator()),
            Map.entry("while", new WhileValidator()),
            Map.entry("for", new ForValidator()),
            Map.entry("break", new BreakValidator()),
            Map.entry("sequence", new SequenceValidator()),
            Map.entry("parallel", new ParallelValidator()),
            Map.entry("compute", new ComputeValidator()),
            Map.entry("invoke", new InvokeValidator()),
            Map.entry("send", SEND),
            Map.entry("isend", SEND),
            Map.entry("receive", RECEIVE),
            Map.entry("irecv", RECEIVE),
            Map.entry("sendrecv", new SendRecvValidator()),
            Map.entry("wait", new WaitValidator()),
            Map.entry("waitall", new WaitAllValidator()),
            Map.entry("barrier", new BarrierValidator()),
            Map.entry("broadcast", new BroadcastValidator()),
            Map.entry("scatter", SCATTER),
            Map.entry("alltoall", SCATTER),
            Map.entry("gather", GATHER),
            Map.entry("allgather", GATHER),
            Map.entry("reduce", REDUCE),
            Map.entry("allreduce", REDUCE),
            Map.entry("scan", REDUCE),
            Map.entry("split", new SplitValidator()),
            Map.entry("cartesian", new CartesianValidator()),
            Map.entry("output", new OutputValidator()),
            Map.entry("log", new LogValidator()),
            Map.entry("progress", new ProgressValidator()),
            Map.entry("fail", new FailValidator()),
            Map.entry("checkpoint", new CheckpointValidator()));

    private ActivityValidators() {
    }

    /** The validator of the activity element {@code name} (MPFL namespace), or null if it is no activity. */
    public static ActivityValidator of(String name) {
        return BY_ELEMENT.get(name);
    }
}
