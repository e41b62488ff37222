package org.mpfl.runtime.interp;

import java.util.function.Supplier;
import org.mpfl.compiler.ir.IrActivity;
import org.mpfl.compiler.ir.IrExpr;
import org.mpfl.compiler.ir.eval.ExpressionEvaluator;
import org.mpfl.compiler.ir.eval.RuntimeFault;
import org.mpfl.compiler.ir.eval.Values;
import org.mpfl.runtime.api.Communicator;
import org.mpfl.runtime.api.ReduceOp;

/**
 * The collective activities (barrier, broadcast, scatter, gather, allgather, alltoall, reduce,
 * allreduce, scan) with their root, op, algorithm and communicator. Results are fitted to the
 * declared type of {@code into}; rooted results are stored on the root only. The whole collective
 * counts as one blocking call for WAIT reports.
 */
final class CollectiveSteps {

    void execute(IrActivity.Collective a, Frame f) {
        RankState rank = f.rank();
        Communicator comm = rank.communicators().get(a.comm());
        String algorithm = a.algorithm() == null ? "auto" : a.algorithm();
        String name = Executor.name(a);
        if (a instanceof IrActivity.Barrier) {
            blocking(name, a, f, comm, null, () -> {
                rank.runtime().barrier(comm, algorithm);
                return null;
            });
        } else if (a instanceof IrActivity.Broadcast x) {
            int root = root(x.root(), comm, f);
            Object mine = rank.load(x.variable(), f);
            Object result = blocking(name, a, f, comm, root, () -> comm.bcast(mine, root, algorithm));
            if (comm.rank() != root) {
                rank.store(x.variable(), result, false, f, "broadcast value");
            }
        } else if (a instanceof IrActivity.Scatter x) {
            int root = root(x.root(), comm, f);
            // the data is the root's; other ranks do not even evaluate it (it may index arrays only the root has)
            Object data = comm.rank() == root ? ExpressionEvaluator.evaluate(x.data(), f) : null;
            Object result = blocking(name, a, f, comm, root, () -> comm.scatter(data, root, algorithm));
            rank.store(x.into(), result, false, f, "scattered block");
        } else if (a instanceof IrActivity.Gather x) {
            int root = root(x.root(), comm, f);
            Object data = ExpressionEvaluator.evaluate(x.data(), f);
            Object result = blocking(name, a, f, comm, root, () -> comm.gather(data, root, algorithm));
            if (comm.rank() == root) {
                rank.store(x.into(), result, false, f, "gathered value");
            }
        } else if (a instanceof IrActivity.Allgather x) {
            Object data = ExpressionEvaluator.evaluate(x.data(), f);
            Object result = blocking(name, a, f, comm, null, () -> comm.allgather(data, algorithm));
            rank.store(x.into(), result, false, f, "gathered value");
        } else if (a instanceof IrActivity.Alltoall x) {
            Object data = ExpressionEvaluator.evaluate(x.data(), f);
            int length = Values.length(data);
            if (length % comm.size() != 0) {
                throw new RuntimeFault(x.data().at(), "alltoall needs data whose length is a multiple of the "
                        + comm.size() + " ranks of communicator " + comm.name() + "; it has " + length + " elements");
            }
            Object result = blocking(name, a, f, comm, null, () -> comm.alltoall(data, algorithm));
            rank.store(x.into(), result, false, f, "alltoall result");
        } else if (a instanceof IrActivity.Reduce x) {
            int root = root(x.root(), comm, f);
            Object data = ExpressionEvaluator.evaluate(x.data(), f);
            Object result = blocking(name, a, f, comm, root, () -> comm.reduce(data, op(x.op()), root, algorithm));
            if (comm.rank() == root) {
                rank.store(x.into(), result, false, f, "reduced value");
            }
        } else if (a instanceof IrActivity.Allreduce x) {
            Object data = ExpressionEvaluator.evaluate(x.data(), f);
            Object result = blocking(name, a, f, comm, null, () -> comm.allreduce(data, op(x.op()), algorithm));
            rank.store(x.into(), result, false, f, "reduced value");
        } else if (a instanceof IrActivity.Scan x) {
            Object data = ExpressionEvaluator.evaluate(x.data(), f);
            Object result = blocking(name, a, f, comm, null, () -> comm.scan(data, op(x.op()), algorithm));
            rank.store(x.into(), result, false, f, "scan value");
        } else {
            throw new IllegalStateException("not a collective: " + a);
        }
    }

    private static Object blocking(String name, IrActivity a, Frame f, Communicator comm, Integer root,
                                   Supplier<Object> call) {
        RankActivityMonitor monitor = f.rank().monitor();
        monitor.reached(name, a.at());
        RankActivityMonitor.Blocking b = monitor.begin(name, a.at(), () -> {
            String where = " comm " + comm.name() + " (" + comm.size() + " ranks)";
            if (root == null) {
                return name + where;
            }
            return comm.rank() == root ? name + " as its root" + where
                    : name + " with root " + PointToPointSteps.describePeer(f.rank().runtime(), comm, root) + where;
        });
        try {
            return call.get();
        } finally {
            monitor.end(b);
        }
    }

    private static int root(IrExpr expr, Communicator comm, Frame f) {
        int r = ExpressionEvaluator.evaluateInt(expr, f);
        if (r < 0 || r >= comm.size()) {
            throw new RuntimeFault(expr.at(), "root is rank " + r + ", outside communicator " + comm.name() + " of size "
                    + comm.size());
        }
        return r;
    }

    private static ReduceOp op(IrActivity.ReduceOp op) {
        return ReduceOp.of(op.spelling());
    }
}
