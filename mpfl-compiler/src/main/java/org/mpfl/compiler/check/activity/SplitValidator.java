package org.mpfl.compiler.check.activity;

import static org.mpfl.compiler.check.activity.ActivityContext.allPresent;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

/** {@code <split name comm color key>}: creates a communicator of the ranks with the same color. */
final class SplitValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        String name = context.declaredCommunicator(e);
        String comm = context.attrs().communicator(e, "comm");
        IrExpr color = context.attrs().expression(e, "color", scope, MpflType.INT);
        IrExpr key = e.attribute("key") == null ? null : context.attrs().expression(e, "key", scope, MpflType.INT);
        return allPresent(name, comm, color) && (e.attribute("key") == null || key != null)
                ? new IrActivity.Split(name, comm, color, key, e.location()) : null;
    }
}
