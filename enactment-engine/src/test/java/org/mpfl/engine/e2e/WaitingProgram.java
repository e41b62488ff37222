package org.mpfl.engine.e2e;

import java.time.Duration;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;

/** Every rank waits (bounded, 60 s) for a message nobody sends: stands for a long computation. */
public class WaitingProgram implements RankProgram {
    @Override
    public void run(RankContext ctx) {
        ctx.world().recv((ctx.world().rank() + 1) % ctx.world().size(), 42, Duration.ofSeconds(60));
    }
}
