package org.mpfl.compiler.check.activity;

import java.util.List;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

/** {@code <while test>}; warns about a constant-true test with no {@code <break>} that could end it. */
final class WhileValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        IrExpr test = context.attrs().expression(e, "test", scope, MpflType.BOOLEAN);
        List<IrActivity> body = context.body(e, scope.child(), flow.inLoop());
        if (test instanceof IrExpr.Const c && Boolean.TRUE.equals(c.value()) && !containsBreak(body)) {
            context.warning(e.location(), "<while test=\"true\"> without <break> never ends");
        }
        return test == null ? null : new IrActivity.While(test, body, e.location());
    }

    // a break inside a nested loop or parallel branch does not leave this loop, so those are not searched
    private static boolean containsBreak(List<IrActivity> body) {
        for (IrActivity a : body) {
            if (a instanceof IrActivity.Break) {
                return true;
            } else if (a instanceof IrActivity.Sequence s && containsBreak(s.body())) {
                return true;
            } else if (a instanceof IrActivity.If i
                    && (containsBreak(i.otherwise()) || i.arms().stream().anyMatch(arm -> containsBreak(arm.body())))) {
                return true;
            }
        }
        return false;
    }
}
