package org.mpfl.compiler.check.activity;

import java.util.List;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.UnaryOp;

/**
 * {@code <for var from to step>}: int bounds, a non-zero step, and a loop variable visible in the body only;
 * literal bounds and step that give no iteration draw a warning.
 */
final class ForValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        Attribute varAttribute = e.attribute("var");
        IrExpr from = context.attrs().expression(e, "from", scope, MpflType.INT);
        IrExpr to = context.attrs().expression(e, "to", scope, MpflType.INT);
        IrExpr step = e.attribute("step") == null ? new IrExpr.Const(MpflType.INT, 1, e.location())
                : context.attrs().expression(e, "step", scope, MpflType.INT);
        if (step instanceof IrExpr.Const c && Integer.valueOf(0).equals(c.value())) {
            context.error(step.at(), "the step of <for> must not be 0");
            step = null;
        }
        Integer first = literal(from);
        Integer last = literal(to);
        Integer by = literal(step);
        if (first != null && last != null && by != null && by != 0 && (by > 0 ? first >= last : first <= last)) {
            context.warning(e.location(), "<for> from " + first + " to " + last + " with step " + by + " runs no iteration ('to' is"
                    + " exclusive" + (first.equals(last) ? ")" : by > 0 ? "; count down with step=\"-1\")" : "; count up with a positive step)"));
        }
        Scope bodyScope = scope.child();
        String variable = null;
        if (varAttribute != null) {
            variable = varAttribute.value().trim();
            if (context.checkNewName(varAttribute.location(), variable, "loop variable", scope)) {
                bodyScope.declare(new Scope.Symbol(variable, IrExpr.RefKind.LOOP, MpflType.INT, varAttribute.location()));
            } else {
                variable = null;
            }
        }
        // the body is checked even when the header is wrong, so that its own errors are reported too
        List<IrActivity> body = context.body(e, bodyScope, flow.inLoop());
        return ActivityContext.allPresent(variable, from, to, step)
                ? new IrActivity.For(variable, from, to, step, body, e.location()) : null;
    }

    /**
     * The value of an int literal, or of a negated one ({@code -1}); null for anything else: bounds with names
     * are meant as written (a loop that may run no iteration for some params is normal).
     */
    private static Integer literal(IrExpr e) {
        if (e instanceof IrExpr.Const c && c.value() instanceof Integer i) {
            return i;
        }
        if (e instanceof IrExpr.Unary u && u.op() == UnaryOp.NEGATE && u.operand() instanceof IrExpr.Const c
                && c.value() instanceof Integer i) {
            return -i;
        }
        return null;
    }
}
