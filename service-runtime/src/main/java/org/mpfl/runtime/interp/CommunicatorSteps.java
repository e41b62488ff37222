package org.mpfl.runtime.interp;

import org.mpfl.compiler.ir.IrActivity;
import org.mpfl.compiler.ir.semantics.CartesianGrid;
import org.mpfl.compiler.ir.semantics.Operands;
import org.mpfl.compiler.ir.semantics.SplitChoice;
import org.mpfl.runtime.api.Communicator;

/**
 * {@code split} and {@code cartesian}: collective over the parent communicator, they define a named
 * communicator on every rank (a rank left out knows the name but is not a member). A Cartesian grid
 * smaller than its parent leaves the ranks beyond the grid out, as MPI_Cart_create does.
 */
final class CommunicatorSteps {

    void execute(IrActivity.Communication a, Frame f) {
        RankState rank = f.rank();
        Communicator parent = rank.communicators().get(a.comm());
        String name = Executor.name(a);
        rank.monitor().reached(name, a.at());
        RankActivityMonitor.Blocking b = rank.monitor().begin("communicator", name, a.at(),
                () -> name + " comm " + parent.name() + " (" + parent.size() + " ranks)");
        try {
            if (a instanceof IrActivity.Split x) {
                SplitChoice choice = SplitChoice.of(x, Operands.in(f), parent.rank());
                // a negative colour is MPI_UNDEFINED: the rank takes part and gets no communicator
                rank.communicators().define(x.name(), parent.split(x.name(), choice.communicatorColour(), choice.key()));
            } else if (a instanceof IrActivity.Cartesian x) {
                cartesian(x, parent, f);
            } else {
                throw new IllegalStateException("not a communicator activity: " + a);
            }
        } finally {
            rank.monitor().end(b);
        }
    }

    private static void cartesian(IrActivity.Cartesian x, Communicator parent, Frame f) {
        CartesianGrid grid = CartesianGrid.of(x, Operands.in(f));
        int places = grid.placesIn(x.name(), parent.name(), parent.size(), x.at());
        RankState rank = f.rank();
        if (places == parent.size()) {
            rank.communicators().define(x.name(), parent.cartesian(x.name(), grid.dims(), grid.periodic()));
            return;
        }
        boolean member = parent.rank() < places;
        Communicator members = parent.split(x.name() + "/members", member ? 0 : SplitChoice.UNDEFINED, parent.rank());
        rank.communicators().define(x.name(), member ? members.cartesian(x.name(), grid.dims(), grid.periodic()) : null);
    }
}
