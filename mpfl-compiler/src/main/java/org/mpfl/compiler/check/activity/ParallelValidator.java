package org.mpfl.compiler.check.activity;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;

/** {@code <parallel>} with its {@code <branch>} children; a branch starts outside any loop so that {@code <break>} cannot leave it. */
final class ParallelValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        List<List<IrActivity>> branches = new ArrayList<>();
        for (Element child : e.children()) {
            if (child.name().equals("branch")) {
                branches.add(context.body(child, scope.child(), new Flow(0, true)));
            }
        }
        return new IrActivity.Parallel(branches, e.location());
    }
}
