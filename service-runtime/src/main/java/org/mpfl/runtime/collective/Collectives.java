package org.mpfl.runtime.collective;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.mpfl.ir.semantics.CollectiveAlgorithms;
import org.mpfl.runtime.api.ReduceOp;

/**
 * The collective operations of one communicator, run over its {@link CollectiveChannel}. A
 * communicator implementation creates one {@code Collectives} per communicator and delegates every
 * collective of {@link org.mpfl.runtime.api.Communicator} to the method of the same name.
 *
 * <p>Every rank must call the same collectives in the same order (MPI's rule); each call takes the
 * next sequence number of this communicator, which goes into the tags ({@link Tags}), so messages of
 * consecutive collectives never match each other. Collectives of one communicator must not be called
 * concurrently from several threads of one rank.
 *
 * <p>Algorithms are chosen by name, from the table the compiler checks documents against
 * ({@link CollectiveAlgorithms}), or, for {@code auto} (or {@code null}), by message size,
 * communicator size and placement ({@link CollectiveConfig}): a communicator whose ranks span several
 * sites gets the site-aware {@code hierarchical} barrier, broadcast, reduce and allreduce
 * ({@link Hierarchical}), which cross between sites once per site and direction.
 */
public final class Collectives {
    private final CollectiveChannel channel;
    private final CollectiveConfig config;
    private final AtomicInteger sequence = new AtomicInteger();

    public Collectives(CollectiveChannel channel, CollectiveConfig config) {
        this.channel = channel;
        this.config = config;
    }

    /** With {@link CollectiveConfig#fromSystemProperties()}. */
    public Collectives(CollectiveChannel channel) {
        this(channel, CollectiveConfig.fromSystemProperties());
    }

    public CollectiveConfig config() {
        return config;
    }

    /** The algorithm names of an operation ({@code bcast} or {@code broadcast}; for help texts and benchmarks). */
    public static List<String> algorithms(String op) {
        return CollectiveAlgorithms.ofOperation(op)
                .orElseThrow(() -> new IllegalArgumentException("unknown collective operation '" + op + "'"))
                .algorithms();
    }

    // ------------------------------------------------------------------------------------ operations

    public void barrier() {
        barrier("auto");
    }

    public void barrier(String algorithm) {
        String alg = resolve(CollectiveAlgorithms.BARRIER, algorithm);
        int seq = next();
        if (channel.size() == 1) {
            return;
        }
        if (alg == null) {
            alg = hierarchical() ? "hierarchical" : "binomial";
        }
        switch (alg) {
            case "serial" -> Barriers.serial(channel, seq);
            case "dissemination" -> Barriers.dissemination(channel, seq);
            case "hierarchical" -> {
                int[] groups = groups();
                if (groups != null) {
                    Hierarchical.barrier(channel, groups, seq);
                } else {
                    Barriers.binomial(channel, seq);
                }
            }
            case "binomial" -> Barriers.binomial(channel, seq);
            default -> throw unimplemented(CollectiveAlgorithms.BARRIER, alg);
        }
    }

    /** The root's value on every rank; the root gets its own value back (not a copy). */
    public Object bcast(Object value, int root, String algorithm) {
        String alg = resolve(CollectiveAlgorithms.BROADCAST, algorithm);
        checkRoot(root);
        int seq = next();
        int p = channel.size();
        if (p == 1) {
            return value;
        }
        if (alg == null && hierarchical()) {
            alg = "hierarchical";
        }
        if (alg == null) {
            // only the root's choice matters: the others learn it from the first message
            boolean isLong = channel.rank() == root && Broadcasts.isLong(value, p, config);
            return Broadcasts.tree(channel, seq, value, root, isLong);
        }
        return switch (alg) {
            case "serial" -> Broadcasts.serial(channel, seq, value, root);
            case "binomial" -> Broadcasts.tree(channel, seq, value, root, false);
            case "bstore" -> Broadcasts.bstore(channel, seq, value, root);
            case "hierarchical" -> groups() != null
                    ? Hierarchical.bcast(channel, groups(), seq, value, root, config)
                    : Broadcasts.tree(channel, seq, value, root, channel.rank() == root && Broadcasts.isLong(value, p, config));
            case "scatter-allgather" -> Broadcasts.tree(channel, seq, value, root, true);
            default -> throw unimplemented(CollectiveAlgorithms.BROADCAST, alg);
        };
    }

