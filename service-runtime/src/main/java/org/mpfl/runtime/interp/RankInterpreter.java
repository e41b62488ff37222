package org.mpfl.runtime.interp;

import java.util.Map;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.runtime.monitor.CheckpointSink;
import org.mpfl.runtime.monitor.RankMonitor;
import org.mpfl.runtime.topology.RankRuntime;
import org.mpfl.runtime.transport.ObjectTypes;

/**
 * The {@link RankProgram} of a generated MPFL service: runs one rank of its process's typed IR with
 * the MPIWS runtime. Params are typed as declared, variables start at their init values (or the
 * type's zero), then the body runs; a fault throws a {@link RankFault} with the rank's activity and
 * source location, which fails the rank and makes the host abort the domain.
 *
 * <pre>{@code
 *   InterpretedProgram program = InterpretedProgram.of(workflow, "solver", libraries);
 *   host.registerServiceType("Solver", () -> new RankInterpreter(program));
 * }</pre>
 */
public final class RankInterpreter implements RankProgram, ObjectTypes.Declaring {
    private final InterpretedProgram program;

    public RankInterpreter(InterpretedProgram program) {
        this.program = program;
    }

    /** The workflow's: JDK value kinds and the classes next to its activities ({@link ObjectTypes}). */
    @Override
    public ObjectTypes objectTypes() {
        return program.objectTypes();
    }

    @Override
    public void run(RankContext context) {
        RankMonitor sink = context instanceof RankMonitor m ? m : null;
        RankActivityMonitor monitor = new RankActivityMonitor(sink);
        monitor.watchAbort(RankRuntime.of(context)::isAborted);
        monitor.countBytesWith(RankRuntime.of(context)::bytesSent);
        Thread me = Thread.currentThread();
        ClassLoader previous = me.getContextClassLoader();
        me.setContextClassLoader(program.libraries());
        WaitWatchdog.register(monitor);
        try {
            Map<String, Object> params = program.typedParams(context.params());
            int worldRank = context.world().rank();
            int worldSize = context.world().size();
            RankLayout layout = sink != null && !sink.processes().isEmpty()
                    ? RankLayout.of(worldRank, worldSize, sink.processes())
                    : RankLayout.of(worldRank, worldSize, program.processes(), params);
            if (!program.process().name().equals(layout.ownProcess())) {
                throw Faults.of("start", program.process().at(), "world rank " + worldRank + " belongs to process '"
                        + layout.ownProcess() + "', but this service runs process '" + program.process().name() + "'");
            }
            RankState rank = new RankState(program, context, params, layout, monitor);
            try {
                ComputeStep.startKernels(rank);
                Frame frame = Frame.root(rank);
                rank.initialiseVariables(frame);
                if (context instanceof CheckpointSink checkpoints && checkpoints.resume() != null) {
                    CheckpointStep.resume(rank, checkpoints.resume());
                }
                new Executor().run(program.process().body(), frame);
                if (!rank.requests().names().isEmpty()) {
                    context.log("warn", "requests never waited for: " + rank.requests().names());
                }
            } finally {
                rank.kernels().close();
            }
        } finally {
            WaitWatchdog.unregister(monitor);
            monitor.finish();
            me.setContextClassLoader(previous);
        }
    }
}
