package org.mpfl.runtime.collective;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.runtime.api.ReduceOp;
import org.mpfl.runtime.api.Request;

/**
 * Topology-aware algorithms (as MagPIe's and MPICH-G2's): the ranks of one group first work among
 * themselves, and only one leader per group talks to the other groups. The groups are sites when the
 * communicator spans several ({@link CollectiveChannel#sites()}: the costly hop is the WAN link between
 * sites, crossed once per site and direction), else service hosts ({@link CollectiveChannel#hosts()}:
 * the in-JVM hand-over is cheap, the TCP or HTTP hop is not). With ranks placed round-robin on two
 * groups, a flat binomial tree crosses groups on every edge of its last level; these cross once per group.
 *
 * <p><b>Reduction order</b> (reduce, allreduce): each group reduces its ranks' values with the binomial
 * tree over the group's ranks in rank order, rooted at the group's leader; then the leaders combine the
 * groups' results in the order of their leaders (the binomial tree for reduce, recursive doubling — or
 * reduce-scatter-allgather for long operands — for allreduce, over the leaders in ascending rank order).
 * Every operator is commutative, so only the grouping matters for floating point: when each group is a
 * contiguous block of ranks of the same power-of-two size and the number of groups is a power of two,
 * the grouping is that of the flat binomial reduce and recursive doubling, and the results are equal
 * bit for bit; otherwise equal up to floating-point rounding (exactly equal for integers, min, max and
 * the logical and bitwise operators). {@code docs/language-reference.md} states this order.
 *
 * <p>Gather, scatter and allgather (gather to rank 0, then broadcast) move whole blocks between leaders,
 * which keeps rank order only when every group is a block of consecutive ranks ({@link Hierarchy#contiguous},
 * as site-aware placement makes them); otherwise the flat algorithms run. Alltoall has no hierarchical
 * form: every rank sends every other rank its own block, so a leader would forward the same bytes
 * across the link in fewer, larger messages, holding the group's whole outgoing volume meanwhile.
 */
final class Hierarchical {
    private Hierarchical() {
    }

    static Object bcast(CollectiveChannel ch, int[] groups, int seq, Object value, int root, CollectiveConfig config) {
        Hierarchy h = Hierarchy.of(groups, ch.rank(), root);
        Object v = value;
        // a leader starts its group's local sends while its sends to the other leaders are still under way
        List<Request> pending = new ArrayList<>();
        if (h.isLeader) {
            SubChannel leaders = new SubChannel(ch, h.leaders);
            boolean isLong = ch.rank() == root && Broadcasts.isLong(value, leaders.size(), config);
            v = Broadcasts.tree(leaders, seq, value, h.leaderRoot, isLong, pending);
        }
        Object result = Broadcasts.tree(new SubChannel(ch, h.local), seq, v, h.localRoot, false, pending);
        Requests.awaitAll(pending);
        return result;
    }

    /** The reduction at {@code root} ({@code null} elsewhere): within each group to its leader, then among the leaders to the root. */
    static Object reduce(CollectiveChannel ch, int[] groups, int seq, Object operand, ReduceOp op, int root) {
        Hierarchy h = Hierarchy.of(groups, ch.rank(), root);
        Object reduced = reduceLocally(ch, h, seq, operand, op);
        if (!h.isLeader) {
            return null;
        }
        return h.leaders.length == 1 ? reduced
                : ReduceAlgorithms.reduceBinomial(new SubChannel(ch, h.leaders), seq, reduced, op, h.leaderRoot);
    }

    static Object allreduce(CollectiveChannel ch, int[] groups, int seq, Object operand, ReduceOp op, CollectiveConfig config) {
        Hierarchy h = Hierarchy.of(groups, ch.rank(), 0);
        SubChannel local = new SubChannel(ch, h.local);
        Object reduced = reduceLocally(ch, h, seq, operand, op);
        if (h.isLeader && h.leaders.length > 1) {
            SubChannel leaders = new SubChannel(ch, h.leaders);
            boolean isLong = Seqs.byteSize(reduced) >= config.allreduceLongBytes()
                    && Seqs.length(reduced) >= Integer.highestOneBit(leaders.size());
            reduced = isLong ? ReduceAlgorithms.allreduceReduceScatterAllgather(leaders, seq, reduced, op)
                    : ReduceAlgorithms.allreduceRecursiveDoubling(leaders, seq, reduced, op);
        }
        return local.size() == 1 ? reduced : Broadcasts.tree(local, seq, reduced, h.localRoot, false);
    }

