package org.mpfl.ir.semantics;

import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;

/**
 * Which operands a collective reads on which member and which variable its result lands in: the
 * rooted ones (broadcast, scatter, gather, reduce) have a {@code root}; scatter's data is the root's
 * alone (the other members do not even evaluate it — it may index arrays only the root has); a
 * broadcast contributes its variable and overwrites it on the other members only; gather and reduce
 * store their result on the root only; allgather, alltoall, allreduce, scan and scatter store on
 * every member. Barrier reads and writes nothing. The value domain is the caller's: this class only
 * says which expression and which target.
 */
public final class CollectiveShape {
    private CollectiveShape() {
    }

    /** The {@code root} expression of a rooted collective; null for the others. */
    public static IrExpr root(IrActivity a) {
        if (a instanceof IrActivity.Broadcast x) {
            return x.root();
        } else if (a instanceof IrActivity.Scatter x) {
            return x.root();
        } else if (a instanceof IrActivity.Gather x) {
            return x.root();
        } else if (a instanceof IrActivity.Reduce x) {
            return x.root();
        }
        return null;
    }

    /**
     * The data expression this member evaluates and contributes; null when it evaluates none (a
     * barrier, a broadcast — whose contribution is its variable — or scatter off the root).
     */
    public static IrExpr data(IrActivity a, boolean atRoot) {
        if (a instanceof IrActivity.Scatter x) {
            return atRoot ? x.data() : null;
        } else if (a instanceof IrActivity.Gather x) {
            return x.data();
        } else if (a instanceof IrActivity.Allgather x) {
            return x.data();
        } else if (a instanceof IrActivity.Alltoall x) {
            return x.data();
        } else if (a instanceof IrActivity.Reduce x) {
            return x.data();
        } else if (a instanceof IrActivity.Allreduce x) {
            return x.data();
        } else if (a instanceof IrActivity.Scan x) {
            return x.data();
        }
        return null;
    }

    /** Where this member stores the collective's result; null when it stores nothing. */
    public static IrTarget result(IrActivity a, boolean atRoot) {
        if (a instanceof IrActivity.Broadcast x) {
            return atRoot ? null : x.variable(); // the root keeps its own value
        } else if (a instanceof IrActivity.Gather x) {
            return atRoot ? x.into() : null;
        } else if (a instanceof IrActivity.Reduce x) {
            return atRoot ? x.into() : null;
        } else if (a instanceof IrActivity.Scatter x) {
            return x.into();
        } else if (a instanceof IrActivity.Allgather x) {
            return x.into();
        } else if (a instanceof IrActivity.Alltoall x) {
            return x.into();
        } else if (a instanceof IrActivity.Allreduce x) {
            return x.into();
        } else if (a instanceof IrActivity.Scan x) {
            return x.into();
        }
        return null;
    }

    /** The reduction operator of reduce, allreduce and scan; null for the others. */
    public static IrActivity.ReduceOp op(IrActivity a) {
        if (a instanceof IrActivity.Reduce x) {
            return x.op();
        } else if (a instanceof IrActivity.Allreduce x) {
            return x.op();
        } else if (a instanceof IrActivity.Scan x) {
            return x.op();
        }
        return null;
    }

    /** What the stored result is, for messages ("received value of type … does not fit …"). */
    public static String resultName(IrActivity a) {
        if (a instanceof IrActivity.Broadcast) {
            return "broadcast value";
        } else if (a instanceof IrActivity.Scatter) {
            return "scattered block";
        } else if (a instanceof IrActivity.Gather || a instanceof IrActivity.Allgather) {
            return "gathered value";
        } else if (a instanceof IrActivity.Alltoall) {
            return "alltoall result";
        } else if (a instanceof IrActivity.Reduce || a instanceof IrActivity.Allreduce) {
            return "reduced value";
        } else if (a instanceof IrActivity.Scan) {
            return "scan value";
        }
        return "result";
    }
}