    /** Block distribution of the root's array (the first {@code len % p} ranks get one element more). */
    public Object scatter(Object array, int root, String algorithm) {
        String alg = resolve(CollectiveAlgorithms.SCATTER, algorithm);
        checkRoot(root);
        int seq = next();
        int p = channel.size();
        boolean isRoot = channel.rank() == root;
        if (isRoot && !Seqs.isSeq(array)) {
            throw new IllegalArgumentException("scatter: the root's value must be an array, not "
                    + (array == null ? "null" : array.getClass().getSimpleName()));
        }
        if (p == 1) {
            return Seqs.slice(array, 0, Seqs.length(array));
        }
        if (alg == null) {
            alg = p >= config.scatterBinomialMinRanks() ? "binomial" : "serial";
        }
        return switch (alg) {
            case "binomial" -> Gathers.scatterBinomial(channel, seq, array, root);
            case "serial" -> Gathers.scatterSerial(channel, seq, array, root);
            default -> throw unimplemented(CollectiveAlgorithms.SCATTER, alg);
        };
    }

    /**
     * Every rank's value at the root in rank order: scalars become an array, arrays are
     * concatenated, strings and other objects become a {@link java.util.List}; {@code null} elsewhere.
     */
    public Object gather(Object value, int root, String algorithm) {
        String alg = resolve(CollectiveAlgorithms.GATHER, algorithm);
        checkRoot(root);
        int seq = next();
        int p = channel.size();
        Object mine = Contribution.wire(value);
        Object gathered;
        if (p == 1) {
            gathered = Seqs.concat(new Object[] {mine});
        } else {
            if (alg == null) {
                alg = p >= config.gatherBinomialMinRanks() ? "binomial" : "serial";
            }
            gathered = switch (alg) {
                case "binomial" -> Gathers.gatherBinomial(channel, seq, mine, root);
                case "serial" -> Gathers.gatherSerial(channel, seq, mine, root);
                default -> throw unimplemented(CollectiveAlgorithms.GATHER, alg);
            };
        }
        return gathered == null ? null : Contribution.fromWire(gathered, value);
    }

    /** Like {@link #gather}, with the result on every rank. */
    public Object allgather(Object value, String algorithm) {
        String alg = resolve(CollectiveAlgorithms.ALLGATHER, algorithm);
        int seq = next();
        int p = channel.size();
        Object mine = Contribution.wire(value);
        if (p == 1) {
            return Contribution.fromWire(Seqs.concat(new Object[] {mine}), value);
        }
        if (alg == null) {
            alg = Integer.bitCount(p) == 1 ? "recursive-doubling" : "ring";
        }
        Object gathered = switch (alg) {
            case "recursive-doubling" -> Gathers.allgatherRecursiveDoubling(channel, seq, mine);
            case "gather-broadcast" -> Broadcasts.tree(channel, seq, Gathers.gatherBinomial(channel, seq, mine, 0), 0, false);
            case "ring" -> Gathers.allgatherRing(channel, seq, mine);
            default -> throw unimplemented(CollectiveAlgorithms.ALLGATHER, alg);
        };
        return Contribution.fromWire(gathered, value);
    }

    /** Element-wise reduction at the root ({@code null} elsewhere). */
    public Object reduce(Object value, ReduceOp op, int root, String algorithm) {
        String alg = resolve(CollectiveAlgorithms.REDUCE, algorithm);
        checkRoot(root);
        int seq = next();
        int p = channel.size();
        Object operand = Reductions.operand(value, op);
        Object reduced;
        if (p == 1) {
            reduced = Reductions.copy(operand);
        } else {
            if (alg == null && config.hierarchical() && Hierarchy.spans(channel.sites())) {
                alg = "hierarchical"; // by host within one site only when asked: auto's single-site choice stays flat
            }
            if (alg == null) {
                alg = p >= config.reduceBinomialMinRanks() ? "binomial" : "serial";
            }
            if (alg.equals("hierarchical") && groups() == null) {
                alg = "binomial";
            }
            reduced = switch (alg) {
                case "hierarchical" -> Hierarchical.reduce(channel, groups(), seq, operand, op, root);
                case "binomial" -> ReduceAlgorithms.reduceBinomial(channel, seq, operand, op, root);
                case "serial" -> ReduceAlgorithms.reduceSerial(channel, seq, operand, op, root);
                default -> throw unimplemented(CollectiveAlgorithms.REDUCE, alg);
            };
        }
        return reduced == null ? null : Reductions.result(reduced, value);
    }

