package org.mpfl.runtime.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The runtime takes algorithm names from the table the compiler checks against: an alias runs its
 * algorithm, and a name the operation lacks — written in a plan or forced for {@code auto} by a
 * system property — is refused with the operation's names before any message moves.
 */
class AlgorithmChoiceTest {
    private static Collectives single(Map<String, String> forced) {
        CollectiveConfig d = CollectiveConfig.defaults();
        CollectiveConfig config = new CollectiveConfig(d.bcastLongBytes(), d.bcastLongMinRanks(), d.allreduceLongBytes(),
                d.gatherBinomialMinRanks(), d.scatterBinomialMinRanks(), d.reduceBinomialMinRanks(), d.hierarchical(), forced);
        return new Collectives(new MemoryChannels(1, false).channel(0, 0), config);
    }

    @Test
    void aNameOfAnotherOperationIsRefusedWithThisOperationsNames() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> single(Map.of()).bcast(new double[] {1}, 0, "dissemination"));
        assertEquals("unknown broadcast algorithm 'dissemination' (known: auto, serial, binomial, bstore, scatter-allgather,"
                + " hierarchical, bandwidth-optimal)", e.getMessage());
    }

    @Test
    void aForcedChoiceForAutoGoesThroughTheSameTable() {
        Collectives forcedWrong = single(Map.of("allreduce", "ring"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> forcedWrong.allreduce(new double[] {1}, org.mpfl.runtime.api.ReduceOp.SUM, "auto"));
        assertEquals("unknown allreduce algorithm 'ring' (known: auto, reduce-broadcast, recursive-doubling,"
                + " reduce-scatter-allgather, hierarchical, bandwidth-optimal, binomial)", e.getMessage());
        Collectives forcedAlias = single(Map.of("bcast", "bandwidth-optimal"));
        assertArrayEquals(new double[] {1, 2}, (double[]) forcedAlias.bcast(new double[] {1, 2}, 0, "auto"));
    }
}
