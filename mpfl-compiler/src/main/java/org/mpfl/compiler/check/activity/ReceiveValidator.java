package org.mpfl.compiler.check.activity;

import static org.mpfl.compiler.check.activity.ActivityContext.allPresent;
import static org.mpfl.compiler.check.activity.ActivityContext.anyAsNull;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.ExpressionTyper;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.MpflType;

/**
 * {@code <receive>} and {@code <irecv>}: a source and tag that may be {@code any}, optional int
 * variables that learn the actual source and tag, and a timeout ({@code receive} only) or the
 * request to wait for ({@code irecv} only).
 */
final class ReceiveValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        IrExpr from = context.sourceOrAny(e, "from", scope);
        IrTarget into = context.attrs().target(e, "into", scope);
        IrExpr tag = context.tagOrAny(e, "tag", scope);
        String comm = context.attrs().communicator(e, "comm");
        IrTarget source = intTarget(context, e, "source", scope);
        IrTarget gottag = intTarget(context, e, "gottag", scope);
        boolean optionalOk = (e.attribute("source") == null || source != null) && (e.attribute("gottag") == null || gottag != null);
        if (e.name().equals("irecv")) {
            String request = context.request(e);
            return allPresent(from, into, tag, comm, request) && optionalOk
                    ? new IrActivity.IRecv(anyAsNull(from), into, anyAsNull(tag), comm, source, gottag, request, e.location()) : null;
        }
        IrExpr timeout = null;
        if (e.attribute("timeout") != null) {
            IrExpr typed = context.attrs().expression(e, "timeout", scope);
            if (typed != null && !typed.type().isIntegral()) {
                context.error(ExpressionTyper.startOf(typed), "'timeout' of <receive> must be int or long (milliseconds), found " + typed.type());
            } else {
                timeout = ExpressionTyper.coerce(typed, MpflType.LONG);
            }
            optionalOk &= timeout != null;
        }
        return allPresent(from, into, tag, comm) && optionalOk
                ? new IrActivity.Receive(anyAsNull(from), into, anyAsNull(tag), comm, source, gottag, timeout, e.location()) : null;
    }

    private static IrTarget intTarget(ActivityContext context, Element e, String attribute, Scope scope) {
        if (e.attribute(attribute) == null) {
            return null;
        }
        IrTarget target = context.attrs().target(e, attribute, scope);
        if (target != null && target.type() != MpflType.INT) {
            context.error(target.at(), "'" + attribute + "' of <" + e.name() + "> must be an int variable, found " + target.type());
            return null;
        }
        return target;
    }
}
