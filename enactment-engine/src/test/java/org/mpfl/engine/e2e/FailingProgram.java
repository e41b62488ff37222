package org.mpfl.engine.e2e;

import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;

/** Rank 1 fails after a short while; the others wait for a message that never comes. */
public class FailingProgram implements RankProgram {
    @Override
    public void run(RankContext ctx) throws Exception {
        if (ctx.world().rank() == 1) {
            Thread.sleep(300);
            throw new IllegalStateException("boom in rank 1");
        }
        ctx.world().recv(1, 99);
    }
}
