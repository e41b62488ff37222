package org.mpfl.compiler.check.activity;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.activity.ActivityContext;
import org.mpfl.compiler.check.activity.ActivityValidator;
import org.mpfl.compiler.check.activity.ActivityValidators;
import org.mpfl.compiler.check.activity.Flow;
import org.mpfl.compiler.check.typing.AttributeTyping;
import org.mpfl.compiler.check.typing.ProcessContext;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.compiler.parse.ElementCatalog;

/**
 * Checks the activities of a process body by handing each element to its validator in
 * {@link org.mpfl.compiler.check.activity}, in document order, and warns about activities that
 * can never run because a {@code <fail>} or {@code <break>} precedes them in the same block.
 */
public final class ActivityChecker {
    private final ProcessContext context;
    private final ActivityContext activities;

    public ActivityChecker(ProcessContext context) {
        this.context = context;
        this.activities = new ActivityContext(context, new AttributeTyping(context), this::body);
    }

    /** The activities among the children of {@code parent} (other children are handled by their parent's validator). */
    public List<IrActivity> body(Element parent, Scope scope, Flow flow) {
        List<IrActivity> result = new ArrayList<>();
        String endedBy = null;
        for (Element child : parent.children()) {
            if (!child.namespace().equals(ElementCatalog.NAMESPACE) && !child.namespace().isEmpty()) {
                continue;
            }
            ActivityValidator validator = ActivityValidators.of(child.name());
            if (validator == null) {
                continue; // structure validation reported it, or the parent reads it (elseif, else, branch)
            }
            if (endedBy != null) {
                context.diagnostics().warning(child.location(), "<" + child.name() + "> is never reached: it follows <"
                        + endedBy + "> in the same block");
                endedBy = null; // one warning per block is enough
            }
            // a break outside any loop is an error of its own, not the end of the block
            if (child.name().equals("fail") || (child.name().equals("break") && flow.loopDepth() > 0)) {
                endedBy = child.name();
            }
            IrActivity activity = validator.validate(activities, child, scope, flow);
            if (activity != null) {
                result.add(activity);
            }
        }
        return result;
    }
}
