package org.mpfl.runtime.interp;

import org.mpfl.ir.IrActivity;
import org.mpfl.ir.semantics.CartesianGrid;
import org.mpfl.ir.semantics.Operands;
import org.mpfl.ir.semantics.SplitChoice;
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
                split(rank, new NamedCommunicators.Made(x.name(), "split", x.comm(), choice.communicatorColour(),
                        choice.key(), null, null));
            } else if (a instanceof IrActivity.Cartesian x) {
                CartesianGrid grid = CartesianGrid.of(x, Operands.in(f));
                grid.placesIn(x.name(), parent.name(), parent.size(), x.at());
                cartesian(rank, new NamedCommunicators.Made(x.name(), "cartesian", x.comm(), 0, 0, grid.dims(),
                        grid.periodic()));
            } else {
                throw new IllegalStateException("not a communicator activity: " + a);
            }
        } finally {
            rank.monitor().end(b);
        }
    }

    /** Makes a split communicator from evaluated operands (also when a resumed rank re-creates it). */
    static void split(RankState rank, NamedCommunicators.Made made) {
        Communicator parent = rank.communicators().get(made.comm());
        // a negative colour is MPI_UNDEFINED: the rank takes part and gets no communicator
        rank.communicators().define(made, parent.split(made.name(), made.colour(), made.key()));
    }

    /** Makes a Cartesian communicator from evaluated dims (also when a resumed rank re-creates it). */
    static void cartesian(RankState rank, NamedCommunicators.Made made) {
        Communicator parent = rank.communicators().get(made.comm());
        int places = 1;
        for (int d : made.dims()) {
            places *= d;
        }
        if (places == parent.size()) {
            rank.communicators().define(made, parent.cartesian(made.name(), made.dims(), made.periodic()));
            return;
        }
        boolean member = parent.rank() < places;
        Communicator members = parent.split(made.name() + "/members", member ? 0 : SplitChoice.UNDEFINED, parent.rank());
        rank.communicators().define(made, member ? members.cartesian(made.name(), made.dims(), made.periodic()) : null);
    }

    /** Re-creates a communicator of a checkpoint's log, in the order the rank first made them. */
    static void remake(RankState rank, NamedCommunicators.Made made) {
        if (made.kind().equals("split")) {
            split(rank, made);
        } else {
            cartesian(rank, made);
        }
    }
}
