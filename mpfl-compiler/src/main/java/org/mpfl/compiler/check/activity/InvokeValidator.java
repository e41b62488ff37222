package org.mpfl.compiler.check.activity;

import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Names;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.MpflType;

/** {@code <invoke endpoint operation input output>}: a web-service call whose messages are strings. */
final class InvokeValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        IrExpr endpoint = context.attrs().expression(e, "endpoint", scope, MpflType.STRING);
        Attribute operationAttribute = e.attribute("operation");
        String operation = operationAttribute == null ? null : operationAttribute.value().trim();
        if (operation != null && !Names.IDENTIFIER.matcher(operation).matches()) {
            context.error(operationAttribute.location(), "'" + operation + "' is not an operation name"
                    + " (" + Names.IDENTIFIER_RULE + ")");
            operation = null;
        }
        IrExpr input = e.attribute("input") == null ? null : context.attrs().expression(e, "input", scope, MpflType.STRING);
        IrTarget output = e.attribute("output") == null ? null : context.attrs().target(e, "output", scope);
        boolean ok = endpoint != null && operation != null
                && (e.attribute("input") == null || input != null) && (e.attribute("output") == null || output != null);
        if (output != null && output.type() != MpflType.STRING) {
            context.error(output.at(), "'output' of <invoke> must be a string variable, found " + output.type());
            ok = false;
        }
        return ok ? new IrActivity.Invoke(endpoint, operation, input, output, e.location()) : null;
    }
}
