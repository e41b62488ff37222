package org.mpfl.samples.heat2d;

/**
 * One rank's block of a square-cell plate for Jacobi iteration of Laplace's equation (steady heat
 * conduction), with a ring of ghost cells around it. Along a side that is an edge of the whole plate,
 * the ghost cells hold the fixed edge temperature; along a side shared with a neighbouring rank they
 * hold that neighbour's outermost cells (the halo), refreshed before every sweep.
 *
 * <p>The north edge of the whole plate is held at {@link #HOT_EDGE}, the other three at 0.
 */
final class Plate {

    static final double HOT_EDGE = 100.0;
    static final double COLD_EDGE = 0.0;

    int rows;
    int columns;
    /** Whether another rank's block lies on that side (else the side is an edge of the whole plate). */
    boolean northNeighbour;
    boolean southNeighbour;
    boolean westNeighbour;
    boolean eastNeighbour;
    private int stride;          // columns + 2 ghost cells
    private double[] current;
    private double[] next;

    /** For the {@code object} codec, which sets the fields from a message (docs/wire-format.md). */
    private Plate() {
    }

    /**
     * @param globalRows    rows of the whole plate
     * @param globalColumns columns of the whole plate
     * @param gridDims     ranks along (rows, columns) of the Cartesian grid
     * @param gridCoords   this rank's position in the grid
     */
    Plate(int globalRows, int globalColumns, int[] gridDims, int[] gridCoords) {
        if (gridDims.length != 2 || gridCoords.length != 2) {
            throw new IllegalArgumentException("heat2d needs a 2-D grid, got dims of length " + gridDims.length);
        }
        this.rows = blockLength(globalRows, gridDims[0], gridCoords[0]);
        this.columns = blockLength(globalColumns, gridDims[1], gridCoords[1]);
        if (rows == 0 || columns == 0) {
            throw new IllegalArgumentException("a " + globalRows + "×" + globalColumns + " plate is too small for a "
                    + gridDims[0] + "×" + gridDims[1] + " grid of ranks");
        }
        this.northNeighbour = gridCoords[0] > 0;
        this.southNeighbour = gridCoords[0] < gridDims[0] - 1;
        this.westNeighbour = gridCoords[1] > 0;
        this.eastNeighbour = gridCoords[1] < gridDims[1] - 1;
        this.stride = columns + 2;
        this.current = new double[(rows + 2) * stride];
        this.next = new double[(rows + 2) * stride];
        // fixed edge temperatures go into both arrays, since they swap roles every sweep
        for (double[] field : new double[][] {current, next}) {
            if (!northNeighbour) {
                fillRow(field, 0, HOT_EDGE);
            }
            if (!southNeighbour) {
                fillRow(field, rows + 1, COLD_EDGE);
            }
            if (!westNeighbour) {
                fillColumn(field, 0, COLD_EDGE);
            }
            if (!eastNeighbour) {
                fillColumn(field, columns + 1, COLD_EDGE);
            }
        }
    }

    /** Block distribution: the first (length % parts) blocks get one extra element. */
    static int blockLength(int length, int parts, int index) {
        return length / parts + (index < length % parts ? 1 : 0);
    }

    private int at(int row, int column) {
        return row * stride + column;
    }

    private void fillRow(double[] field, int row, double value) {
        for (int j = 1; j <= columns; j++) {
            field[at(row, j)] = value;
        }
    }

    private void fillColumn(double[] field, int column, double value) {
        for (int i = 1; i <= rows; i++) {
            field[at(i, column)] = value;
        }
    }

    double temperature(int row, int column) {
        return current[at(row + 1, column + 1)];
    }

    // --- halos: a side's outermost interior cells go to the neighbour, whose ghost cells receive them

    double[] northEdge() {
        return copyRow(1);
    }

    double[] southEdge() {
        return copyRow(rows);
    }

    double[] westEdge() {
        return copyColumn(1);
    }

    double[] eastEdge() {
        return copyColumn(columns);
    }

    private double[] copyRow(int row) {
        double[] edge = new double[columns];
        System.arraycopy(current, at(row, 1), edge, 0, columns);
        return edge;
    }

    private double[] copyColumn(int column) {
        double[] edge = new double[rows];
        for (int i = 0; i < rows; i++) {
            edge[i] = current[at(i + 1, column)];
        }
        return edge;
    }

    /**
     * Stores the halos received from the neighbours in the ghost cells. Sides without a neighbour keep
     * their fixed edge temperature, whatever the (no-op) receive from rank −1 left in the halo variable:
     * pass null for them.
     */
    void storeHalos(double[] north, double[] south, double[] west, double[] east) {
        if (northNeighbour) {
            storeRow(0, north);
        }
        if (southNeighbour) {
            storeRow(rows + 1, south);
        }
        if (westNeighbour) {
            storeColumn(0, west);
        }
        if (eastNeighbour) {
            storeColumn(columns + 1, east);
        }
    }

    private void storeRow(int row, double[] halo) {
        requireLength(halo, columns);
        System.arraycopy(halo, 0, current, at(row, 1), columns);
    }

    private void storeColumn(int column, double[] halo) {
        requireLength(halo, rows);
        for (int i = 0; i < rows; i++) {
            current[at(i + 1, column)] = halo[i];
        }
    }

    private static void requireLength(double[] halo, int expected) {
        if (halo == null || halo.length != expected) {
            throw new IllegalArgumentException("halo of " + (halo == null ? "no" : halo.length) + " cells from a neighbour, expected "
                    + expected + " (is the halo exchange complete?)");
        }
    }

    /** One Jacobi sweep: every cell becomes the mean of its four neighbours. Returns the largest change. */
    double sweep() {
        double largestChange = 0.0;
        for (int i = 1; i <= rows; i++) {
            for (int j = 1; j <= columns; j++) {
                double updated = 0.25 * (current[at(i - 1, j)] + current[at(i + 1, j)]
                        + current[at(i, j - 1)] + current[at(i, j + 1)]);
                largestChange = Math.max(largestChange, Math.abs(updated - current[at(i, j)]));
                next[at(i, j)] = updated;
            }
        }
        double[] previous = current;
        current = next;
        next = previous;
        return largestChange;
    }
}
