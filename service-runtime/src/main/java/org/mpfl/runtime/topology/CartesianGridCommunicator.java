package org.mpfl.runtime.topology;

import org.mpfl.runtime.api.CartesianCommunicator;
import org.mpfl.runtime.collective.CollectiveConfig;
import org.mpfl.runtime.p2p.RankInstance;

/** A communicator with a Cartesian layout of its ranks ({@link CartesianTopology}: row-major, no reordering). */
public final class CartesianGridCommunicator extends CollectiveCommunicator implements CartesianCommunicator {
    private final CartesianTopology grid;

    CartesianGridCommunicator(RankInstance rank, int context, int[] members, String name, CollectiveConfig config,
                              CartesianTopology grid) {
        super(rank, context, members, name, config);
        this.grid = grid;
    }

    @Override
    public int[] dims() {
        return grid.dims();
    }

    @Override
    public boolean[] periodic() {
        return grid.periodic();
    }

    @Override
    public int[] coords() {
        return grid.coords(rank());
    }

    @Override
    public int[] coords(int rank) {
        return grid.coords(rank);
    }

    @Override
    public int neighbor(int dim, int disp) {
        return grid.neighbor(rank(), dim, disp);
    }
}
