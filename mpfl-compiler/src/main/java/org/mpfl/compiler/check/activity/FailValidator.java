package org.mpfl.compiler.check.activity;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;

/** {@code <fail message>}: any value, shown as text. */
final class FailValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        IrExpr message = context.attrs().text(e, "message", scope);
        return message == null ? null : new IrActivity.Fail(message, e.location());
    }
}
