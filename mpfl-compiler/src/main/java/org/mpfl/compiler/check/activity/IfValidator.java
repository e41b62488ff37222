package org.mpfl.compiler.check.activity;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

/** {@code <if test>} with its {@code <elseif>} and {@code <else>} children, each body in a scope of its own. */
final class IfValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        List<IrActivity.Arm> arms = new ArrayList<>();
        IrExpr test = context.attrs().expression(e, "test", scope, MpflType.BOOLEAN);
        List<IrActivity> then = context.body(e, scope.child(), flow);
        arms.add(new IrActivity.Arm(test, then, e.location()));
        List<IrActivity> otherwise = List.of();
        boolean ok = test != null;
        for (Element child : e.children()) {
            if (child.name().equals("elseif")) {
                IrExpr elseifTest = context.attrs().expression(child, "test", scope, MpflType.BOOLEAN);
                arms.add(new IrActivity.Arm(elseifTest, context.body(child, scope.child(), flow), child.location()));
                ok &= elseifTest != null;
            } else if (child.name().equals("else")) {
                otherwise = context.body(child, scope.child(), flow);
            }
        }
        return ok ? new IrActivity.If(arms, otherwise, e.location()) : null;
    }
}
