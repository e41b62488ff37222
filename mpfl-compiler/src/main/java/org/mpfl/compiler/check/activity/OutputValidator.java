package org.mpfl.compiler.check.activity;

import static org.mpfl.compiler.check.activity.ActivityContext.allPresent;

import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Names;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;

/** {@code <output name value>}: a named result of the run. */
final class OutputValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        Attribute nameAttribute = e.attribute("name");
        String name = nameAttribute == null ? null : nameAttribute.value().trim();
        if (name != null && !Names.OUTPUT_NAME.matcher(name).matches()) {
            context.error(nameAttribute.location(), "'" + name + "' is not an output name"
                    + " (ASCII letters, digits, '_', '.' and '-', starting with a letter or '_')");
            name = null;
        }
        IrExpr value = context.attrs().expression(e, "value", scope);
        return allPresent(name, value) ? new IrActivity.Output(name, value, e.location()) : null;
    }
}
