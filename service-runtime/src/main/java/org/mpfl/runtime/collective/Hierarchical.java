package org.mpfl.runtime.collective;

import org.mpfl.runtime.api.ReduceOp;

/**
 * Host-aware algorithms: the ranks of one service host first work among themselves (in-JVM
 * hand-over, cheap), and only one leader per host talks across hosts (the costly TCP or HTTP hop).
 * With ranks placed round-robin on two hosts, a flat binomial tree crosses hosts on every edge of
 * its last level; these cross once per host.
 */
final class Hierarchical {
    private Hierarchical() {
    }

    static Object bcast(CollectiveChannel ch, int seq, Object value, int root, CollectiveConfig config) {
        Hierarchy h = Hierarchy.of(ch.hosts(), ch.rank(), root);
        Object v = value;
        // a leader starts its host's local sends while its cross-host sends are still under way
        java.util.List<org.mpfl.runtime.api.Request> pending = new java.util.ArrayList<>();
        if (h.isLeader) {
            SubChannel leaders = new SubChannel(ch, h.leaders);
            boolean isLong = ch.rank() == root && Broadcasts.isLong(value, leaders.size(), config);
            v = Broadcasts.tree(leaders, seq, value, h.leaderRoot, isLong, pending);
        }
        Object result = Broadcasts.tree(new SubChannel(ch, h.local), seq, v, h.localRoot, false, pending);
        Requests.awaitAll(pending);
        return result;
    }

    static Object allreduce(CollectiveChannel ch, int seq, Object operand, ReduceOp op, CollectiveConfig config) {
        Hierarchy h = Hierarchy.of(ch.hosts(), ch.rank(), 0);
        SubChannel local = new SubChannel(ch, h.local);
        Object reduced = local.size() == 1 ? Reductions.copy(operand)
                : ReduceAlgorithms.reduceBinomial(local, seq, operand, op, h.localRoot);
        if (h.isLeader && h.leaders.length > 1) {
            SubChannel leaders = new SubChannel(ch, h.leaders);
            boolean isLong = Seqs.byteSize(reduced) >= config.allreduceLongBytes()
                    && Seqs.length(reduced) >= Integer.highestOneBit(leaders.size());
            reduced = isLong ? ReduceAlgorithms.allreduceReduceScatterAllgather(leaders, seq, reduced, op)
                    : ReduceAlgorithms.allreduceRecursiveDoubling(leaders, seq, reduced, op);
        }
        return local.size() == 1 ? reduced : Broadcasts.tree(local, seq, reduced, h.localRoot, false);
    }

    static void barrier(CollectiveChannel ch, int seq) {
        Hierarchy h = Hierarchy.of(ch.hosts(), ch.rank(), 0);
        SubChannel local = new SubChannel(ch, h.local);
        int up = Tags.of(seq, Tags.BARRIER_LOCAL);
        int down = Tags.of(seq, Tags.BARRIER_DOWN);
        // signals are not awaited, as in Barriers
        if (!h.isLeader) {
            local.isend(Barriers.EMPTY, h.localRoot, up);
            local.recv(h.localRoot, down);
            return;
        }
        java.util.List<org.mpfl.runtime.api.Request> in = new java.util.ArrayList<>();
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
