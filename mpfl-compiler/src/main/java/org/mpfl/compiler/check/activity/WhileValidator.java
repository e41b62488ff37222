package org.mpfl.compiler.check.activity;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrWalk;
import org.mpfl.ir.MpflType;

/**
 * {@code <while test>}; warns about a loop that can never end once entered: a constant-true test, or a
 * test that reads only names nothing in the loop changes, with no {@code <break>} that could end it.
 */
final class WhileValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        IrExpr test = context.attrs().expression(e, "test", scope, MpflType.BOOLEAN);
        List<IrActivity> body = context.body(e, scope.child(), flow.inLoop());
        if (test instanceof IrExpr.Const c && Boolean.TRUE.equals(c.value()) && !containsBreak(body)) {
            context.warning(e.location(), "<while test=\"true\"> without <break> never ends");
        } else if (test != null && !(test instanceof IrExpr.Const) && !flow.inBranch() && !containsBreak(body)
                && neverChanges(test, body)) {
            context.warning(e.location(), "<while> never ends once entered: its test reads only "
                    + String.join(", ", names(test)) + ", which the loop never changes, and it has no <break>");
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

    /**
     * Whether the test reads the same values at every iteration: nothing in the body stores into a name
     * it reads. Not claimed when the body could end the rank or change the test some other way: a
     * {@code <fail>}, a {@code <wait>} (an earlier {@code <irecv>} stores on completion), a kernel (it may
     * update an input array in place), or a test that asks the environment (a communicator the body
     * creates). A loop in a {@code <parallel>} branch is never judged: another branch may change its test.
     */
    private static boolean neverChanges(IrExpr test, List<IrActivity> body) {
        if (IrWalk.usesRuntime(test)) {
            return false;
        }
        Set<String> read = names(test);
        boolean[] changes = {false};
        IrWalk.forEachActivity(body, a -> {
            if (a instanceof IrActivity.Fail || a instanceof IrActivity.Wait || a instanceof IrActivity.WaitAll
                    || a instanceof IrActivity.Compute) {
                changes[0] = true;
            }
            IrWalk.targets(a).forEach(t -> changes[0] |= read.contains(t.variable()));
        });
        return !changes[0];
    }

    private static Set<String> names(IrExpr test) {
        Set<String> names = new LinkedHashSet<>();
        IrWalk.references(test).forEach(r -> names.add(r.name()));
        return names;
    }
}
