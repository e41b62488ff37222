package org.mpfl.compiler.check.typing;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.ast.Expr;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.Builtin;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.IrTarget;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.spelling.Suggestions;

/**
 * Reading typed values out of attributes: expressions of an expected type, assignment targets,
 * communicator names, name lists. Every method reports its own errors and returns null on error.
 */
public final class AttributeTyping {
    private final ProcessContext context;

    public AttributeTyping(ProcessContext context) {
        this.context = context;
    }

    Diagnostics diagnostics() {
        return context.diagnostics();
    }

    void error(SourceLocation at, String message) {
        context.diagnostics().error(at, message);
    }

    /** The expression in {@code attribute}, typed; null if absent or wrong. */
    public IrExpr expression(Element e, String attribute, Scope scope) {
        return typed(e, attribute, scope, false);
    }

    /**
     * The expression in {@code attribute}, typed; null if absent or wrong. Where a text is expected, a syntax
     * error in a value without quotes says that text needs them ({@code ExpressionParser.parseText}).
     */
    public IrExpr expression(Element e, String attribute, Scope scope, boolean textExpected) {
        return typed(e, attribute, scope, textExpected);
    }

    private IrExpr typed(Element e, String attribute, Scope scope, boolean textExpected) {
        Attribute a = e.attribute(attribute);
        if (a == null) {
            return null;
        }
        if (!textExpected) {
            return new ExpressionTyper(context.diagnostics(), scope, context.names(), null).type(context.expressions().parse(a));
        }
        return new ExpressionTyper(context.diagnostics(), scope, context.names(), null).typeText(context.expressions().parseText(a), a);
    }

    /** The expression converted to {@code type}; reports "attribute 'x' of <e> must be T, found U". */
    public IrExpr expression(Element e, String attribute, Scope scope, MpflType type) {
        IrExpr typed = typed(e, attribute, scope, type == MpflType.STRING);
        return expect(typed, type, "attribute '" + attribute + "' of <" + e.name() + ">");
    }

    public IrExpr expect(IrExpr typed, MpflType type, String what) {
        if (typed == null) {
            return null;
        }
        IrExpr converted = ExpressionTyper.coerce(typed, type);
        if (converted == null) {
            error(ExpressionTyper.startOf(typed), what + " must be " + type + ", found " + typed.type()
                    + (type.isIntegral() && typed.type().isNumeric() ? " (narrow explicitly with " + type + "(...))" : "")
                    // test="count" as C or Python would have it
                    + (what.startsWith("attribute 'test'") && typed.type().isNumeric()
                            ? " (a number is not a condition: compare it, e.g. != 0)" : ""));
        }
        return converted;
    }

    /** Any expression as a string: non-strings are wrapped in {@code string(...)}. */
    public IrExpr text(Element e, String attribute, Scope scope) {
        IrExpr typed = typed(e, attribute, scope, true);
        if (typed == null || typed.type() == MpflType.STRING) {
            return typed;
        }
        return new IrExpr.Call(Builtin.TO_STRING, List.of(typed), MpflType.STRING, typed.at());
    }

    /** Whether the attribute is the word {@code any} (receive source and tag). */
    public static boolean isAny(Element e, String attribute) {
        Attribute a = e.attribute(attribute);
        return a != null && a.value().trim().equals("any");
    }

    /**
     * An assignment target: a process variable {@code x} or an element {@code x[i]} of an array
     * variable. Params, loop variables and built-ins are read-only.
     */
    public IrTarget target(Element e, String attribute, Scope scope) {
        Attribute a = e.attribute(attribute);
        if (a == null) {
            return null;
        }
        Expr parsed = context.expressions().parse(a);
        if (parsed == null) {
            return null;
        }
        Expr.Name variable;
        Expr index = null;
        if (parsed instanceof Expr.Name n) {
            variable = n;
        } else if (parsed instanceof Expr.Index i && i.array() instanceof Expr.Name n) {
            variable = n;
            index = i.index();
        } else {
            error(parsed.location(), "attribute '" + attribute + "' of <" + e.name()
                    + "> must name a variable or an array element (x or x[i])");
            return null;
        }
        Scope.Symbol symbol = writable(variable, scope, e, attribute);
        if (symbol == null) {
            return null;
        }
        if (index == null) {
            return new IrTarget(symbol.name(), null, symbol.type(), variable.location());
        }
        MpflType element = symbol.type().elementType();
        if (element == null) {
            error(parsed.location(), "cannot index variable '" + symbol.name() + "' of type " + symbol.type());
            return null;
        }
        IrExpr typedIndex = new ExpressionTyper(context.diagnostics(), scope, context.names(), null).type(index);
        if (typedIndex == null) {
            return null;
        }
        if (typedIndex.type() != MpflType.INT) {
            error(index.location(), "an index must be int, found " + typedIndex.type());
            return null;
        }
        return new IrTarget(symbol.name(), typedIndex, element, variable.location());
    }

