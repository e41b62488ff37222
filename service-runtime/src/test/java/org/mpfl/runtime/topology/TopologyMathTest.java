package org.mpfl.runtime.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpfl.ir.eval.ProcessLayout;
import org.mpfl.protocol.RunRequest;

/** Dims, Cartesian coordinates and shifts, split plans, process layout, context agreement: pure functions. */
class TopologyMathTest {

    @Test
    void dimsIsBalancedAndNonIncreasing() {
        assertArrayEquals(new int[] {4, 3}, Dims.create(12, 2));
        assertArrayEquals(new int[] {2, 2, 2}, Dims.create(8, 3));
        assertArrayEquals(new int[] {7, 1}, Dims.create(7, 2));
        assertArrayEquals(new int[] {1, 1, 1}, Dims.create(1, 3));
        assertArrayEquals(new int[] {6, 6}, Dims.create(36, 2));
        assertArrayEquals(new int[] {3, 3}, Dims.create(9, 2));
        assertArrayEquals(new int[] {3, 2}, Dims.create(6, 2));
        assertArrayEquals(new int[] {9}, Dims.create(9, 1));
        assertArrayEquals(new int[] {4, 4, 4}, Dims.create(64, 3));
        assertArrayEquals(new int[] {2, 3}, Dims.create(6, new int[] {2, 0}));
        assertArrayEquals(new int[] {5, 2, 2}, Dims.create(20, new int[] {0, 2, 0}));
        assertThrows(IllegalArgumentException.class, () -> Dims.create(7, new int[] {2, 0}));
        assertThrows(IllegalArgumentException.class, () -> Dims.create(0, 2));
        for (int p = 1; p <= 64; p++) {
            for (int nd = 1; nd <= 4; nd++) {
                int[] d = Dims.create(p, nd);
                int product = 1;
                for (int i = 0; i < nd; i++) {
                    product *= d[i];
                    if (i > 0) {
                        assertEquals(true, d[i] <= d[i - 1], "non-increasing " + p + "/" + nd);
                    }
                }
                assertEquals(p, product);
            }
        }
    }

    @Test
    void cartesianTwoByThreeRowMajorWithAndWithoutWrap() {
        CartesianTopology open = new CartesianTopology(new int[] {2, 3}, new boolean[] {false, false});
        CartesianTopology torus = new CartesianTopology(new int[] {2, 3}, new boolean[] {true, true});
        int r = 0;
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 3; j++) {
                assertArrayEquals(new int[] {i, j}, open.coords(r));
                assertEquals(r, open.rank(new int[] {i, j}));
                // along dimension 1 (columns)
                assertEquals(j + 1 < 3 ? r + 1 : CartesianTopology.PROC_NULL, open.neighbor(r, 1, 1));
                assertEquals(j > 0 ? r - 1 : CartesianTopology.PROC_NULL, open.neighbor(r, 1, -1));
                assertEquals(i * 3 + (j + 1) % 3, torus.neighbor(r, 1, 1));
                assertEquals(i * 3 + (j + 2) % 3, torus.neighbor(r, 1, -1));
                // along dimension 0 (rows)
                assertEquals(i == 0 ? r + 3 : CartesianTopology.PROC_NULL, open.neighbor(r, 0, 1));
                assertEquals(((i + 1) % 2) * 3 + j, torus.neighbor(r, 0, 1));
                assertEquals(((i + 1) % 2) * 3 + j, torus.neighbor(r, 0, -1));
                assertEquals(r, torus.neighbor(r, 0, 2));
                assertEquals(i * 3 + Math.floorMod(j - 4, 3), torus.neighbor(r, 1, -4));
                assertEquals(CartesianTopology.PROC_NULL, open.neighbor(r, 1, 3));
                assertEquals(r, open.neighbor(r, 1, 0));
                r++;
            }
        }
    }

    @Test
    void cartesianThreeByThreeMixedPeriodicity() {
        CartesianTopology g = new CartesianTopology(new int[] {3, 3}, new boolean[] {true, false});
        assertArrayEquals(new int[] {1, 2}, g.coords(5));
        assertEquals(8, g.neighbor(2, 0, -1));  // row wraps
        assertEquals(CartesianTopology.PROC_NULL, g.neighbor(2, 1, 1));  // column does not
        assertEquals(1, g.neighbor(2, 1, -1));
        assertEquals(4, g.neighbor(1, 0, 1));
        assertEquals(1, g.neighbor(7, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> g.neighbor(0, 2, 1));
        assertThrows(IllegalArgumentException.class, () -> new CartesianTopology(new int[] {0, 3}, new boolean[2]));
    }

    @Test
    void splitPlanOrdersByKeyThenOldRankAndAgreesOnMaxProposal() {
        // parent ranks 0..5: colour r % 2, key -r (reverses), proposals vary
        int[] triples = new int[18];
        int[] proposals = {100, 104, 102, 100, 110, 100};
        for (int r = 0; r < 6; r++) {
            triples[3 * r] = r % 2;
            triples[3 * r + 1] = -r;
            triples[3 * r + 2] = proposals[r];
        }
        SplitPlan even = SplitPlan.of(triples, 2);
        assertArrayEquals(new int[] {4, 2, 0}, even.members());
        assertEquals(110, even.context());
        assertArrayEquals(new int[] {5, 3, 1}, SplitPlan.of(triples, 1).members());
        // equal keys: old rank order
        for (int r = 0; r < 6; r++) {
            triples[3 * r + 1] = 7;
        }
        assertArrayEquals(new int[] {1, 3, 5}, SplitPlan.of(triples, 3).members());
        triples[3 * 4] = -1;
        assertNull(SplitPlan.of(triples, 4).members());
        assertArrayEquals(new int[] {0, 2}, SplitPlan.of(triples, 0).members());
    }

    @Test
    void contextAllocatorOnlyMovesForward() {
        ContextAllocator a = ContextAllocator.of(new Object());
        int first = a.proposal();
        assertEquals(ContextIds.FIRST_DERIVED, first);
        a.agreed(first + 10);
        assertEquals(first + 12, a.proposal());
        assertThrows(IllegalStateException.class, () -> a.agreed(first));
        assertThrows(IllegalStateException.class, () -> a.agreed(first + 13));
    }

    @Test
    void processLayoutSlicesTheWorldInDocumentOrder() {
        ProcessLayout l = CollectiveCommunicator.layoutOf(List.of(new RunRequest.ProcessSlice("A", "svcA", 2),
                new RunRequest.ProcessSlice("B", "svcB", 3)));
        assertEquals("A", l.processOf(1));
        assertEquals("B", l.processOf(2));
        assertEquals(2, l.first("B"));
        assertEquals(3, l.count("B"));
        assertEquals(ContextIds.processContext(1), CollectiveCommunicator.processContext(l, "B"));
        assertThrows(IllegalArgumentException.class, () -> l.processOf(5));
        assertFalse(l.hasProcess("C"));
    }
}
