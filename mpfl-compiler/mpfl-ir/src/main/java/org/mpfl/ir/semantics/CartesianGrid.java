package org.mpfl.ir.semantics;

import java.util.Arrays;
import java.util.List;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.eval.RuntimeFault;

/**
 * The grid a {@code cartesian} activity asks for (MPI_Cart_create without reordering): {@code dims}
 * is either one {@code int[]} expression or one {@code int} expression per dimension; {@code periodic}
 * is absent (no dimension wraps), one boolean for all dimensions, or one per dimension. The grid
 * takes the first {@link #placesIn places} ranks of its parent, row-major with the last dimension fastest;
 * a grid smaller than its parent leaves the ranks beyond it out (they know the name but are not
 * members), a larger one is a fault, as is a dimension below 1 or no dimension at all.
 *
 * <p>The arrays are the grid's own (fresh on every {@link #of}); callers must not change them.
 *
 * @param dims     extent of each dimension
 * @param periodic whether each dimension wraps around
 */
public record CartesianGrid(int[] dims, boolean[] periodic) {

    /** Evaluates {@code dims}, then {@code periodic}; a periodic list of the wrong length is a fault at its first value. */
    public static CartesianGrid of(IrActivity.Cartesian cartesian, Operands operands) {
        int[] dims = dims(cartesian.dims(), operands);
        return new CartesianGrid(dims, periodic(cartesian.periodic(), dims.length, operands));
    }

    /**
     * How many ranks the grid takes from a parent communicator of {@code parentSize} ranks.
     *
     * @throws RuntimeFault at {@code at} if a dimension is below 1, there is no dimension, or the
     *                      grid has more places than the parent has ranks
     */
    public int placesIn(String name, String parent, int parentSize, SourceLocation at) {
        long places = 1;
        for (int d : dims) {
            if (d < 1) {
                throw new RuntimeFault(at, "cartesian " + name + ": dims " + Arrays.toString(dims) + " must all be at least 1");
            }
            places = Math.min(places * d, Integer.MAX_VALUE); // no overflow however many dimensions
        }
        if (dims.length == 0 || places > parentSize) {
            throw new RuntimeFault(at, "cartesian " + name + ": the grid " + Arrays.toString(dims) + " has " + places
                    + " places but communicator " + parent + " has only " + parentSize + " ranks");
        }
        return (int) places;
    }

    private static int[] dims(List<IrExpr> exprs, Operands operands) {
        if (exprs.size() == 1 && exprs.get(0).type() == MpflType.INT_ARRAY) {
            // the variable's array must not change with the grid's (nor the grid with later assignments)
            return ((int[]) operands.value(exprs.get(0), "dims")).clone();
        }
        int[] dims = new int[exprs.size()];
        for (int i = 0; i < dims.length; i++) {
            dims[i] = operands.intValue(exprs.get(i), "dims");
        }
        return dims;
    }

    private static boolean[] periodic(List<IrExpr> exprs, int nd, Operands operands) {
        boolean[] periodic = new boolean[nd];
        if (exprs.isEmpty()) {
            return periodic;
        }
        if (exprs.size() == 1) {
            Arrays.fill(periodic, operands.test(exprs.get(0), "periodicity"));
            return periodic;
        }
        if (exprs.size() != nd) {
            throw new RuntimeFault(exprs.get(0).at(), "periodic has " + exprs.size() + " values for a grid of " + nd
                    + " dimensions");
        }
        for (int i = 0; i < nd; i++) {
            periodic[i] = operands.test(exprs.get(i), "periodicity");
        }
        return periodic;
    }
}
