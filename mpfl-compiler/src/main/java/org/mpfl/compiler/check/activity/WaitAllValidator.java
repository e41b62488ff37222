package org.mpfl.compiler.check.activity;

import java.util.List;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.typing.AttributeTyping;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.IrActivity;

/** {@code <waitall requests>}: a non-empty list of requests the process starts; every unknown one is reported. */
final class WaitAllValidator implements ActivityValidator {
    @Override
    public IrActivity validate(ActivityContext context, Element e, Scope scope, Flow flow) {
        Attribute a = e.attribute("requests");
        if (a == null) {
            return null; // structure validation reported the missing attribute
        }
        List<AttributeTyping.PlacedName> names = context.attrs().nameList(a);
        if (names == null) {
            return null;
        }
        if (names.isEmpty()) {
            context.error(a.location(), "<waitall> needs at least one request");
            return null;
        }
        boolean ok = true;
        for (AttributeTyping.PlacedName placed : names) {
            ok &= context.knownRequest(placed.name(), placed.at());
        }
        return ok ? new IrActivity.WaitAll(names.stream().map(AttributeTyping.PlacedName::name).toList(), e.location()) : null;
    }
}
