package org.mpfl.engine.e2e;

import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;

/** A token goes round the ring {@code rounds} times, each rank adding one; rank 0 outputs the total. */
public class RingProgram implements RankProgram {
    @Override
    public void run(RankContext ctx) {
        Communicator w = ctx.world();
        int r = w.rank();
        int n = w.size();
        int rounds = ((Number) ctx.params().getOrDefault("rounds", 1)).intValue();
        long token = 0;
        for (int i = 0; i < rounds; i++) {
            if (r == 0) {
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