    /** Element-wise reduction with the result on every rank (the same bits everywhere). */
    public Object allreduce(Object value, ReduceOp op, String algorithm) {
        String alg = resolve(CollectiveAlgorithms.ALLREDUCE, algorithm);
        int seq = next();
        int p = channel.size();
        Object operand = Reductions.operand(value, op);
        if (p == 1) {
            return Reductions.result(Reductions.copy(operand), value);
        }
        boolean isLong = Seqs.byteSize(operand) >= config.allreduceLongBytes()
                && Seqs.length(operand) >= Integer.highestOneBit(p);
        if (alg == null) {
            alg = hierarchical() ? "hierarchical" : isLong ? "reduce-scatter-allgather" : "recursive-doubling";
        }
        if (alg.equals("hierarchical") && groups() == null) {
            alg = isLong ? "reduce-scatter-allgather" : "recursive-doubling";
        }
        Object reduced = switch (alg) {
            case "hierarchical" -> Hierarchical.allreduce(channel, groups(), seq, operand, op, config);
            case "reduce-broadcast" -> ReduceAlgorithms.allreduceReduceBroadcast(channel, seq, operand, op);
            case "reduce-scatter-allgather" -> ReduceAlgorithms.allreduceReduceScatterAllgather(channel, seq, operand, op);
            case "recursive-doubling" -> ReduceAlgorithms.allreduceRecursiveDoubling(channel, seq, operand, op);
            default -> throw unimplemented(CollectiveAlgorithms.ALLREDUCE, alg);
        };
        return Reductions.result(reduced, value);
    }

    /** Block {@code j} (block distribution) of this rank's array goes to rank {@code j}; received blocks are concatenated in rank order. */
    public Object alltoall(Object array, String algorithm) {
        String alg = resolve(CollectiveAlgorithms.ALLTOALL, algorithm);
        int seq = next();
        if (!Seqs.isSeq(array)) {
            throw new IllegalArgumentException("alltoall: the value must be an array, not "
                    + (array == null ? "null" : array.getClass().getSimpleName()));
        }
        if (channel.size() == 1) {
            return Seqs.slice(array, 0, Seqs.length(array));
        }
        return switch (alg == null ? "pairwise" : alg) {
            case "basic" -> Gathers.alltoallBasic(channel, seq, array);
            case "pairwise" -> Gathers.alltoallPairwise(channel, seq, array);
            default -> throw unimplemented(CollectiveAlgorithms.ALLTOALL, alg);
        };
    }

    /** Inclusive prefix reduction over ranks {@code 0..rank}. */
    public Object scan(Object value, ReduceOp op, String algorithm) {
        String alg = resolve(CollectiveAlgorithms.SCAN, algorithm);
        int seq = next();
        Object operand = Reductions.operand(value, op);
        Object reduced = channel.size() == 1 ? Reductions.copy(operand) : switch (alg == null ? "recursive-doubling" : alg) {
            case "linear" -> ReduceAlgorithms.scanLinear(channel, seq, operand, op);
            case "recursive-doubling" -> ReduceAlgorithms.scanRecursiveDoubling(channel, seq, operand, op);
            default -> throw unimplemented(CollectiveAlgorithms.SCAN, alg);
        };
        return Reductions.result(reduced, value);
    }

    // ------------------------------------------------------------------------------------ helpers

    /**
     * Whether {@code auto} picks the hierarchical algorithms here: the communicator spans several sites,
     * or several hosts some of which hold several of its ranks (the same answer on every rank: it
     * depends on placement only).
     */
    private boolean hierarchical() {
        return config.hierarchical() && groups() != null;
    }

    /**
     * The groups of the hierarchical algorithms: the sites when the communicator spans several (the
     * costly links are between sites), else the hosts when grouping by host saves messages, else
     * {@code null} (the flat algorithms).
     */
    private int[] groups() {
        int[] sites = channel.sites();
        if (Hierarchy.spans(sites)) {
            return sites;
        }
        int[] hosts = channel.hosts();
        return Hierarchy.worthwhile(hosts) ? hosts : null;
    }

    private int next() {
        return sequence.getAndIncrement();
    }

    private void checkRoot(int root) {
        if (root < 0 || root >= channel.size()) {
            throw new IllegalArgumentException("root " + root + " is not a rank of a communicator of size " + channel.size());
        }
    }

    /**
     * A name of the table that this class does not dispatch: a table and a runtime out of step, which
     * the collective suites (every algorithm of every operation) find before a document does.
     */
    private static IllegalStateException unimplemented(CollectiveAlgorithms op, String algorithm) {
        return new IllegalStateException("the runtime has no implementation of " + op.element() + " algorithm '" + algorithm
                + "' of the table of collective algorithms");
    }

    /** The named algorithm (an alias resolved), or {@code null} for an automatic choice. */
    private String resolve(CollectiveAlgorithms op, String algorithm) {
        Optional<String> named = op.resolve(algorithm);
        if (named.isEmpty()) {
            String forced = config.forcedAlgorithm(op.operation());
            named = forced == null ? Optional.empty() : op.resolve(forced);
        }
        return named.orElse(null);
    }
}
