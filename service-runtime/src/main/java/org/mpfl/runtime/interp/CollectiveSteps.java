package org.mpfl.runtime.interp;

import java.util.function.Supplier;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.eval.ExpressionEvaluator;
import org.mpfl.ir.eval.RuntimeFault;
import org.mpfl.ir.eval.Values;
import org.mpfl.ir.semantics.Addressing;
import org.mpfl.ir.semantics.CollectiveShape;
import org.mpfl.ir.semantics.Operands;
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
        } else {
            IrExpr rootExpr = CollectiveShape.root(a);
            Integer root = rootExpr == null ? null : Addressing.root(rootExpr, Operands.in(f), comm.name(), comm.size());
            boolean atRoot = root != null && comm.rank() == root;
            // a broadcast contributes its variable; scatter's data is evaluated on the root only
            IrExpr dataExpr = CollectiveShape.data(a, atRoot);
            Object data = a instanceof IrActivity.Broadcast x ? rank.load(x.variable(), f)
                    : dataExpr == null ? null : ExpressionEvaluator.evaluate(dataExpr, f);
            if (a instanceof IrActivity.Alltoall x) {
                int length = Values.length(data);
                if (length % comm.size() != 0) {
                    throw new RuntimeFault(x.data().at(), "alltoall needs data whose length is a multiple of the "
                            + comm.size() + " ranks of communicator " + comm.name() + "; it has " + length + " elements");
                }
            }
            Object result = blocking(name, a, f, comm, root, () -> call(a, comm, data, root, algorithm));
            IrTarget target = CollectiveShape.result(a, atRoot);
            if (target != null) {
                rank.store(target, result, false, f, CollectiveShape.resultName(a));
            }
        }
    }

    /** The communicator's operation for {@code a} (every collective but barrier). */
    private static Object call(IrActivity.Collective a, Communicator comm, Object data, Integer root, String algorithm) {
        if (a instanceof IrActivity.Broadcast) {
            return comm.bcast(data, root, algorithm);
        } else if (a instanceof IrActivity.Scatter) {
            return comm.scatter(data, root, algorithm);
        } else if (a instanceof IrActivity.Gather) {
            return comm.gather(data, root, algorithm);
        } else if (a instanceof IrActivity.Allgather) {
            return comm.allgather(data, algorithm);
        } else if (a instanceof IrActivity.Alltoall) {
            return comm.alltoall(data, algorithm);
        } else if (a instanceof IrActivity.Reduce x) {
            return comm.reduce(data, op(x.op()), root, algorithm);
        } else if (a instanceof IrActivity.Allreduce x) {
            return comm.allreduce(data, op(x.op()), algorithm);
        } else if (a instanceof IrActivity.Scan x) {
            return comm.scan(data, op(x.op()), algorithm);
        }
        throw new IllegalStateException("not a collective: " + a);
    }

    private static Object blocking(String name, IrActivity a, Frame f, Communicator comm, Integer root,
                                   Supplier<Object> call) {
        RankActivityMonitor monitor = f.rank().monitor();
        monitor.reached(name, a.at());
        RankActivityMonitor.Blocking b = monitor.begin("collective", name, a.at(), () -> {
            String where = " comm " + comm.name() + " (" + comm.size() + " ranks)";
            if (root == null) {
                return name + where;
            }
            return comm.rank() == root ? name + " as its root" + where
                    : name + " with root " + PointToPointSteps.describePeer(f.rank().runtime(), comm, root) + where;
        });
        if (root != null) {
            b.peer(f.rank().runtime().worldRankOf(comm, root), null);
        }
        try {
            return call.get();
        } finally {
            monitor.end(b);
        }
    }

    private static ReduceOp op(IrActivity.ReduceOp op) {
        return ReduceOp.of(op.spelling());
    }
}
