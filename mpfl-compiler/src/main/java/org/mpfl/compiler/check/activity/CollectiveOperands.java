package org.mpfl.compiler.check.activity;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.MpflType;

/**
 * The operands that scatter, alltoall, gather and allgather read alike, in the order their
 * diagnostics are reported: the root (rooted forms only), data, into, comm and algorithm.
 * Reductions read their op in between, so they do not use this.
 */
record CollectiveOperands(boolean rooted, IrExpr root, IrExpr data, IrTarget into, String comm, String algorithm) {

    static CollectiveOperands read(ActivityContext context, Element e, Scope scope, boolean rooted) {
        IrExpr root = rooted ? context.attrs().expression(e, "root", scope, MpflType.INT) : null;
        IrExpr data = context.attrs().expression(e, "data", scope);
        IrTarget into = context.attrs().target(e, "into", scope);
        String comm = context.attrs().communicator(e, "comm");
        String algorithm = context.algorithm(e);
        return new CollectiveOperands(rooted, root, data, into, comm, algorithm);
    }

    /** Whether every operand was read without error. */
    boolean complete() {
        return ActivityContext.allPresent(data, into, comm, algorithm) && (!rooted || root != null);
    }
}
