package org.mpfl.compiler;

import java.util.Map;
import java.util.Set;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.check.typing.ExpressionTyper;
import org.mpfl.compiler.check.typing.NameContext;
import org.mpfl.compiler.check.typing.Scope;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;
import org.mpfl.compiler.parse.ExpressionParser;

/** Parses and types one expression as if it stood in attribute {@code value} at t.mpfl.xml:1:1. */
public final class TestExpressions {
    private TestExpressions() {
    }

    /** The typed expression, or null with the diagnostics in {@code diagnostics}. */
    public static IrExpr typed(String text, Map<String, MpflType> variables, Diagnostics diagnostics) {
        Attribute attribute = new Attribute("value", text, new SourceLocation("t.mpfl.xml", 1, 1),
                offset -> new SourceLocation("t.mpfl.xml", 1, 8 + offset));
        Scope scope = Scope.empty().withBuiltins();
        variables.forEach((name, type) -> scope.declare(new Scope.Symbol(name, IrExpr.RefKind.VAR, type, null)));
        NameContext names = new NameContext(Set.of("P", "Q"), Map.of("g", new SourceLocation("t", 1, 1)), Set.of("g"));
        return new ExpressionTyper(diagnostics, scope, names, null).type(new ExpressionParser(diagnostics).parse(attribute));
    }

    /** The typed expression; fails the test with the diagnostics if it has errors. */
    public static IrExpr typed(String text, Map<String, MpflType> variables) {
        Diagnostics diagnostics = new Diagnostics();
        IrExpr expr = typed(text, variables, diagnostics);
        if (expr == null || diagnostics.hasErrors()) {
            throw new AssertionError("'" + text + "': " + diagnostics.sorted());
        }
        return expr;
    }
}
