package org.mpfl.bench;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.Message;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;

/**
 * The benchmark's rank program (two ranks): PingPong and Ping*Pong for one N×N matrix of doubles,
 * timed on rank 0 exactly like the peers' MPJ/Open MPI benchmark: PingPong = send + receive of the
 * echo; Ping*Pong = {@value #K} back-to-back sends, then one reply of the same size, time per
 * message = total / 11. Warm-up iterations are untimed; medians are reported as outputs
 * {@code pingpong_us} and {@code pingstarpong_us} (the total), with {@code check} = the first
 * element that came back (1.0 and 2.0 expected).
 *
 * <p>Parameters: {@code n}, {@code iters}, {@code warmup}, {@code kiters}, {@code kwarmup}.
 */
public final class PingPongProgram implements RankProgram {
    static final int K = 10;
    private static final int TAG_SYNC = 1;
    private static final int TAG_PING = 2;
    private static final int TAG_PONG = 3;
    private static final Duration LIMIT = Duration.ofMinutes(5);

    @Override
    public void run(RankContext ctx) {
        Communicator w = ctx.world();
        if (w.size() != 2) {
            throw new IllegalArgumentException("the benchmark needs exactly 2 ranks, got " + w.size());
        }
        Map<String, Object> p = ctx.params();
        int n = ((Number) p.get("n")).intValue();
        int iters = ((Number) p.get("iters")).intValue();
        int warm = ((Number) p.get("warmup")).intValue();
        int kiters = ((Number) p.get("kiters")).intValue();
        int kwarm = ((Number) p.get("kwarmup")).intValue();
        int me = w.rank();
        int other = 1 - me;
        double[] mine = new double[n * n];
        Arrays.fill(mine, me + 1.0);

        sync(w, me);
        double[] t = new double[iters];
        Object last = null;
        for (int i = -warm; i < iters; i++) {
            if (me == 0) {
                long t0 = System.nanoTime();
                w.send(mine, 1, TAG_PING);
                last = w.recv(1, TAG_PONG, LIMIT).value();
                long t1 = System.nanoTime();
                if (i >= 0) {
                    t[i] = (t1 - t0) / 1e3;
                }
            } else {
                Message m = w.recv(0, TAG_PING, LIMIT);
                w.send(m.value(), 0, TAG_PONG);
            }
        }
        if (me == 0) {
            ctx.output("pingpong_us", median(t));
            ctx.output("pingpong_min_us", Arrays.stream(t).min().orElse(0));
            ctx.output("pingpong_check", ((double[]) last)[0]);
            ctx.progress(1, 2);
        }

        sync(w, me);
        double[] tk = new double[kiters];
        for (int i = -kwarm; i < kiters; i++) {
            if (me == 0) {
                long t0 = System.nanoTime();
                for (int k = 0; k < K; k++) {
                    w.send(mine, 1, TAG_PING);
                }
                last = w.recv(1, TAG_PONG, LIMIT).value();
                long t1 = System.nanoTime();
                if (i >= 0) {
                    tk[i] = (t1 - t0) / 1e3;
                }
            } else {
                for (int k = 0; k < K; k++) {
                    w.recv(0, TAG_PING, LIMIT);
                }
                w.send(mine, 0, TAG_PONG);
            }
        }
        if (me == 0) {
            ctx.output("pingstarpong_us", median(tk));
            ctx.output("pingstarpong_check", ((double[]) last)[0]);
            ctx.progress(2, 2);
        }
    }

    /** A two-rank rendezvous (the communicator's barrier is not needed for two ranks). */
    private static void sync(Communicator w, int me) {
        if (me == 0) {
            w.send(0, 1, TAG_SYNC);
            w.recv(1, TAG_SYNC, LIMIT);
        } else {
            w.recv(0, TAG_SYNC, LIMIT);
            w.send(0, 0, TAG_SYNC);
        }
    }

    static double median(double[] a) {
        if (a.length == 0) {
            return Double.NaN;
        }
        double[] s = a.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    }
}
