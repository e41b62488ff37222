package org.mpfl.compiler.check.activity;

import static org.mpfl.compiler.check.activity.ActivityContext.allPresent;
import static org.mpfl.compiler.check.activity.ActivityContext.anyAsNull;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.MpflType;

/** {@code <sendrecv>}: a send and a receive in one step; the receiving half may name {@code any}. */
final class SendRecvValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        IrExpr to = context.attrs().expression(e, "to", scope, MpflType.INT);
        IrExpr data = context.attrs().expression(e, "data", scope);
        IrExpr sendTag = context.tag(e, "sendtag", scope);
        IrExpr from = context.sourceOrAny(e, "from", scope);
        IrTarget into = context.attrs().target(e, "into", scope);
        IrExpr recvTag = context.tagOrAny(e, "recvtag", scope);
        String comm = context.attrs().communicator(e, "comm");
        return allPresent(to, data, sendTag, from, into, recvTag, comm)
                ? new IrActivity.SendRecv(to, data, sendTag, anyAsNull(from), into, anyAsNull(recvTag), comm, e.location()) : null;
    }
}
