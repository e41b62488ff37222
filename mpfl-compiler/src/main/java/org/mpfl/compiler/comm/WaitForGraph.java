package org.mpfl.compiler.comm;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Who waits for whom once no rank can move: an edge from each blocked rank to every rank that could
 * end one of its waits. Ranks whose waits may still be served by a rank whose analysis stopped
 * (directly or through other blocked ranks) are <em>uncertain</em> and not reported; the others are
 * <em>stuck</em>. From a stuck rank, following edges between stuck ranks ends in a cycle (a
 * deadlock) or at a rank that waits only for finished ranks (nothing can ever serve it).
 */
final class WaitForGraph {

    /** {@code from} waits for {@code to} in the blocked operation {@code blocker}. */
    record Edge(int from, int to, Blocker blocker) {
    }

    /** A path of edges from a stuck rank: a cycle (back to its first rank) or ending at {@code end}, which waits for finished ranks only. */
    record Chain(List<Edge> edges, boolean cycle, int end) {
    }

    private final Map<Integer, List<Edge>> edges = new TreeMap<>();
    private final Map<Integer, Blocker> firstBlocker = new LinkedHashMap<>();
    private final Set<Integer> stuck = new HashSet<>();

    WaitForGraph(List<SymbolicRank> ranks) {
        Set<Integer> uncertain = new HashSet<>();
        for (SymbolicRank rank : ranks) {
            if (rank.status == SymbolicRank.Status.STOPPED) {
                uncertain.add(rank.worldRank());
            }
            if (!rank.blocked()) {
                continue;
            }
            List<Edge> out = new ArrayList<>();
            for (RankThread t : rank.threads) {
                if (t.blocker != null && !(t.blocker instanceof Blockers.Join)) {
                    firstBlocker.putIfAbsent(rank.worldRank(), t.blocker);
                    for (int to : t.blocker.waitsFor()) {
                        out.add(new Edge(rank.worldRank(), to, t.blocker));
                    }
                }
            }
            edges.put(rank.worldRank(), out);
        }
        // who waits for whom, reversed: uncertainty spreads from the stopped ranks to everyone waiting for them
        Map<Integer, List<Integer>> waitedBy = new HashMap<>();
        edges.forEach((from, out) -> out.forEach(e -> waitedBy.computeIfAbsent(e.to(), k -> new ArrayList<>()).add(from)));
        Deque<Integer> pending = new ArrayDeque<>(uncertain);
        while (!pending.isEmpty()) {
            for (int waiter : waitedBy.getOrDefault(pending.pop(), List.of())) {
                if (uncertain.add(waiter)) {
                    pending.push(waiter);
                }
            }
        }
        for (Integer r : edges.keySet()) {
            if (!uncertain.contains(r)) {
                stuck.add(r);
            }
        }
    }

    /** Stuck ranks in ascending order. */
    List<Integer> stuckRanks() {
        return edges.keySet().stream().filter(stuck::contains).toList();
    }

    boolean isStuck(int rank) {
        return stuck.contains(rank);
    }

    /** The operation a blocked rank waits in (its first blocked thread). */
    Blocker blockerOf(int rank) {
        return firstBlocker.get(rank);
    }

    /** Follows edges between stuck ranks from {@code start} until a rank repeats (cycle) or none leads on. */
    Chain chainFrom(int start) {
        List<Edge> path = new ArrayList<>();
        Map<Integer, Integer> position = new LinkedHashMap<>();
        int current = start;
        while (true) {
            position.put(current, path.size());
            Edge next = null;
            for (Edge e : edges.getOrDefault(current, List.of())) {
                if (e.to() != current && stuck.contains(e.to())) {
                    next = e;
                    break;
                }
            }
            if (next == null) {
                return new Chain(path, false, current);
            }
            path.add(next);
            Integer seen = position.get(next.to());
            if (seen != null) {
                return new Chain(new ArrayList<>(path.subList(seen, path.size())), true, next.to());
            }
            current = next.to();
        }
    }
}
