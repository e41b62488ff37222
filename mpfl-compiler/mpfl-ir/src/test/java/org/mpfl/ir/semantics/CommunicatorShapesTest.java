package org.mpfl.ir.semantics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpfl.ir.semantics.Exprs.bool;
import static org.mpfl.ir.semantics.Exprs.ints;
import static org.mpfl.ir.semantics.Exprs.num;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.eval.RuntimeFault;

/** {@link SplitChoice} and {@link CartesianGrid}. */
class CommunicatorShapesTest {
    private final Exprs.Recording ops = new Exprs.Recording();

    private static IrActivity.Cartesian cart(List<IrExpr> dims, List<IrExpr> periodic) {
        return new IrActivity.Cartesian("grid", "world", dims, periodic, Exprs.at(5));
    }

    @Test
    void splitKeyDefaultsToTheParentRankAndNegativeColoursJoinNothing() {
        SplitChoice c = SplitChoice.of(new IrActivity.Split("half", "world", num(1, 1), null, Exprs.at(2)), ops, 6);
        assertEquals(new SplitChoice(1, 6), c);
        assertTrue(c.joins());
        assertEquals(1, c.communicatorColour());
        assertEquals(List.of("color"), ops.roles);

        SplitChoice out = SplitChoice.of(new IrActivity.Split("half", "world", num(-5, 1), num(3, 1), Exprs.at(2)), ops, 6);
        assertEquals(3, out.key());
        assertFalse(out.joins());
        assertEquals(SplitChoice.UNDEFINED, out.communicatorColour());
        assertEquals(List.of("color", "color", "key"), ops.roles);
    }

    @Test
    void dimsComeFromOneArrayOrOneIntPerDimension() {
        int[] shared = {2, 3};
        CartesianGrid fromArray = CartesianGrid.of(cart(List.of(ints(shared, 1)), List.of()), ops);
        assertArrayEquals(new int[] {2, 3}, fromArray.dims());
        fromArray.dims()[0] = 9;
        assertEquals(2, shared[0], "the grid copies the array it was given");
        CartesianGrid fromInts = CartesianGrid.of(cart(List.of(num(4, 1), num(1, 1)), List.of()), ops);
        assertArrayEquals(new int[] {4, 1}, fromInts.dims());
        assertArrayEquals(new boolean[] {false, false}, fromInts.periodic());
    }

    @Test
    void oneperiodicValueCoversAllDimensionsAndAWrongCountIsAFaultAtItsFirstValue() {
        CartesianGrid all = CartesianGrid.of(cart(List.of(num(2, 1), num(2, 1)), List.of(bool(true, 2))), ops);
        assertArrayEquals(new boolean[] {true, true}, all.periodic());
        CartesianGrid each = CartesianGrid.of(cart(List.of(num(2, 1), num(2, 1)), List.of(bool(false, 2), bool(true, 2))), ops);
        assertArrayEquals(new boolean[] {false, true}, each.periodic());
        RuntimeFault fault = assertThrows(RuntimeFault.class, () -> CartesianGrid.of(
                cart(List.of(num(2, 1), num(2, 1), num(2, 1)), List.of(bool(true, 6), bool(true, 7))), ops));
        assertEquals(Exprs.at(6), fault.location());
        assertEquals("periodic has 2 values for a grid of 3 dimensions", fault.getMessage());
    }

    @Test
    void aGridTakesAtMostItsParentsRanks() {
        CartesianGrid g = new CartesianGrid(new int[] {2, 3}, new boolean[2]);
        assertEquals(6, g.placesIn("grid", "world", 6, Exprs.at(5)));
        assertEquals(6, g.placesIn("grid", "world", 8, Exprs.at(5))); // the last two ranks are left out
        RuntimeFault tooBig = assertThrows(RuntimeFault.class, () -> g.placesIn("grid", "world", 5, Exprs.at(5)));
        assertEquals("cartesian grid: the grid [2, 3] has 6 places but communicator world has only 5 ranks",
                tooBig.getMessage());
        assertEquals(Exprs.at(5), tooBig.location());
        assertThrows(RuntimeFault.class, () -> new CartesianGrid(new int[] {2, 0}, new boolean[2])
                .placesIn("grid", "world", 8, null));
        assertThrows(RuntimeFault.class, () -> new CartesianGrid(new int[0], new boolean[0]).placesIn("grid", "world", 8, null));
        // huge dims must not overflow into a small (or negative) number of places
        RuntimeFault huge = assertThrows(RuntimeFault.class, () -> new CartesianGrid(
                new int[] {65536, 65536, 65536}, new boolean[3]).placesIn("grid", "world", 8, null));
        assertTrue(huge.getMessage().contains("has " + Integer.MAX_VALUE + " places"), huge.getMessage());
    }
}
