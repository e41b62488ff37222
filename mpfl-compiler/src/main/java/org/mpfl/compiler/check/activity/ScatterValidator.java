package org.mpfl.compiler.check.activity;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;

/** {@code <scatter>} and {@code <alltoall>}: an array (or bytes) in, the same type out; only scatter has a root. */
final class ScatterValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        CollectiveOperands o = CollectiveOperands.read(context, e, scope, e.name().equals("scatter"));
        boolean ok = o.complete();
        if (o.data() != null && o.data().type().elementType() == null) {
            context.error(o.data().at(), "'data' of <" + e.name() + "> must be an array or bytes, found " + o.data().type());
            ok = false;
        } else if (o.data() != null && o.into() != null && o.into().type() != o.data().type()) {
            context.error(o.into().at(), "'into' of <" + e.name() + "> must be " + o.data().type() + " like 'data', found "
                    + o.into().type());
            ok = false;
        }
        if (!ok) {
            return null;
        }
        return o.rooted() ? new IrActivity.Scatter(o.root(), o.data(), o.into(), o.comm(), o.algorithm(), e.location())
                : new IrActivity.Alltoall(o.data(), o.into(), o.comm(), o.algorithm(), e.location());
    }
}
