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
