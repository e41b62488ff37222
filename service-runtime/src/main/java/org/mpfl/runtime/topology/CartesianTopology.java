package org.mpfl.runtime.topology;

import java.util.Arrays;

/**
 * A Cartesian grid over ranks {@code 0..size-1}, row-major (the last dimension varies fastest), as
 * MPI_Cart_create without reordering: coordinates, the rank at given coordinates, and shifts with
 * wrap-around on periodic dimensions and {@link #PROC_NULL} off the edge of the others.
 */
public final class CartesianTopology {
    /** No neighbour (MPI_PROC_NULL, the same value as the communicator API's). */
    public static final int PROC_NULL = -1;

    private final int[] dims;
    private final boolean[] periodic;
    private final int size;

    public CartesianTopology(int[] dims, boolean[] periodic) {
        if (dims == null || dims.length == 0) {
            throw new IllegalArgumentException("a Cartesian topology needs at least one dimension");
        }
        if (periodic == null || periodic.length != dims.length) {
            throw new IllegalArgumentException("periodic has " + (periodic == null ? 0 : periodic.length)
                    + " entries for " + dims.length + " dimensions");
        }
        long product = 1;
        for (int d : dims) {
            if (d <= 0) {
                throw new IllegalArgumentException("dimension extents must be positive: " + Arrays.toString(dims));
            }
            product *= d;
            if (product > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("grid too large: " + Arrays.toString(dims));
            }
        }
        this.dims = dims.clone();
        this.periodic = periodic.clone();
        this.size = (int) product;
    }

    public int size() {
        return size;
    }

    public int[] dims() {
        return dims.clone();
    }

    public boolean[] periodic() {
        return periodic.clone();
    }

    /** Coordinates of {@code rank}. */
    public int[] coords(int rank) {
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank " + rank + " is not on a grid of " + size);
        }
        int[] c = new int[dims.length];
        int rest = rank;
        for (int d = dims.length - 1; d >= 0; d--) {
            c[d] = rest % dims[d];
            rest /= dims[d];
        }
        return c;
    }

    /** The rank at {@code coords} (each coordinate within its extent). */
    public int rank(int[] coords) {
        if (coords.length != dims.length) {
            throw new IllegalArgumentException(coords.length + " coordinates for " + dims.length + " dimensions");
        }
        int r = 0;
        for (int d = 0; d < dims.length; d++) {
            if (coords[d] < 0 || coords[d] >= dims[d]) {
                throw new IllegalArgumentException("coordinate " + coords[d] + " outside dimension " + d + " of extent " + dims[d]);
            }
            r = r * dims[d] + coords[d];
        }
        return r;
    }

    /** The rank {@code disp} steps from {@code rank} along {@code dim}, or {@link #PROC_NULL} off a non-periodic edge. */
    public int neighbor(int rank, int dim, int disp) {
        if (dim < 0 || dim >= dims.length) {
            throw new IllegalArgumentException("dimension " + dim + " of a " + dims.length + "-dimensional grid");
        }
        int[] c = coords(rank);
        long moved = (long) c[dim] + disp;
        if (periodic[dim]) {
            moved = Math.floorMod(moved, dims[dim]);
        } else if (moved < 0 || moved >= dims[dim]) {
            return PROC_NULL;
        }
        c[dim] = (int) moved;
        return rank(c);
    }
}
