package org.mpfl.engine.durability;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;

/**
 * A ring that takes its time: a token goes round {@code rounds} times, rank 0 pausing
 * {@code pauseMs} ms before each round, every rank adding its rank + 1 and logging and reporting
 * progress every round (so a host has routine events to keep while the engine is away). Every rank
 * outputs the sum of the tokens it saw, rank 0 also the final token: the outputs depend on every
 * message, never on timing, so a disturbed run must give exactly those of an undisturbed one.
 *
 * <p>With {@code gate} (a file path), rank 0 starts the last round only once that file exists: a test holds the run
 * unfinished until it has seen what it looks for while the run still runs.
 */
public class PacedRingProgram implements RankProgram {
    private static final long GATE_WAIT_S = 120;

    @Override
    public void run(RankContext ctx) {
        Communicator w = ctx.world();
        int r = w.rank();
        int n = w.size();
        int rounds = ((Number) ctx.params().getOrDefault("rounds", 1)).intValue();
        long pauseMs = ((Number) ctx.params().getOrDefault("pauseMs", 0)).longValue();
        Object gate = ctx.params().get("gate");
        long token = 0;
        long seen = 0;
        for (int i = 0; i < rounds; i++) {
            if (r == 0) {
                pause(pauseMs);
                if (gate != null && i == rounds - 1) {
                    awaitGate(Path.of(gate.toString()));
                }
                w.send(token + 1, 1 % n, 0);
                token = ((Number) w.recv(n - 1, 0).value()).longValue();
                seen += token;
            } else {
                long t = ((Number) w.recv(r - 1, 0).value()).longValue();
                seen += t;
                w.send(t + r + 1, (r + 1) % n, 0);
            }
            ctx.log("info", "round " + (i + 1) + " of " + rounds);
            ctx.progress(i + 1, rounds);
        }
        ctx.output("seen", seen);
        if (r == 0) {
            ctx.output("token", token);
        }
    }

    private static void pause(long ms) {
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Waits (bounded: a test that failed before opening it leaves no rank behind for long) until {@code gate} exists. */
    private static void awaitGate(Path gate) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GATE_WAIT_S);
        while (!Files.exists(gate)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the gate " + gate + " was not opened within " + GATE_WAIT_S + " s");
            }
            pause(20);
        }
    }
}
