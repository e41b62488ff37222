package org.mpfl.runtime.collective;

import org.mpfl.runtime.settings.RuntimeSettings;
import java.util.Locale;
import org.mpfl.ir.semantics.CollectiveAlgorithms;

/**
 * Thresholds of the automatic algorithm choice. Every rank of a communicator must use the same
 * configuration (they do when it comes from the same system properties or defaults), because the
 * choice made from it must agree on all ranks. Broadcast is the exception: only the root's choice
 * counts, the others learn it from the first message they receive.
 *
 * <p>System properties (all optional), read by {@link #fromSystemProperties()}:
 * <ul>
 *   <li>{@code mpfl.collective.bcast.longBytes}: from this payload size on, broadcast uses
 *       scatter + ring allgather instead of the binomial tree (if the communicator has at least
 *       {@code mpfl.collective.bcast.longMinRanks} ranks);</li>
 *   <li>{@code mpfl.collective.allreduce.longBytes}: from this size on, allreduce uses reduce-scatter
 *       + allgather instead of recursive doubling;</li>
 *   <li>{@code mpfl.collective.gather.binomialMinRanks}, {@code mpfl.collective.scatter.binomialMinRanks},
 *       {@code mpfl.collective.reduce.binomialMinRanks}: communicator size from which the binomial
 *       tree replaces the flat one (gather and scatter choose by size only, because the ranks'
 *       contributions may differ in length and the choice must agree);</li>
 *   <li>{@code mpfl.collective.hierarchical} ({@code true}/{@code false}): whether {@code auto}
 *       groups ranks by site when they span several sites (one leader per site talks across sites),
 *       else by service host (one leader per host talks across hosts);</li>
 *   <li>{@code mpfl.collective.<op>.algorithm}: forces the algorithm that {@code auto} means for an
 *       operation ({@code barrier}, {@code bcast}, {@code scatter}, {@code gather}, {@code allgather},
 *       {@code reduce}, {@code allreduce}, {@code alltoall}, {@code scan}: the
 *       {@link CollectiveAlgorithms#operation()} names).</li>
 * </ul>
 *
 * @param bcastLongBytes          broadcast switches to scatter-allgather at this many bytes
 * @param bcastLongMinRanks       ... when the communicator has at least this many ranks
 * @param allreduceLongBytes      allreduce switches to reduce-scatter-allgather at this many bytes
 * @param gatherBinomialMinRanks  gather uses the binomial tree from this communicator size on
 * @param scatterBinomialMinRanks scatter uses the binomial tree from this communicator size on
 * @param reduceBinomialMinRanks  reduce uses the binomial tree from this communicator size on
 * @param hierarchical            {@code auto} uses the hierarchical algorithms for barrier, broadcast and
 *                                allreduce (and reduce) when the ranks span several sites, or several hosts and share some
 * @param forced                  per operation, the algorithm {@code auto} stands for ({@code null}: choose)
 */
public record CollectiveConfig(long bcastLongBytes, int bcastLongMinRanks, long allreduceLongBytes,
                               int gatherBinomialMinRanks, int scatterBinomialMinRanks,
                               int reduceBinomialMinRanks, boolean hierarchical, java.util.Map<String, String> forced) {

    /** Defaults, measured on the 2-core reference machine (see docs/benchmarks.md, "Collectives"). */
    public static CollectiveConfig defaults() {
        return new CollectiveConfig(RuntimeSettings.COLLECTIVE_BCAST_LONG_BYTES.defaultValue(),
                RuntimeSettings.COLLECTIVE_BCAST_LONG_MIN_RANKS.defaultValue(),
                RuntimeSettings.COLLECTIVE_ALLREDUCE_LONG_BYTES.defaultValue(),
                RuntimeSettings.COLLECTIVE_GATHER_BINOMIAL_MIN_RANKS.defaultValue(),
                RuntimeSettings.COLLECTIVE_SCATTER_BINOMIAL_MIN_RANKS.defaultValue(),
                RuntimeSettings.COLLECTIVE_REDUCE_BINOMIAL_MIN_RANKS.defaultValue(),
                RuntimeSettings.COLLECTIVE_HIERARCHICAL.defaultValue(), java.util.Map.of());
    }

    /** Defaults overridden by the {@code mpfl.collective.*} system properties. */
    public static CollectiveConfig fromSystemProperties() {
        CollectiveConfig d = defaults();
        java.util.Map<String, String> forced = new java.util.HashMap<>();
        for (CollectiveAlgorithms op : CollectiveAlgorithms.values()) {
            String v = RuntimeSettings.COLLECTIVE_ALGORITHM.forMember(op.operation()).raw();
            if (v != null && !v.isBlank() && !v.equals("auto")) {
                forced.put(op.operation(), v.trim().toLowerCase(Locale.ROOT));
            }
        }
        return new CollectiveConfig(
                RuntimeSettings.COLLECTIVE_BCAST_LONG_BYTES.get(),
                RuntimeSettings.COLLECTIVE_BCAST_LONG_MIN_RANKS.get(),
                RuntimeSettings.COLLECTIVE_ALLREDUCE_LONG_BYTES.get(),
                RuntimeSettings.COLLECTIVE_GATHER_BINOMIAL_MIN_RANKS.get(),
                RuntimeSettings.COLLECTIVE_SCATTER_BINOMIAL_MIN_RANKS.get(),
                RuntimeSettings.COLLECTIVE_REDUCE_BINOMIAL_MIN_RANKS.get(),
                RuntimeSettings.COLLECTIVE_HIERARCHICAL.get(),
                java.util.Map.copyOf(forced));
    }

    /** The algorithm {@code auto} is forced to for {@code op}, or {@code null}. */
    public String forcedAlgorithm(String op) {
        return forced.get(op);
    }
}
