package org.mpfl.ir.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

class ProcessLayoutTest {

    private static IrExpr num(int n) {
        return new IrExpr.Const(MpflType.INT, n, new SourceLocation("t.mpfl.xml", n + 10, 1));
    }

    private static Map<String, IrExpr> ranks(Object... nameAndCount) {
        Map<String, IrExpr> out = new LinkedHashMap<>();
        for (int i = 0; i < nameAndCount.length; i += 2) {
            out.put((String) nameAndCount[i], num((Integer) nameAndCount[i + 1]));
        }
        return out;
    }

    @Test
    void processesAreContiguousBlocksInDocumentOrder() {
        ProcessLayout l = ProcessLayout.evaluate(ranks("master", 1, "workers", 3), Map.of());
        assertEquals(4, l.worldSize());
        assertEquals(List.of("master", "workers"), l.processes());
        assertEquals(1, l.first("workers"));
        assertEquals(3, l.count("workers"));
        assertEquals("master", l.processOf(0));
        assertEquals("workers", l.processOf(3));
        assertEquals(0, l.rankInProcess(0));
        assertEquals(2, l.rankInProcess(3));
        assertTrue(l.hasProcess("master"));
        assertFalse(l.hasProcess("world"));
    }

    @Test
    void givenCountsGiveTheSameLayoutAsEvaluatedOnes() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        counts.put("a", 2);
        counts.put("b", 2);
        ProcessLayout given = ProcessLayout.ofCounts(counts);
        ProcessLayout evaluated = ProcessLayout.evaluate(ranks("a", 2, "b", 2), Map.of());
        for (int r = 0; r < 4; r++) {
            assertEquals(evaluated.processOf(r), given.processOf(r));
            assertEquals(evaluated.rankInProcess(r), given.rankInProcess(r));
        }
    }

    @Test
    void aProcessNeedsAtLeastOneRank() {
        RuntimeFault fault = assertThrows(RuntimeFault.class, () -> ProcessLayout.evaluate(ranks("a", 2, "b", 0), Map.of()));
        assertEquals("process 'b' gets 0 ranks; it needs at least 1", fault.getMessage());
        assertEquals(10, fault.location().line());
    }

    @Test
    void anUnknownProcessIsAFaultNotANullPointer() {
        ProcessLayout l = ProcessLayout.evaluate(ranks("a", 2), Map.of());
        RuntimeFault fault = assertThrows(RuntimeFault.class, () -> l.first("nope"));
        assertEquals("no process 'nope' in this workflow", fault.getMessage());
        assertThrows(RuntimeFault.class, () -> l.count("nope"));
    }
}
