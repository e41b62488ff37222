package org.mpfl.runtime.interp;

import org.mpfl.ir.IrActivity;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.monitor.CheckpointSink;

/**
 * {@code <checkpoint every>}: counts the arrivals at its site; on every {@code every}-th one (never
 * when {@code every} ≤ 0) the rank takes its part of the next checkpoint of the run:
 * <ol>
 * <li>no non-blocking request may be outstanding (a fault names it);</li>
 * <li>one allgather over world is the cut: every rank must be at the same checkpoint (number, site
 *     and arrival), and the point-to-point messages sent in the whole domain must all have been
 *     received — a message crossing the checkpoint could not be saved, so it is a fault;</li>
 * <li>the part ({@link CheckpointState}) goes to the rank's {@link CheckpointSink} (the engine); a
 *     part that cannot be written or stored is a warning, the run goes on and that checkpoint stays
 *     incomplete.</li>
 * </ol>
 */
final class CheckpointStep {
    /** Fields of one rank's entry in the cut's allgather. */
    private static final int FIELDS = 5;

    void execute(IrActivity.Checkpoint x, Frame f) {
        RankState rank = f.rank();
        long[] arrivals = rank.arrivals(x);
        int every = ExpressionEvaluator.evaluateInt(x.every(), f);
        arrivals[0]++;
        if (every <= 0 || arrivals[0] % every != 0) {
            return;
        }
        long started = System.nanoTime();
        java.util.List<String> open = rank.requests().inProgress();
        if (!open.isEmpty()) {
            String name = open.get(0);
            throw Faults.of("checkpoint", x.at(), "request '" + name + "' is still outstanding at the checkpoint;"
                    + " <wait> for it before the checkpoint (a pending operation cannot be saved)");
        }
        long number = rank.lastCheckpoint() + 1;
        cut(x, f, number, arrivals[0]);
        rank.lastCheckpoint(number);
        CheckpointSink sink = rank.context() instanceof CheckpointSink s ? s : null;
        if (sink == null || !sink.stores()) {
            return;
        }
        byte[] part;
        String failure;
        try {
            part = CheckpointState.write(rank, number, x);
            failure = sink.store(number, part);
        } catch (RuntimeException e) {
            part = new byte[0];
            failure = e.getMessage() == null ? e.toString() : e.getMessage();
        }
        long ms = (System.nanoTime() - started) / 1_000_000;
        if (failure != null) {
            rank.context().log("warn", "checkpoint " + number + " at " + x.at() + " not stored: " + failure);
        }
        sink.checkpointed(number, part.length, ms, failure);
    }

    /** The allgather that makes the checkpoint a consistent cut (see the class comment). */
    private static void cut(IrActivity.Checkpoint x, Frame f, long number, long arrival) {
        RankState rank = f.rank();
        Communicator world = rank.communicators().get("world");
        long[] mine = {number, rank.program().checkpointSite(x), arrival, rank.messages().sentCount(),
            rank.messages().receivedCount()};
        rank.monitor().reached("checkpoint", x.at());
        RankActivityMonitor.Blocking b = rank.monitor().begin("checkpoint", x.at(),
                () -> "checkpoint comm world (" + world.size() + " ranks)");
        long[] all;
        try {
            all = (long[]) world.allgather(mine, "auto");
        } finally {
            rank.monitor().end(b);
        }
        long sent = 0;
        long received = 0;
        for (int r = 0; r < all.length / FIELDS; r++) {
            int o = r * FIELDS;
            if (all[o] != number || all[o + 1] != mine[1] || all[o + 2] != arrival) {
                throw Faults.of("checkpoint", x.at(), "rank " + r + " is at checkpoint " + all[o] + " (arrival " + all[o + 2]
                        + " at checkpoint site " + all[o + 1] + ") while this rank is at checkpoint " + number + " (arrival "
                        + arrival + " at site " + mine[1] + "): every rank must reach the same checkpoints");
            }
            sent += all[o + 3];
            received += all[o + 4];
        }
        if (sent != received) {
            throw Faults.of("checkpoint", x.at(), (sent - received) + " point-to-point message(s) cross the checkpoint ("
                    + sent + " sent and " + received + " received in the domain before it): no message may be in flight"
                    + " at a checkpoint, so receive every message before it");
        }
    }

    /**
     * Restores a resumed rank from its part of checkpoint {@code resume.checkpoint()}: variables,
     * arrival counters and the run's checkpoint number, then the communicators it had made (made
     * again, collectively, in the new domain, in the order it first made them), and the position the
     * executor re-enters.
     *
     * @throws RankFault at the process if the part is not one of this rank and program, or damaged
     */
    static void resume(RankState rank, org.mpfl.protocol.RunRequest.Resume resume) {
        CheckpointState.Restored state;
        try {
            if (resume.state() == null) {
                throw new IllegalArgumentException("the run request carries no state");
            }
            state = CheckpointState.read(resume.state(), rank, resume.checkpoint());
            new ResumePoint(state.position(), state.site()); // the position must at least be a path
        } catch (RuntimeException e) {
            throw Faults.of("resume", rank.program().process().at(), "cannot resume from checkpoint " + resume.checkpoint()
                    + ": this rank's part is refused: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
        }
        state.variables().forEach(rank::restore);
        for (int i = 0; i < state.arrivals().length; i++) {
            rank.arrivals(rank.program().checkpointSite(i))[0] = state.arrivals()[i];
        }
        rank.lastCheckpoint(state.checkpoint());
        for (NamedCommunicators.Made made : state.communicators()) {
            try {
                CommunicatorSteps.remake(rank, made);
            } catch (RuntimeException e) {
                throw Faults.at("resume", rank.program().process().at(), e);
            }
        }
        rank.resumeAt(new ResumePoint(state.position(), state.site()));
        rank.context().log("info", "resumed after checkpoint " + state.checkpoint() + " at " + state.site().at());
    }
}
