package org.mpfl.compiler.check.activity;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

/**
 * {@code <checkpoint every>}: {@code every} is an int expression (1 when absent). A checkpoint saves
 * one position per rank, so it may not sit in a {@code parallel} branch (the other branches would be
 * somewhere else). That it is reached by every rank the same number of times is the communication
 * check's, as for any world collective.
 */
final class CheckpointValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        if (flow.inBranch()) {
            context.error(e.location(), "<checkpoint> cannot be inside a <parallel> branch: a rank's position is saved"
                    + " as one place in the program, and the other branches would be elsewhere");
            return null;
        }
        IrExpr every = e.attribute("every") == null ? new IrExpr.Const(MpflType.INT, 1, e.location())
                : context.attrs().expression(e, "every", scope, MpflType.INT);
        return every == null ? null : new IrActivity.Checkpoint(every, e.location());
    }
}
