package org.mpfl.compiler.check.activity;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.AttributeTyping;
import org.mpfl.compiler.check.typing.Names;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrActivity;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.compiler.parse.Suggestions;

/**
 * {@code <compute class in out>}: a Java class name, inputs that are any visible names, and outputs
 * that are distinct process variables (the user code writes them, so read-only names are refused).
 */
final class ComputeValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        Attribute classAttribute = e.attribute("class");
        String className = classAttribute == null ? null : classAttribute.value().trim();
        if (className != null && !Names.CLASS_NAME.matcher(className).matches()) {
            context.error(classAttribute.location(), "'" + className + "' is not a Java class name");
            className = null;
        }
        boolean ok = className != null;
        List<IrExpr.Ref> inputs = new ArrayList<>();
        Attribute in = e.attribute("in");
        List<AttributeTyping.PlacedName> inNames = context.attrs().nameList(in);
        ok &= inNames != null;
        for (AttributeTyping.PlacedName placed : inNames == null ? List.<AttributeTyping.PlacedName>of() : inNames) {
            String name = placed.name();
            Scope.Symbol symbol = scope.lookup(name);
            if (symbol == null) {
                context.error(placed.at(), "unknown name '" + name + "' in 'in' of <compute>"
                        + Suggestions.didYouMean(name, scope.visibleNames()));
                ok = false;
            } else {
                inputs.add(new IrExpr.Ref(name, symbol.kind(), symbol.type(), placed.at()));
            }
        }
        List<IrTarget> outputs = new ArrayList<>();
        Attribute out = e.attribute("out");
        List<AttributeTyping.PlacedName> outNames = context.attrs().nameList(out);
        ok &= outNames != null;
        Set<String> seen = new HashSet<>();
        for (AttributeTyping.PlacedName placed : outNames == null ? List.<AttributeTyping.PlacedName>of() : outNames) {
            String name = placed.name();
            SourceLocation at = placed.at();
            if (!seen.add(name)) {
                context.error(at, "'" + name + "' appears twice in 'out' of <compute>");
                ok = false;
                continue;
            }
            Scope.Symbol symbol = scope.lookup(name);
            if (symbol == null || symbol.kind() != IrExpr.RefKind.VAR) {
                context.error(at, symbol == null ? "unknown variable '" + name + "' in 'out' of <compute>"
                        + Suggestions.didYouMean(name, scope.visibleNames())
                        : "'" + name + "' in 'out' of <compute> is not a variable (params, loop variables and built-ins are read-only)");
                ok = false;
            } else {
                outputs.add(new IrTarget(name, null, symbol.type(), at));
            }
        }
        return ok ? new IrActivity.Compute(className, inputs, outputs, e.location()) : null;
    }
}
