package org.mpfl.ir.semantics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpfl.ir.semantics.Exprs.num;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.eval.RuntimeFault;

class ForRangeTest {

    private static IrActivity.For loop(int from, int to, Integer step) {
        return new IrActivity.For("i", num(from, 1), num(to, 2), step == null ? null : num(step, 3), List.of(), Exprs.at(4));
    }

    private static List<Long> values(ForRange r) {
        List<Long> out = new ArrayList<>();
        for (long i = r.from(); r.includes(i); i = r.after(i)) {
            out.add(i);
        }
        return out;
    }

    @Test
    void boundsAreReadFromToStepInThatOrderAndStepDefaultsToOne() {
        Exprs.Recording ops = new Exprs.Recording();
        assertEquals(new ForRange(0, 3, 1), ForRange.of(loop(0, 3, null), ops));
        assertEquals(List.of("from", "to"), ops.roles);
        ops.roles.clear();
        ForRange.of(loop(0, 3, 2), ops);
        assertEquals(List.of("from", "to", "step"), ops.roles);
    }

    @Test
    void toIsExcludedInBothDirections() {
        assertEquals(List.of(0L, 1L, 2L), values(new ForRange(0, 3, 1)));
        assertEquals(List.of(0L, 2L), values(new ForRange(0, 3, 2)));
        assertEquals(List.of(3L, 2L, 1L), values(new ForRange(3, 0, -1)));
        assertEquals(List.of(), values(new ForRange(3, 3, 1)));
        assertEquals(List.of(), values(new ForRange(0, 3, -1)));
    }

    @Test
    void stepZeroIsAFaultAtTheStep() {
        RuntimeFault fault = assertThrows(RuntimeFault.class, () -> ForRange.of(loop(0, 3, 0), new Exprs.Recording()));
        assertEquals(Exprs.at(3), fault.location());
        assertEquals("for i: step is 0, the loop would never end", fault.getMessage());
    }

    @Test
    void nearIntegerMaxValueTheLoopEndsInsteadOfWrappingAround() {
        ForRange r = new ForRange(Integer.MAX_VALUE - 1, Integer.MAX_VALUE, 5);
        assertTrue(r.includes(r.from()));
        assertFalse(r.includes(r.after(r.from())));
        assertEquals(1, values(r).size());
    }
}
