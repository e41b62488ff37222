package org.mpfl.ir.semantics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CollectiveAlgorithmsTest {

    @Test
    void everyAliasStandsForAnAlgorithmOfItsOwnOperationAndNoNameIsListedTwice() {
        for (CollectiveAlgorithms op : CollectiveAlgorithms.values()) {
            op.aliases().forEach((alias, target) -> {
                assertTrue(op.algorithms().contains(target), op + ": alias " + alias + " -> " + target);
                assertFalse(op.algorithms().contains(alias), op + ": alias " + alias + " is an algorithm name too");
            });
            List<String> accepted = op.accepted();
            assertEquals(accepted.size(), new HashSet<>(accepted).size(), op + " lists a name twice: " + accepted);
            assertEquals(CollectiveAlgorithms.AUTO, accepted.get(0));
        }
    }

    @Test
    void resolveTurnsAutoIntoNoChoiceAndAliasesIntoTheirAlgorithm() {
        assertEquals(Optional.empty(), CollectiveAlgorithms.BROADCAST.resolve(null));
        assertEquals(Optional.empty(), CollectiveAlgorithms.BROADCAST.resolve(" AUTO "));
        assertEquals(Optional.empty(), CollectiveAlgorithms.BROADCAST.resolve(""));
        assertEquals(Optional.of("binomial"), CollectiveAlgorithms.BROADCAST.resolve("Binomial"));
        assertEquals(Optional.of("reduce-broadcast"), CollectiveAlgorithms.ALLREDUCE.resolve("binomial"));
        assertEquals(Optional.of("scatter-allgather"), CollectiveAlgorithms.BROADCAST.resolve("bandwidth-optimal"));
    }

    @Test
    void aNameTheOperationLacksIsRefusedWithTheNamesItHas() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CollectiveAlgorithms.BROADCAST.resolve("dissemination"));
        assertEquals("unknown broadcast algorithm 'dissemination' (known: auto, serial, binomial, bstore, scatter-allgather,"
                + " hierarchical, bandwidth-optimal)", e.getMessage());
        assertFalse(CollectiveAlgorithms.SCATTER.accepts("bandwidth-optimal"));
    }

    @Test
    void operationsAreFoundByElementAndByTheRuntimesName() {
        assertEquals(Optional.of(CollectiveAlgorithms.BROADCAST), CollectiveAlgorithms.ofElement("broadcast"));
        assertEquals(Optional.empty(), CollectiveAlgorithms.ofElement("bcast"));
        assertEquals(Optional.of(CollectiveAlgorithms.BROADCAST), CollectiveAlgorithms.ofOperation("bcast"));
        assertEquals(Optional.empty(), CollectiveAlgorithms.ofElement("checkpoint"));
        assertEquals(List.of(CollectiveAlgorithms.BARRIER), CollectiveAlgorithms.offering("dissemination"));
    }
}
