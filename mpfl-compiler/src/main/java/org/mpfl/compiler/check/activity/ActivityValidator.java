package org.mpfl.compiler.check.activity;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;

/**
 * Checks one kind of activity element and builds its IR.
 *
 * <p>Implementations report problems through {@code context} instead of throwing, and return null
 * when the element is wrong, so that its siblings are still checked and every error of a document
 * is reported in one run.
 */
@FunctionalInterface
public interface ActivityValidator {

    /**
     * @param element the activity element, in the MPFL namespace
     * @param scope the names visible to the element's expressions
     * @param flow where the element sits (loops, parallel branches)
     * @return the typed activity, or null if the element had an error (already reported)
     */
    IrActivity validate(ActivityContext context, Element element, Scope scope, Flow flow);
}
