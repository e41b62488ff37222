package org.mpfl.engine.e2e;

import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;

/**
 * {@link RingProgram} at a walking pace: rank 0 waits {@code pauseMs} before each round, so a run
 * lasts long enough to lose a host or be cancelled in the middle. Rank 0 outputs the token (one per
 * rank and round: {@code ranks × rounds} whatever happened on the way).
 */
public class PacedRingProgram implements RankProgram {
    @Override
    public void run(RankContext ctx) throws Exception {
        Communicator w = ctx.world();
        int r = w.rank();
        int n = w.size();
        int rounds = ((Number) ctx.params().getOrDefault("rounds", 1)).intValue();
        long pause = ((Number) ctx.params().getOrDefault("pauseMs", 100)).longValue();
        long token = 0;
        for (int i = 0; i < rounds; i++) {
            if (r == 0) {
                Thread.sleep(pause);
                w.send(token + 1, 1 % n, 0);
                token = ((Number) w.recv(n - 1, 0).value()).longValue();
            } else {
                long t = ((Number) w.recv(r - 1, 0).value()).longValue();
                w.send(t + 1, (r + 1) % n, 0);
            }
            ctx.progress(i + 1, rounds);
        }
        ctx.output("rank", r);
        if (r == 0) {
            ctx.output("token", token);
        }
    }
}
