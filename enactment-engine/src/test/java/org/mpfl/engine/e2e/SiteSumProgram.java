package org.mpfl.engine.e2e;

import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.runtime.api.ReduceOp;

/** One allreduce of rank + 1 with the algorithm of parameter {@code algorithm} (default auto); every rank outputs the sum. */
public class SiteSumProgram implements RankProgram {
    @Override
    public void run(RankContext ctx) {
        Communicator w = ctx.world();
        String algorithm = String.valueOf(ctx.params().getOrDefault("algorithm", "auto"));
        long[] sum = (long[]) w.allreduce(new long[] {w.rank() + 1L}, ReduceOp.SUM, algorithm);
        ctx.output("sum", sum[0]);
    }
}