    /** A whole variable only (broadcast {@code var}, compute outputs). */
    public IrTarget variable(Element e, String attribute, Scope scope) {
        IrTarget target = target(e, attribute, scope);
        if (target != null && target.index() != null) {
            error(target.at(), "attribute '" + attribute + "' of <" + e.name() + "> must name a whole variable, not an element");
            return null;
        }
        return target;
    }

    private Scope.Symbol writable(Expr.Name variable, Scope scope, Element e, String attribute) {
        Scope.Symbol symbol = scope.lookup(variable.name());
        if (symbol == null) {
            error(variable.location(), "unknown variable '" + variable.name() + "'"
                    + Suggestions.didYouMean(variable.name(), scope.visibleNames()));
            return null;
        }
        switch (symbol.kind()) {
            case PARAM -> error(variable.location(), "cannot write param '" + symbol.name() + "' (params are read-only)");
            case VAR -> {
                return symbol.untyped() ? null : symbol;
            }
            case LOOP -> error(variable.location(), "cannot write loop variable '" + symbol.name() + "'");
            case BUILTIN -> error(variable.location(), "cannot write built-in '" + symbol.name() + "'");
        }
        return null;
    }

    /** The communicator of {@code comm} (default {@code world}); null if unknown. */
    public String communicator(Element e, String attribute) {
        Attribute a = e.attribute(attribute);
        if (a == null) {
            return "world";
        }
        String name = a.value().trim();
        if (!context.names().isCommunicator(name)) {
            error(a.location(), name.isEmpty() ? context.names().emptyCommunicator() : "unknown communicator '" + name + "'"
                    + Suggestions.didYouMean(name, allCommunicators()));
            return null;
        }
        return name;
    }

    private List<String> allCommunicators() {
        List<String> all = new ArrayList<>(context.names().processes());
        all.add("world");
        all.addAll(context.names().communicators().keySet());
        return all;
    }

    /** One name of a name list with its exact position. */
    public record PlacedName(String name, SourceLocation at) {
    }

    /** A comma-separated list of identifiers, each with its position; null if any is malformed (reported). */
    public List<PlacedName> nameList(Attribute a) {
        List<PlacedName> names = new ArrayList<>();
        if (a == null || a.value().isBlank()) {
            return names;
        }
        int offset = 0;
        for (String part : a.value().split(",", -1)) {
            String name = part.trim();
            int at = offset + (name.isEmpty() ? 0 : part.indexOf(name));
            if (!Names.IDENTIFIER.matcher(name).matches()) {
                error(a.positionInValue(at), "'" + name + "' in attribute '" + a.name()
                        + "' is not a name (expected a comma-separated list of names)");
                return null;
            }
            names.add(new PlacedName(name, a.positionInValue(at)));
            offset += part.length() + 1;
        }
        return names;
    }

    /** A parsed expression list (dims, periodic), typed; null on error. */
    public List<IrExpr> expressionList(Element e, String attribute, Scope scope) {
        Attribute a = e.attribute(attribute);
        if (a == null) {
            return null;
        }
        List<Expr> parsed = context.expressions().parseList(a);
        if (parsed == null) {
            return null;
        }
        List<IrExpr> typed = new ArrayList<>();
        ExpressionTyper typer = new ExpressionTyper(context.diagnostics(), scope, context.names(), null);
        boolean failed = false;
        for (Expr p : parsed) {
            IrExpr t = typer.type(p);
            failed |= t == null;
            typed.add(t);
        }
        return failed ? null : typed;
    }
}
