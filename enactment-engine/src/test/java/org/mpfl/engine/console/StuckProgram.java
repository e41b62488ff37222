package org.mpfl.engine.console;

import java.time.Duration;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;

/**
 * A run that does not move until it is cancelled: rank 0 is in a long computation, rank 1 waits to
 * receive from rank 0 (tag 7, world), every further rank waits in an allreduce. Each "wait" is a
 * bounded receive that the domain's abort ends at once.
 */
public class StuckProgram implements RankProgram {
    @Override
    public void run(RankContext ctx) throws Exception {
        ActivityReporter report = ActivityReporter.of(ctx);
        int r = ctx.world().rank();
        ctx.log("info", "rank " + r + " started");
        if (r == 0) {
            report.activity("compute org.example.LongStep", "stuck.mpfl.xml:8:7");
            ctx.progress(1, 4);
        } else if (r == 1) {
            report.waiting("receive", "stuck.mpfl.xml:12:7", "receive from 0 tag 7 comm world");
        } else {
            report.waiting("allreduce", "stuck.mpfl.xml:15:7", "allreduce comm world");
        }
        ctx.world().recv((r + 1) % ctx.world().size(), 4242, Duration.ofSeconds(60));
    }
}
