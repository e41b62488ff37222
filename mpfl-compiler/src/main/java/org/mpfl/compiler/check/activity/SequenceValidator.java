package org.mpfl.compiler.check.activity;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;

/** {@code <sequence>}: its body, in the enclosing scope (a sequence declares nothing). */
final class SequenceValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        return new IrActivity.Sequence(context.body(e, scope, flow), e.location());
    }
}
