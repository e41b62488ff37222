package org.mpfl.compiler.check.activity;

import static org.mpfl.compiler.check.activity.ActivityContext.allPresent;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

/** {@code <progress value total>}: doubles, total 100 by default (a percentage). */
final class ProgressValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        IrExpr value = context.attrs().expression(e, "value", scope, MpflType.DOUBLE);
        IrExpr total = e.attribute("total") == null ? new IrExpr.Const(MpflType.DOUBLE, 100.0, e.location())
                : context.attrs().expression(e, "total", scope, MpflType.DOUBLE);
        return allPresent(value, total) ? new IrActivity.Progress(value, total, e.location()) : null;
    }
}
