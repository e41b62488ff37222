package org.mpfl.engine.console;

import java.time.Duration;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;

/**
 * Rank 1 fails in a compute activity at {@code failing.mpfl.xml:7:9}; the other ranks wait (bounded)
 * for a message from it that never comes.
 */
public class FailingAtLocationProgram implements RankProgram {
    @Override
    public void run(RankContext ctx) throws Exception {
        ActivityReporter report = ActivityReporter.of(ctx);
        if (ctx.world().rank() == 1) {
            report.activity("compute org.example.Boom", "failing.mpfl.xml:7:9");
            Thread.sleep(400);
            throw new IllegalStateException("boom in rank 1");
        }
        report.waiting("receive", "failing.mpfl.xml:11:9", "receive from 1 tag 99 comm world");
        ctx.world().recv(1, 99, Duration.ofSeconds(30));
    }
}
