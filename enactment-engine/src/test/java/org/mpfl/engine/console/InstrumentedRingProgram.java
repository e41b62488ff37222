package org.mpfl.engine.console;

import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;

/**
 * A token goes round the ring {@code rounds} times; each rank computes for {@code computeMs} before
 * passing it on, reports its activities and waits like the interpreter of {@code ring.mpfl.xml}
 * would, logs every round and reports progress. Rank 0 outputs the token.
 */
public class InstrumentedRingProgram implements RankProgram {
    static final String FILE = "ring.mpfl.xml";

    @Override
    public void run(RankContext ctx) throws Exception {
        ActivityReporter report = ActivityReporter.of(ctx);
        Communicator w = ctx.world();
        int r = w.rank();
        int n = w.size();
        int rounds = ((Number) ctx.params().getOrDefault("rounds", 3)).intValue();
        long computeMs = ((Number) ctx.params().getOrDefault("computeMs", 100)).longValue();
        int next = (r + 1) % n;
        int previous = (r + n - 1) % n;
        long token = 0;
        for (int i = 0; i < rounds; i++) {
            if (r != 0) {
                report.waiting("receive", FILE + ":14:9", "receive from " + previous + " tag 0 comm world");
                token = ((Number) w.recv(previous, 0).value()).longValue();
            }
            report.activity("compute org.mpfl.samples.ring.Step", FILE + ":15:9");
            Thread.sleep(computeMs);
            token++;
            report.activity("send", FILE + ":16:9");
            w.send(token, next, 0);
            if (r == 0) {
                report.waiting("receive", FILE + ":18:9", "receive from " + previous + " tag 0 comm world");
                token = ((Number) w.recv(previous, 0).value()).longValue();
            }
            ctx.log("info", "round " + (i + 1) + " of " + rounds + ": token " + token);
            ctx.progress(i + 1, rounds);
        }
        report.activity("output", FILE + ":21:5");
        ctx.output("rank", r);
        if (r == 0) {
            ctx.output("token", token);
        }
    }
}
