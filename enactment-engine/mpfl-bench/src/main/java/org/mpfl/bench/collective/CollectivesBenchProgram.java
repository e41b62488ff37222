package org.mpfl.bench.collective;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.mpfl.runtime.api.RankContext;
import org.mpfl.runtime.api.RankProgram;
import org.mpfl.runtime.api.ReduceOp;
import org.mpfl.runtime.collective.Collectives;
import org.mpfl.runtime.topology.CollectiveCommunicator;

/**
 * The rank program of {@code mpflc bench collectives}: for every case (operation, algorithm, N)
 * it times, like the peers' MPJ/Open MPI benchmark, {@code barrier; t0 = now; op; t1 = now} on every
 * rank, takes per iteration the maximum of {@code t1 - t0} over the ranks (one reduce(MAX) after
 * the loop, outside the timing) and reports the median, minimum and mean at rank 0 as outputs
 * {@code op|algorithm|N} = {@code [median, min, mean, iterations]} (µs). Payload: N×N doubles;
 * broadcast and gather have root 0, allreduce sums. Every case checks its result after the loop.
 *
 * <p>Parameters: {@code cases} ({@code op:alg,alg;op:alg...}), {@code sizes} ({@code 10,100,...}),
 * {@code scale} (iteration multiplier).
 */
public final class CollectivesBenchProgram implements RankProgram {

    /** Iterations like the peers: about 40 MB / p per case, clamped to [10, 200], times the scale; barrier 500. */
    static int iterations(String op, int p, long bytes, double scale) {
        int n = op.equals("barrier") ? 500 : (int) Math.max(10, Math.min(200, Math.round(40e6 / p / Math.max(1, bytes))));
        return Math.max(3, (int) Math.round(n * scale));
    }

    @Override
    public void run(RankContext ctx) {
        CollectiveCommunicator world = CollectiveCommunicator.of(ctx.world());
        Collectives coll = world.collectives();
        Map<String, Object> params = ctx.params();
        double scale = params.get("scale") == null ? 1.0 : ((Number) params.get("scale")).doubleValue();
        List<Integer> sizes = new ArrayList<>();
        for (String s : String.valueOf(params.get("sizes")).split(",")) {
            sizes.add(Integer.parseInt(s.trim()));
        }
        String[] cases = String.valueOf(params.get("cases")).split(";");
        int total = 0;
        for (String c : cases) {
            String op = c.substring(0, c.indexOf(':'));
            total += c.substring(c.indexOf(':') + 1).split(",").length * (op.equals("barrier") ? 1 : sizes.size());
        }
        int done = 0;
        int p = world.size();
        // pass 1, untimed: every case a few times, so that the JIT and the heap have seen every
        // path and size before anything is timed (else the first case of each operation pays)
        for (String c : cases) {
            String op = c.substring(0, c.indexOf(':'));
            for (String alg : c.substring(c.indexOf(':') + 1).split(",")) {
                for (int n : op.equals("barrier") ? List.of(0) : sizes) {
                    measure(world, coll, op, alg, n, 3, 0);
                }
            }
        }
        for (String c : cases) {
            String op = c.substring(0, c.indexOf(':'));
            for (String alg : c.substring(c.indexOf(':') + 1).split(",")) {
                for (int n : op.equals("barrier") ? List.of(0) : sizes) {
                    // no garbage of the previous case may be collected while this one is timed
                    System.gc();
                    coll.barrier("auto");
                    int iters = iterations(op, p, 8L * n * n, scale);
                    double[] max = measure(world, coll, op, alg, n, iters, Math.max(3, iters / 4));
                    if (world.rank() == 0) {
                        double[] sorted = max.clone();
                        Arrays.sort(sorted);
                        double median = sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                                : 0.5 * (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]);
                        double mean = Arrays.stream(max).average().orElse(Double.NaN);
                        ctx.output(op + "|" + alg + "|" + n, new double[] {median, sorted[0], mean, iters});
                    }
                    ctx.progress(++done, total);
                }
            }
        }
    }

    /**
     * {@code warm} untimed and {@code iters} timed iterations of {@code barrier; t0; op; t1}; returns
     * (at rank 0, else {@code null}) the per-iteration maximum of t1 - t0 over the ranks, in µs.
     */
    private static double[] measure(CollectiveCommunicator world, Collectives coll, String op, String alg, int n,
                                    int iters, int warm) {
        int me = world.rank();
        double[] data = new double[n * n];
        Arrays.fill(data, me + 1.0);
        double[] times = new double[iters];
        Object last = null;
        for (int i = -warm; i < iters; i++) {
            coll.barrier("auto");
            long t0 = System.nanoTime();
            last = switch (op) {
                case "barrier" -> {
                    coll.barrier(alg);
                    yield null;
                }
                case "bcast" -> world.bcast(me == 0 ? data : null, 0, alg);
                case "gather" -> world.gather(data, 0, alg);
                case "allreduce" -> world.allreduce(data, ReduceOp.SUM, alg);
                default -> throw new IllegalArgumentException("unknown benchmark operation " + op);
            };
            long t1 = System.nanoTime();
            if (i >= 0) {
                times[i] = (t1 - t0) / 1e3;
            }
        }
        check(op, last, me, world.size(), n);
        return (double[]) world.reduce(times, ReduceOp.MAX, 0, "auto");
    }

    /** A broken transfer must abort the benchmark, not produce numbers. */
    private static void check(String op, Object last, int me, int p, int n) {
        if (n == 0 || op.equals("barrier")) {
            return;
        }
        boolean ok = switch (op) {
            case "bcast" -> ((double[]) last).length == n * n && ((double[]) last)[n * n - 1] == 1.0;
            case "gather" -> me != 0 || (((double[]) last).length == p * n * n && ((double[]) last)[p * n * n - 1] == p);
            case "allreduce" -> ((double[]) last)[0] == p * (p + 1) / 2.0;
            default -> true;
        };
        if (!ok) {
            throw new IllegalStateException(op + " delivered a wrong result at N=" + n + " on rank " + me);
        }
    }
}
