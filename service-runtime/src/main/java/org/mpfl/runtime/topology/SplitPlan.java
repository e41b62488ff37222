package org.mpfl.runtime.topology;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What MPI_Comm_split decides, from every parent rank's (colour, key, context proposal): the new
 * communicator of one rank holds the parent ranks of its colour ordered by (key, parent rank); its
 * context is the maximum proposal over the whole parent (so every colour agrees, see
 * {@link ContextAllocator}). A negative colour (MPI_UNDEFINED) joins no communicator.
 *
 * @param members parent ranks of the new communicator in new-rank order ({@code null} for a negative colour)
 * @param context the agreed user context
 */
public record SplitPlan(int[] members, int context) {

    /**
     * @param triples {@code colour, key, proposal} of parent rank i at {@code 3i, 3i+1, 3i+2}
     * @param myParentRank this rank in the parent
     */
    public static SplitPlan of(int[] triples, int myParentRank) {
        int p = triples.length / 3;
        int context = Integer.MIN_VALUE;
        for (int i = 0; i < p; i++) {
            context = Math.max(context, triples[3 * i + 2]);
        }
        int color = triples[3 * myParentRank];
        if (color < 0) {
            return new SplitPlan(null, context);
        }
        List<Integer> same = new ArrayList<>();
        for (int i = 0; i < p; i++) {
            if (triples[3 * i] == color) {
                same.add(i);
            }
        }
        same.sort(Comparator.<Integer>comparingInt(i -> triples[3 * i + 1]).thenComparingInt(i -> i));
        return new SplitPlan(same.stream().mapToInt(Integer::intValue).toArray(), context);
    }
}
