package org.mpfl.runtime.interp;

import java.util.Arrays;
import java.util.List;
import org.mpfl.compiler.ir.IrActivity;
import org.mpfl.compiler.ir.IrExpr;
import org.mpfl.compiler.ir.MpflType;
import org.mpfl.compiler.ir.eval.ExpressionEvaluator;
import org.mpfl.compiler.ir.eval.RuntimeFault;
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
        RankActivityMonitor.Blocking b = rank.monitor().begin(name, a.at(),
                () -> name + " comm " + parent.name() + " (" + parent.size() + " ranks)");
        try {
            if (a instanceof IrActivity.Split x) {
                int color = ExpressionEvaluator.evaluateInt(x.color(), f);
                int key = x.key() == null ? parent.rank() : ExpressionEvaluator.evaluateInt(x.key(), f);
                // a negative colour is MPI_UNDEFINED: the rank takes part and gets no communicator
                rank.communicators().define(x.name(), parent.split(x.name(), color < 0 ? -1 : color, key));
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
        int[] dims = dims(x.dims(), f);
        boolean[] periodic = periodic(x.periodic(), dims.length, f);
        long places = 1;
        for (int d : dims) {
            if (d < 1) {
                throw new RuntimeFault(x.at(), "cartesian " + x.name() + ": dims " + Arrays.toString(dims)
                        + " must all be at least 1");
            }
            places *= d;
        }
        if (places > parent.size()) {
            throw new RuntimeFault(x.at(), "cartesian " + x.name() + ": the grid " + Arrays.toString(dims) + " has " + places
                    + " places but communicator " + parent.name() + " has only " + parent.size() + " ranks");
        }
        RankState rank = f.rank();
        if (places == parent.size()) {
            rank.communicators().define(x.name(), parent.cartesian(x.name(), dims, periodic));
            return;
        }
        boolean member = parent.rank() < places;
        Communicator members = parent.split(x.name() + "/members", member ? 0 : -1, parent.rank());
        rank.communicators().define(x.name(), member ? members.cartesian(x.name(), dims, periodic) : null);
    }

    private static int[] dims(List<IrExpr> exprs, Frame f) {
        if (exprs.size() == 1 && exprs.get(0).type() == MpflType.INT_ARRAY) {
            return ((int[]) ExpressionEvaluator.evaluate(exprs.get(0), f)).clone();
        }
        int[] dims = new int[exprs.size()];
        for (int i = 0; i < dims.length; i++) {
            dims[i] = ExpressionEvaluator.evaluateInt(exprs.get(i), f);
        }
        return dims;
    }

    private static boolean[] periodic(List<IrExpr> exprs, int nd, Frame f) {
        boolean[] periodic = new boolean[nd];
        if (exprs.isEmpty()) {
            return periodic;
        }
        if (exprs.size() == 1) {
            Arrays.fill(periodic, ExpressionEvaluator.test(exprs.get(0), f));
            return periodic;
        }
        if (exprs.size() != nd) {
            throw new RuntimeFault(exprs.get(0).at(), "periodic has " + exprs.size() + " values for a grid of " + nd
                    + " dimensions");
        }
        for (int i = 0; i < nd; i++) {
            periodic[i] = ExpressionEvaluator.test(exprs.get(i), f);
        }
        return periodic;
    }
}
