package org.mpfl.compiler.check.activity;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;

/** {@code <break>}: only inside a loop, and never out of a parallel branch (the branch would end alone). */
final class BreakValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        if (flow.loopDepth() == 0) {
            context.error(e.location(), flow.inBranch() ? "<break> cannot leave a <parallel> branch"
                    : "<break> outside a <while> or <for>");
            return null;
        }
        return new IrActivity.Break(e.location());
    }
}
