package org.mpfl.compiler.check.activity;

import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;

/** {@code <wait request>}: the request must be started by an {@code <isend>}/{@code <irecv>} of the process. */
final class WaitValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        String request = context.request(e);
        return request != null && context.knownRequest(request, e.attribute("request").location())
                ? new IrActivity.Wait(request, e.location()) : null;
    }
}
