package org.mpfl.compiler.check.activity;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.ExpressionTyper;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;

/** {@code <assign to value>}: the value must convert to the target's type without narrowing. */
final class AssignValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        IrTarget target = context.attrs().target(e, "to", scope);
        IrExpr value = context.attrs().expression(e, "value", scope);
        if (target == null || value == null) {
            return null;
        }
        IrExpr converted = ExpressionTyper.coerce(value, target.type());
        if (converted == null) {
            context.error(ExpressionTyper.startOf(value), "cannot assign " + value.type() + " to " + describe(target)
                    + ExpressionTyper.conversionHint(value, target.type()));
            return null;
        }
        return new IrActivity.Assign(target, converted, e.location());
    }

    private static String describe(IrTarget target) {
        return target.index() == null ? target.type() + " variable '" + target.variable() + "'"
                : "an element of '" + target.variable() + "' (" + target.type() + ")";
    }
}
