package org.mpfl.compiler.check.activity;

import static org.mpfl.compiler.check.activity.ActivityContext.allPresent;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;

/** {@code <barrier comm algorithm>}. */
final class BarrierValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        String comm = context.attrs().communicator(e, "comm");
        String algorithm = context.algorithm(e);
        return allPresent(comm, algorithm) ? new IrActivity.Barrier(comm, algorithm, e.location()) : null;
    }
}
