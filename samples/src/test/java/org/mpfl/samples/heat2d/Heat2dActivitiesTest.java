package org.mpfl.samples.heat2d;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpfl.samples.common.FakeRankContext;

/**
 * The activities of heat2d.mpfl.xml on a 2×2 grid of ranks, with the four sendrecv calls and the
 * allreduce(max) done by the test; compared with one rank holding the whole plate.
 */
class Heat2dActivitiesTest {
    static final String[] EDGES = {"northEdge", "southEdge", "westEdge", "eastEdge"};

    @Test
    void edgesArePackedAndHalosUnpackedOnTheRightSides() {
        // the east block of a 3×4 plate split into 1×2 ranks: a neighbour to the west, plate edges elsewhere
        Plate plate = new Plate(3, 4, new int[] {1, 2}, new int[] {0, 1});
        // after one sweep from zero, only the row next to the hot north edge has warmed: 100/4
        plate.sweep();
        assertArrayEquals(new double[] {25, 25}, plate.northEdge(), 0.0);
        assertArrayEquals(new double[] {0, 0}, plate.southEdge(), 0.0);
        assertArrayEquals(new double[] {25, 0, 0}, plate.westEdge(), 0.0);
        assertArrayEquals(new double[] {25, 0, 0}, plate.eastEdge(), 0.0);

        // the west halo fills the ghost cells there; on the other sides whatever arrives is ignored
        plate.storeHalos(new double[] {-1}, null, new double[] {40, 40, 40}, new double[0]);
        plate.sweep();
        // cell (1,0): (north 25 + south 0 + west halo 40 + east 0) / 4
        assertEquals(16.25, plate.temperature(1, 0), 1e-12);
        // cell (0,1): (hot edge 100 + 0 + its west neighbour 25 + cold east edge 0) / 4
        assertEquals(31.25, plate.temperature(0, 1), 1e-12);
    }

    @Test
    void blockDistributionGivesTheFirstBlocksOneMore() {
        assertEquals(4, Plate.blockLength(10, 3, 0));
        assertEquals(3, Plate.blockLength(10, 3, 1));
        assertEquals(3, Plate.blockLength(10, 3, 2));
    }

    @Test
    void fourRanksMatchOneRankSweepForSweep() throws Exception {
        int rows = 7;
        int columns = 6;
        int[] dims = {2, 2};
        int ranks = 4;
        List<Map<String, Object>> variables = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            int[] coords = {r / 2, r % 2};   // row-major rank order, as a Cartesian communicator numbers them
            variables.add(new HashMap<>(new SetupPlate().execute(Map.of("globalRows", rows, "globalColumns", columns,
                    "gridDims", dims, "gridCoords", coords), new FakeRankContext(r, ranks))));
        }
        Plate whole = new Plate(rows, columns, new int[] {1, 1}, new int[] {0, 0});

        for (int iteration = 0; iteration < 40; iteration++) {
            List<Map<String, Object>> inputs = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                int row = r / 2;
                int column = r % 2;
                Map<String, Object> in = new HashMap<>();
                in.put("plate", variables.get(r).get("plate"));
                // what the four sendrecv calls deliver: the neighbour's facing edge, or nothing off the plate
                in.put("northHalo", row > 0 ? variables.get(r - 2).get("southEdge") : new double[0]);
                in.put("southHalo", row < 1 ? variables.get(r + 2).get("northEdge") : new double[0]);
                in.put("westHalo", column > 0 ? variables.get(r - 1).get("eastEdge") : new double[0]);
                in.put("eastHalo", column < 1 ? variables.get(r + 1).get("westEdge") : new double[0]);
                inputs.add(in);
            }
            double residual = 0.0;
            for (int r = 0; r < ranks; r++) {
                Map<String, Object> out = new JacobiSweep().execute(inputs.get(r), new FakeRankContext(r, ranks));
                variables.get(r).putAll(out);
                residual = Math.max(residual, (Double) out.get("localResidual"));   // allreduce(max)
            }
            double wholeResidual = whole.sweep();
            assertEquals(wholeResidual, residual, 0.0, "iteration " + iteration);
        }

        for (int r = 0; r < ranks; r++) {
            Plate block = (Plate) variables.get(r).get("plate");
            int firstRow = (r / 2) * Plate.blockLength(rows, 2, 0);
            int firstColumn = (r % 2) * Plate.blockLength(columns, 2, 0);
            for (int i = 0; i < block.rows; i++) {
                for (int j = 0; j < block.columns; j++) {
                    assertEquals(whole.temperature(firstRow + i, firstColumn + j), block.temperature(i, j), 0.0);
                }
            }
        }
    }

    /** The document's defaults (16×16 plate, tolerance 1e-2) converge within its maxIter of 500. */
    @Test
    void defaultsConvergeWithinMaxIter() {
        Plate whole = new Plate(16, 16, new int[] {1, 1}, new int[] {0, 0});
        int iterations = 0;
        double residual;
        do {
            residual = whole.sweep();
            iterations++;
        } while (residual > 1e-2 && iterations < 500);
        System.out.println("heat2d 16x16 tolerance 1e-2: " + iterations + " iterations, residual " + residual);
        assertTrue(residual <= 1e-2);
    }
}
