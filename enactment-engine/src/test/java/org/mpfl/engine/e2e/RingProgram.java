package org.mpfl.engine.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;

/**
 * A token goes round the ring {@code rounds} times, each rank adding one; rank 0 outputs the total.
 *
 * <p>For a run that must outlast something (AttackTest's legitimate ring, which has to be running
 * during every attack): {@code pauseMs} makes rank 0 wait that long after each round, and with
 * {@code stopFile} the ring goes round until that file exists — rank 0 looks before each round and
 * broadcasts whether to go on, so every rank stops after the same round; {@code rounds} is then only
 * an upper bound — and rank 0 also outputs the rounds done ({@code rounds}; then token = ranks × rounds).
 */
public class RingProgram implements RankProgram {
    @Override
    public void run(RankContext ctx) {
        Communicator w = ctx.world();
        int r = w.rank();
        int n = w.size();
        int rounds = ((Number) ctx.params().getOrDefault("rounds", 1)).intValue();
        long pauseMs = ((Number) ctx.params().getOrDefault("pauseMs", 0)).longValue();
        Object stop = ctx.params().get("stopFile");
        Path stopFile = stop == null ? null : Path.of(stop.toString());
        long token = 0;
        int done = 0;
        while (done < rounds) {
            if (stopFile != null && !(Boolean) w.bcast(r == 0 && !Files.exists(stopFile), 0, "auto")) {
                break;
            }
            if (r == 0) {
                w.send(token + 1, 1 % n, 0);
                token = ((Number) w.recv(n - 1, 0).value()).longValue();
            } else {
                long t = ((Number) w.recv(r - 1, 0).value()).longValue();
                w.send(t + 1, (r + 1) % n, 0);
            }
            done++;
            ctx.progress(done, rounds);
            if (r == 0 && pauseMs > 0) {
                pause(pauseMs);
            }
        }
        ctx.output("rank", r);
        if (r == 0) {
            ctx.output("token", token);
            if (stopFile != null) {
                ctx.output("rounds", done);
            }
        }
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted between two rounds of the ring", e);
        }
    }
}
