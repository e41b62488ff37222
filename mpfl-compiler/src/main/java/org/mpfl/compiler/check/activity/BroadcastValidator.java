package org.mpfl.compiler.check.activity;

import static org.mpfl.compiler.check.activity.ActivityContext.allPresent;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.MpflType;

/** {@code <broadcast root var>}: the root's value of a whole variable (not an element) reaches every rank. */
final class BroadcastValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        IrExpr root = context.attrs().expression(e, "root", scope, MpflType.INT);
        IrTarget variable = context.attrs().variable(e, "var", scope);
        String comm = context.attrs().communicator(e, "comm");
        String algorithm = context.algorithm(e);
        return allPresent(root, variable, comm, algorithm)
                ? new IrActivity.Broadcast(root, variable, comm, algorithm, e.location()) : null;
    }
}
