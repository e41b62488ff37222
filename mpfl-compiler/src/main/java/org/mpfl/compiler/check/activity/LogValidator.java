package org.mpfl.compiler.check.activity;

import static org.mpfl.compiler.check.activity.ActivityContext.allPresent;

import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;

/** {@code <log level message>}: level info (the default), warn or error; any message value, shown as text. */
final class LogValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        IrActivity.LogLevel level = IrActivity.LogLevel.INFO;
        Attribute a = e.attribute("level");
        if (a != null) {
            level = IrActivity.LogLevel.of(a.value().trim());
            if (level == null) {
                context.error(a.location(), "log level must be info, warn or error, found '" + a.value() + "'");
            }
        }
        IrExpr message = context.attrs().text(e, "message", scope);
        return allPresent(level, message) ? new IrActivity.Log(level, message, e.location()) : null;
    }
}
