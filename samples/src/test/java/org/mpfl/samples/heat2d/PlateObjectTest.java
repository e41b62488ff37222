package org.mpfl.samples.heat2d;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.mpfl.samples.common.ObjectRoundTrip;

/** A heat2d {@link Plate} survives the object encoding exactly: it sweeps on to the same temperatures. */
class PlateObjectTest {
    @Test
    void aPlateSentMidRunSweepsOnBitForBit() {
        Plate stayed = new Plate(9, 7, new int[] {2, 2}, new int[] {1, 0});
        double[] north = new double[stayed.columns];
        double[] east = new double[stayed.rows];
        java.util.Arrays.fill(north, 50.0);
        java.util.Arrays.fill(east, 12.5);
        stayed.storeHalos(north, null, null, east);
        for (int i = 0; i < 3; i++) {
            stayed.sweep();
        }
        Plate sent = ObjectRoundTrip.of(stayed, JacobiSweep.class);
        assertEquals(stayed.rows, sent.rows);
        assertEquals(stayed.northNeighbour, sent.northNeighbour);
        assertEquals(stayed.eastNeighbour, sent.eastNeighbour);
        for (int i = 0; i < 5; i++) {
            assertEquals(Double.doubleToRawLongBits(stayed.sweep()), Double.doubleToRawLongBits(sent.sweep()));
            assertArrayEquals(stayed.northEdge(), sent.northEdge());
            assertArrayEquals(stayed.eastEdge(), sent.eastEdge());
        }
        for (int r = 0; r < stayed.rows; r++) {
            for (int c = 0; c < stayed.columns; c++) {
                assertEquals(Double.doubleToRawLongBits(stayed.temperature(r, c)), Double.doubleToRawLongBits(sent.temperature(r, c)));
            }
        }
    }
}
