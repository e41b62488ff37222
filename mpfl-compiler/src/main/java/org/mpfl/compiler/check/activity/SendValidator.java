package org.mpfl.compiler.check.activity;

import static org.mpfl.compiler.check.activity.ActivityContext.allPresent;

import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

/** {@code <send>} and {@code <isend>}, which differ only in the request the latter starts. */
final class SendValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        IrExpr to = context.attrs().expression(e, "to", scope, MpflType.INT);
        IrExpr data = context.attrs().expression(e, "data", scope);
        IrExpr tag = context.tag(e, "tag", scope);
        String comm = context.attrs().communicator(e, "comm");
        IrActivity.SendMode mode = mode(context, e);
        if (e.name().equals("isend")) {
            String request = context.request(e);
            return allPresent(to, data, tag, comm, mode, request)
                    ? new IrActivity.ISend(to, data, tag, comm, mode, request, e.location()) : null;
        }
        return allPresent(to, data, tag, comm, mode) ? new IrActivity.Send(to, data, tag, comm, mode, e.location()) : null;
    }

    private static IrActivity.SendMode mode(ActivityContext context, Element e) {
        Attribute a = e.attribute("mode");
        if (a == null) {
            return IrActivity.SendMode.STANDARD;
        }
        IrActivity.SendMode mode = IrActivity.SendMode.of(a.value().trim());
        if (mode == null) {
            context.error(a.location(), "mode of <" + e.name() + "> must be 'standard' or 'synchronous', found '" + a.value() + "'");
        }
        return mode;
    }
}
