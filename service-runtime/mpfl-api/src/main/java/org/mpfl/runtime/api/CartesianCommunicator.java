package org.mpfl.runtime.api;

/** A communicator whose ranks are laid out on a grid, row-major, as MPI_Cart_create with reorder off. */
public interface CartesianCommunicator extends Communicator {
    /** Extent of each dimension. */
    int[] dims();

    /** Whether each dimension wraps around. */
    boolean[] periodic();

    /** This rank's coordinates. */
    int[] coords();

    /** Coordinates of any rank of this communicator. */
    int[] coords(int rank);

    /** The rank at displacement {@code disp} along {@code dim}, or {@link #PROC_NULL} off a non-periodic edge. */
    int neighbor(int dim, int disp);
}
