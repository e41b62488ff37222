package org.mpfl.ir.semantics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpfl.ir.semantics.Exprs.num;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.eval.RuntimeFault;

class AddressingTest {
    private final Exprs.Recording ops = new Exprs.Recording();

    @Test
    void wildcardsHaveTheRuntimeApisValues() {
        // the runtime's Communicator uses the same numbers; the check's messages and matching rely on them
        assertEquals(-1, Addressing.PROC_NULL);
        assertEquals(-2, Addressing.ANY_SOURCE);
        assertEquals(-1, Addressing.ANY_TAG);
    }

    @Test
    void absentSourceAndTagOfAReceiveAreWildcardsAndReadNothing() {
        assertEquals(Addressing.ANY_SOURCE, Addressing.source(null, ops, "world", 4));
        assertEquals(Addressing.ANY_TAG, Addressing.receiveTag(null, ops));
        assertEquals(List.of(), ops.roles);
    }

    @Test
    void peersAreMembersOrProcNull() {
        assertEquals(3, Addressing.destination(num(3, 1), ops, "world", 4));
        assertEquals(Addressing.PROC_NULL, Addressing.destination(num(-1, 1), ops, "world", 4));
        assertEquals(0, Addressing.source(num(0, 1), ops, "world", 4));
        assertEquals(List.of("destination", "destination", "source"), ops.roles);
        RuntimeFault fault = assertThrows(RuntimeFault.class, () -> Addressing.destination(num(4, 7), ops, "half", 4));
        assertEquals(Exprs.at(7), fault.location());
        assertEquals("the destination ('to') is rank 4, outside communicator half of size 4 (use -1 for no peer)",
                fault.getMessage());
        // ANY_SOURCE written as a number is not a wildcard: only an absent 'from' is
        assertThrows(RuntimeFault.class, () -> Addressing.source(num(-2, 7), ops, "world", 4));
    }

    @Test
    void tagsAreAtLeastZero() {
        assertEquals(0, Addressing.sendTag(num(0, 1), ops));
        assertEquals(5, Addressing.receiveTag(num(5, 1), ops));
        RuntimeFault fault = assertThrows(RuntimeFault.class, () -> Addressing.receiveTag(num(-1, 8), ops));
        assertEquals(Exprs.at(8), fault.location());
        assertTrue(fault.getMessage().startsWith("tag is -1"));
    }

    @Test
    void aRootMustBeAMemberNotProcNull() {
        assertEquals(2, Addressing.root(num(2, 1), ops, "world", 3));
        assertEquals(List.of("root"), ops.roles);
        RuntimeFault fault = assertThrows(RuntimeFault.class, () -> Addressing.root(num(-1, 9), ops, "world", 3));
        assertEquals("root is rank -1, outside communicator world of size 3", fault.getMessage());
        assertThrows(RuntimeFault.class, () -> Addressing.root(num(3, 9), ops, "world", 3));
    }
}