    /** The group's reduction at its leader (a fresh array there; {@code null} at the others). */
    private static Object reduceLocally(CollectiveChannel ch, Hierarchy h, int seq, Object operand, ReduceOp op) {
        SubChannel local = new SubChannel(ch, h.local);
        return local.size() == 1 ? Reductions.copy(operand) : ReduceAlgorithms.reduceBinomial(local, seq, operand, op, h.localRoot);
    }

    /**
     * Every rank's contribution at the root in rank order ({@code null} elsewhere), for groups of
     * consecutive ranks ({@link Hierarchy#contiguous}): each group gathers its block at its leader, then
     * the leaders gather the blocks at the root, one message per other group.
     */
    static Object gather(CollectiveChannel ch, int[] groups, int seq, Object mine, int root) {
        Hierarchy h = Hierarchy.of(groups, ch.rank(), root);
        SubChannel local = new SubChannel(ch, h.local);
        Object block = local.size() == 1 ? mine : Gathers.gatherBinomial(local, seq, mine, h.localRoot);
        if (!h.isLeader) {
            return null;
        }
        return Gathers.gatherBinomial(new SubChannel(ch, h.leaders), seq, block, h.leaderRoot);
    }

    /**
     * The root's array in block distribution, for groups of consecutive ranks: the root sends each other
     * group's leader that group's range of the array (one message per group), and each leader scatters
     * its range within its group. The blocks are the flat scatter's: within a group of consecutive ranks
     * the global distribution's extra elements fall on the group's first ranks, as the group's own does.
     */
    static Object scatter(CollectiveChannel ch, int[] groups, int seq, Object array, int root) {
        Hierarchy h = Hierarchy.of(groups, ch.rank(), root);
        int tag = Tags.of(seq, Tags.SCATTER);
        int p = ch.size();
        Object range = null;
        List<Request> sends = new ArrayList<>();
        if (ch.rank() == root) {
            int length = Seqs.length(array);
            for (int leader : h.leaders) {
                int[] block = Hierarchy.blockOf(groups, leader);
                int from = BlockDistribution.offset(length, p, block[0]);
                int to = BlockDistribution.offset(length, p, block[1]);
                if (leader == root) {
                    range = Seqs.slice(array, from, to);
                } else {
                    sends.add(ch.isendRange(array, from, to - from, leader, tag));
                }
            }
        } else if (h.isLeader) {
            range = ch.recv(root, tag).value();
        }
        SubChannel local = new SubChannel(ch, h.local);
        Object mine = local.size() == 1 ? range : Gathers.scatterBinomial(local, seq, range, h.localRoot);
        Requests.awaitAll(sends);
        return mine;
    }

    static void barrier(CollectiveChannel ch, int[] groups, int seq) {
        Hierarchy h = Hierarchy.of(groups, ch.rank(), 0);
        SubChannel local = new SubChannel(ch, h.local);
        int up = Tags.of(seq, Tags.BARRIER_LOCAL);
        int down = Tags.of(seq, Tags.BARRIER_DOWN);
        // signals are not awaited, as in Barriers
        if (!h.isLeader) {
            local.isend(Barriers.EMPTY, h.localRoot, up);
            local.recv(h.localRoot, down);
            return;
        }
        List<Request> in = new ArrayList<>();
        for (int i = 0; i < local.size(); i++) {
            if (i != h.localRoot) {
                in.add(local.irecv(i, up));
            }
        }
        Requests.awaitAll(in);
        if (h.leaders.length > 1) {
            Barriers.dissemination(new SubChannel(ch, h.leaders), seq);
        }
        for (int i = 0; i < local.size(); i++) {
            if (i != h.localRoot) {
                local.isend(Barriers.EMPTY, i, down);
            }
        }
    }
}
