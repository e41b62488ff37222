package org.mpfl.compiler.check.typing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Expr;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.BinaryOp;
import org.mpfl.ir.Builtin;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.spelling.Suggestions;

/**
 * Resolves names and types one expression, producing typed IR with explicit promotions. Returns null
 * after reporting an error, and stays silent about expressions that contain an already reported
 * error, so that one mistake gives one diagnostic.
 */
public final class ExpressionTyper {
    private final Diagnostics diagnostics;
    private final Scope scope;
    private final NameContext names;
    /** When non-null, rank-dependent names and functions are refused, with this as the reason ("a param default"). */
    private final String paramsOnlyContext;

    public ExpressionTyper(Diagnostics diagnostics, Scope scope, NameContext names, String paramsOnlyContext) {
        this.diagnostics = diagnostics;
        this.scope = scope;
        this.names = names;
        this.paramsOnlyContext = paramsOnlyContext;
    }

    /** While {@link #typeText} types a value that is one word: what its "unknown name" adds when no name is near. */
    private String wordHint;

    /**
     * Types an expression written where text is expected (a message, a string's default or init): a value that
     * is one word naming nothing ({@code message="Starting"}) is far more often prose than a misspelt name, so
     * its "unknown name" says that text needs quotes, as a syntax error in several words does
     * ({@code ExpressionParser.parseText}), unless a visible name is near enough to be the one meant.
     */
    public IrExpr typeText(Expr expr, Attribute attribute) {
        wordHint = expr instanceof Expr.Name ? " (text needs quotes inside an expression: " + attribute.name() + "=\"'"
                + attribute.value().trim() + "'\")" : null;
        try {
            return type(expr);
        } finally {
            wordHint = null;
        }
    }

    /** Types {@code expr}; null if it has an error (already reported). */
    public IrExpr type(Expr expr) {
        if (expr == null) {
            return null;
        }
        if (expr instanceof Expr.Literal l) {
            return new IrExpr.Const(l.type(), l.value(), l.location());
        } else if (expr instanceof Expr.Name n) {
            return name(n);
        } else if (expr instanceof Expr.Unary u) {
            return unary(u);
        } else if (expr instanceof Expr.Binary b) {
            return binary(b);
        } else if (expr instanceof Expr.Conditional c) {
            return conditional(c);
        } else if (expr instanceof Expr.Index i) {
            return index(i);
        } else if (expr instanceof Expr.Slice s) {
            return slice(s);
        } else if (expr instanceof Expr.Call c) {
            return call(c);
        } else if (expr instanceof Expr.ArrayLiteral a) {
            return arrayLiteral(a);
        }
        throw new IllegalStateException("unknown expression " + expr);
    }

    /**
     * {@code expr} converted to {@code target} (same type, numeric widening, an empty array literal
     * for any array type), or null: the caller reports the mismatch in its own words.
     */
    public static IrExpr coerce(IrExpr expr, MpflType target) {
        if (expr == null || expr.type() == target) {
            return expr;
        }
        if (expr instanceof IrExpr.ArrayOf a && a.elements().isEmpty() && target.isNumericArray()) {
            return new IrExpr.ArrayOf(List.of(), target, a.at());
        }
        if (target.accepts(expr.type())) {
            return new IrExpr.Convert(expr, target, expr.at());
        }
        return null;
    }

    /**
     * How to write a value that {@link #coerce} refused for {@code target}, for the "cannot assign/initialise" errors:
     * narrowing is explicit, and arrays are never widened, which an array literal of whole numbers meets first
     * ({@code init="[1, 2, 3]"} for a {@code double[]}); a string is parsed, and anything becomes a string, with the
     * conversion functions ({@code int(x)}, {@code string(x)}); a number is no boolean. Empty when there is nothing to add
     * (a boolean as a number: MPFL has no conversion for it).
     */
    public static String conversionHint(IrExpr value, MpflType target) {
        if (target.isIntegral() && value.type().isNumeric()) {
            return " (narrow explicitly with " + target + "(...))";
        }
        if (target.isNumeric() && value.type() == MpflType.STRING) {
            return " (parse it with " + target + "(...))";
        }
        if (target == MpflType.STRING) {
            return " (convert it with string(...))";
        }
        if (target == MpflType.BOOLEAN && value.type().isNumeric()) {
            return " (a number is not a boolean: compare it, e.g. != 0)";
        }
        if (target.isNumericArray() && value.type().isNumericArray()) {
            boolean literal = value instanceof IrExpr.ArrayOf;
            if (literal && target == MpflType.DOUBLE_ARRAY) {
                return " (arrays are never converted implicitly: write one element as a double, e.g. 1.0, to make the literal"
                        + " double[])";
            }
            if (literal && target == MpflType.LONG_ARRAY && value.type() == MpflType.INT_ARRAY) {
                return " (arrays are never converted implicitly: write one element as a long, e.g. 1L, to make the literal long[])";
            }
            return " (arrays are never converted implicitly: convert element by element)";
        }
        return "";
    }

    /**
     * Where an expression starts in the source (its leftmost token): the place to report a problem
     * with the expression as a whole, whereas {@link IrExpr#at()} of an operator node is its operator.
     */
    public static SourceLocation startOf(IrExpr expr) {
        IrExpr e = expr;
        while (true) {
            if (e instanceof IrExpr.Binary b) {
                e = b.left();
            } else if (e instanceof IrExpr.Conditional c) {
                e = c.test();
            } else if (e instanceof IrExpr.Index i) {
                e = i.array();
            } else if (e instanceof IrExpr.Slice s) {
                e = s.array();
            } else if (e instanceof IrExpr.Convert c) {
                e = c.operand();
            } else {
                return e.at();
            }
        }
    }

    private void error(SourceLocation at, String message) {
        diagnostics.error(at, message);
    }

    private IrExpr name(Expr.Name n) {
        Scope.Symbol symbol = scope.lookup(n.name());
        if (symbol == null) {
            if (paramsOnlyContext != null && Scope.BUILTIN_IDENTIFIERS.containsKey(n.name())) {
                error(n.location(), "'" + n.name() + "' cannot be used in " + paramsOnlyContext);
            } else if (paramsOnlyContext != null) {
                error(n.location(), "unknown name '" + n.name() + "' in " + paramsOnlyContext + nearOrQuoted(n));
            } else if (scope.notYetDeclared(n.name()) != null) {
                error(n.location(), "unknown name '" + n.name() + "': " + scope.notYetDeclared(n.name()));
            } else if (n.name().equalsIgnoreCase("true") || n.name().equalsIgnoreCase("false")) {
                // True, FALSE: the literals of Python and Fortran
                error(n.location(), "unknown name '" + n.name() + "' (did you mean '" + n.name().toLowerCase(java.util.Locale.ROOT) + "'?)");
            } else {
                error(n.location(), "unknown name '" + n.name() + "'" + nearOrQuoted(n));
            }
            return null;
        }
        if (symbol.untyped()) {
            return null;
        }
        return new IrExpr.Ref(symbol.name(), symbol.kind(), symbol.type(), n.location());
    }

    /** The visible name nearest to an unknown one, else (for a lone word where text is expected) the quotes. */
    private String nearOrQuoted(Expr.Name n) {
        String near = Suggestions.didYouMean(n.name(), scope.visibleNames());
        return near.isEmpty() && wordHint != null ? wordHint : near;
    }

    private IrExpr unary(Expr.Unary u) {
        IrExpr operand = type(u.operand());
        if (operand == null) {
            return null;
        }
        switch (u.op()) {
            case NEGATE -> {
                if (!operand.type().isNumeric()) {
                    error(u.location(), "operator '-' needs a number, found " + operand.type());
                    return null;
                }
                return new IrExpr.Unary(u.op(), operand, operand.type(), u.location());
            }
            default -> {
                if (operand.type() != MpflType.BOOLEAN) {
                    error(u.location(), "operator 'not' needs a boolean, found " + operand.type());
                    return null;
                }
                return new IrExpr.Unary(u.op(), operand, MpflType.BOOLEAN, u.location());
            }
        }
    }

    /**
     * Warns about {@code 1/3}: two integer literals that do not divide evenly, which integer division
     * truncates (to 0 here) even where a double is expected - a slip of a scientist used to Python 3.
     * Divisions of names ({@code n / size}) are meant as they are and are not judged.
     */
    private void unevenIntegerLiterals(Expr.Binary b) {
        if (b.left() instanceof Expr.Literal l && b.right() instanceof Expr.Literal r
                && (l.value() instanceof Integer || l.value() instanceof Long)
                && (r.value() instanceof Integer || r.value() instanceof Long)) {
            long dividend = ((Number) l.value()).longValue();
            long divisor = ((Number) r.value()).longValue();
            if (divisor != 0 && dividend % divisor != 0) {
                String written = dividend + (l.value() instanceof Long ? "L" : "") + " / " + divisor + (r.value() instanceof Long ? "L" : "");
                diagnostics.warning(b.location(), written + " divides integers: it is " + dividend / divisor
                        + ", the remainder dropped (write " + (double) dividend + " / " + divisor + " for a fraction)");
            }
        }
    }

    private IrExpr binary(Expr.Binary b) {
        IrExpr left = type(b.left());
        IrExpr right = type(b.right());
        if (left == null || right == null) {
            return null;
        }
        MpflType l = left.type();
        MpflType r = right.type();
        String op = "'" + b.op().symbol() + "'";
        switch (b.op()) {
            case AND, OR -> {
                if (l != MpflType.BOOLEAN || r != MpflType.BOOLEAN) {
                    error(b.location(), "operator " + op + " needs booleans, found " + l + " and " + r);
                    return null;
                }
                return new IrExpr.Binary(b.op(), left, right, MpflType.BOOLEAN, b.location());
            }
            case ADD -> {
                if (l == MpflType.STRING || r == MpflType.STRING) {
                    return new IrExpr.Binary(BinaryOp.CONCAT, left, right, MpflType.STRING, b.location());
                }
                return arithmetic(b, left, right);
            }
            case SUB, MUL, MOD -> {
                return arithmetic(b, left, right);
            }
            case DIV -> {
                unevenIntegerLiterals(b);
                return arithmetic(b, left, right);
            }
            case LT, LE, GT, GE -> {
                if (l == MpflType.STRING && r == MpflType.STRING) {
                    return new IrExpr.Binary(b.op(), left, right, MpflType.BOOLEAN, b.location());
                }
                MpflType common = MpflType.promote(l, r);
                if (common == null) {
                    error(b.location(), "operator " + op + " needs two numbers or two strings, found " + l + " and " + r);
                    return null;
                }
                return new IrExpr.Binary(b.op(), coerce(left, common), coerce(right, common), MpflType.BOOLEAN, b.location());
            }
            case EQ, NE -> {
                MpflType common = MpflType.promote(l, r);
                if (common != null) {
                    return new IrExpr.Binary(b.op(), coerce(left, common), coerce(right, common), MpflType.BOOLEAN, b.location());
                }
                if (l == r && (l == MpflType.BOOLEAN || l == MpflType.STRING)) {
                    return new IrExpr.Binary(b.op(), left, right, MpflType.BOOLEAN, b.location());
                }
                error(b.location(), "operator " + op + " cannot compare " + l + " with " + r
                        + (l == r ? " (only numbers, booleans and strings are comparable)" : ""));
                return null;
            }
            default -> throw new IllegalStateException(b.op().name());
        }
    }

    private IrExpr arithmetic(Expr.Binary b, IrExpr left, IrExpr right) {
        MpflType common = MpflType.promote(left.type(), right.type());
        if (common == null) {
            error(b.location(), "operator '" + b.op().symbol() + "' needs numbers, found " + left.type() + " and " + right.type());
            return null;
        }
        return new IrExpr.Binary(b.op(), coerce(left, common), coerce(right, common), common, b.location());
    }

    private IrExpr conditional(Expr.Conditional c) {
        IrExpr test = type(c.test());
        IrExpr ifTrue = type(c.ifTrue());
        IrExpr ifFalse = type(c.ifFalse());
        if (test == null || ifTrue == null || ifFalse == null) {
            return null;
        }
        if (test.type() != MpflType.BOOLEAN) {
            error(c.test().location(), "the condition of '?:' must be boolean, found " + test.type());
            return null;
        }
        MpflType common = ifTrue.type() == ifFalse.type() ? ifTrue.type() : MpflType.promote(ifTrue.type(), ifFalse.type());
        if (common == null && isEmptyArray(ifTrue) && ifFalse.type().isNumericArray()) {
            common = ifFalse.type();
        } else if (common == null && isEmptyArray(ifFalse) && ifTrue.type().isNumericArray()) {
            common = ifTrue.type();
        }
        if (common == null) {
            error(c.location(), "the branches of '?:' have different types: " + ifTrue.type() + " and " + ifFalse.type());
            return null;
        }
        return new IrExpr.Conditional(test, coerce(ifTrue, common), coerce(ifFalse, common), common, c.location());
    }

    private static boolean isEmptyArray(IrExpr e) {
        return e instanceof IrExpr.ArrayOf a && a.elements().isEmpty();
    }

    private IrExpr index(Expr.Index i) {
        IrExpr array = type(i.array());
        IrExpr index = type(i.index());
        if (array == null || index == null) {
            return null;
        }
        MpflType element = array.type().elementType();
        if (element == null) {
            error(i.location(), "cannot index a value of type " + array.type() + " (only int[], long[], double[] and bytes)");
            return null;
        }
        if (index.type() != MpflType.INT) {
            error(i.index().location(), "an index must be int, found " + index.type());
            return null;
        }
        return new IrExpr.Index(array, index, element, i.location());
    }

    private IrExpr slice(Expr.Slice s) {
        IrExpr array = type(s.array());
        IrExpr from = type(s.from());
        IrExpr to = type(s.to());
        if (array == null || from == null || to == null) {
            return null;
        }
        if (array.type().elementType() == null && array.type() != MpflType.STRING) {
            error(s.location(), "cannot slice a value of type " + array.type() + " (only arrays, bytes and string)");
            return null;
        }
        if (from.type() != MpflType.INT || to.type() != MpflType.INT) {
            error(s.location(), "slice bounds must be int, found " + from.type() + " and " + to.type());
            return null;
        }
        return new IrExpr.Slice(array, from, to, array.type(), s.location());
    }

    private IrExpr arrayLiteral(Expr.ArrayLiteral a) {
        List<IrExpr> elements = new ArrayList<>();
        MpflType common = MpflType.INT;
        boolean failed = false;
        for (Expr e : a.elements()) {
            IrExpr typed = type(e);
            if (typed == null) {
                failed = true;
                continue;
            }
            if (!typed.type().isNumeric()) {
                error(e.location(), "array literal elements must be numbers, found " + typed.type());
                failed = true;
                continue;
            }
            common = MpflType.promote(common, typed.type());
            elements.add(typed);
        }
        if (failed) {
            return null;
        }
        List<IrExpr> converted = new ArrayList<>();
        for (IrExpr e : elements) {
            converted.add(coerce(e, common));
        }
        return new IrExpr.ArrayOf(converted, common.arrayType(), a.location());
    }

    /**
     * Functions as Python, Java or NumPy name them, with the MPFL way: the nearest spelling would mislead
     * (float is not floor, str is not sqrt, round is not count).
     */
    private static final Map<String, String> OTHER_LANGUAGES_FUNCTIONS = Map.of(
            "float", " (did you mean 'double'?)",
            "str", " (did you mean 'string'?)",
            "length", " (did you mean 'len'?)",
            "mean", " (write sum(a) / len(a))",
            "round", " (write floor(x + 0.5))");

    private IrExpr call(Expr.Call c) {
        Builtin function = Builtin.byName(c.function());
        if (function == null) {
            List<String> known = java.util.Arrays.stream(Builtin.values()).map(Builtin::functionName).toList();
            String other = OTHER_LANGUAGES_FUNCTIONS.get(c.function());
            error(c.location(), "unknown function '" + c.function() + "'"
                    + (other != null ? other : Suggestions.didYouMean(c.function(), known)));
            return null;
        }
        int n = c.arguments().size();
        if (n < function.minArity() || n > function.maxArity()) {
            String expected = function.minArity() == function.maxArity() ? String.valueOf(function.minArity())
                    : function.minArity() + " or " + function.maxArity();
            error(c.location(), c.function() + "() takes " + expected + " argument" + (function.maxArity() == 1 ? "" : "s")
                    + ", found " + n);
            return null;
        }
        if (function.needsRuntime() && paramsOnlyContext != null) {
            error(c.location(), c.function() + "() cannot be used in " + paramsOnlyContext);
            return null;
        }
        List<IrExpr> args = new ArrayList<>();
        if (function.takesName()) {
            IrExpr name = nameArgument(function, c.arguments().get(0));
            if (name == null) {
                return null;
            }
            args.add(name);
            for (int i = 1; i < n; i++) {
                IrExpr typed = type(c.arguments().get(i));
                if (typed == null) {
                    return null;
                }
                args.add(typed);
            }
        } else {
            for (Expr e : c.arguments()) {
                IrExpr typed = type(e);
                if (typed == null) {
                    return null;
                }
                args.add(typed);
            }
        }
        return BuiltinSignatures.type(function, args, c, diagnostics);
    }

    /** Whether {@code argument} names a variable that {@code len} measures (size(a) as NumPy writes it). */
    private boolean isSequence(Expr argument) {
        Scope.Symbol symbol = argument instanceof Expr.Name n ? scope.lookup(n.name()) : null;
        return symbol != null && symbol.type() != null
                && (symbol.type().elementType() != null || symbol.type() == MpflType.STRING || symbol.type() == MpflType.BYTES);
    }

    /** The process or communicator named by the first argument: a string literal, or a bare communicator name. */
    private IrExpr nameArgument(Builtin function, Expr argument) {
        String name;
        if (argument instanceof Expr.Literal l && l.value() instanceof String s) {
            name = s;
        } else if (argument instanceof Expr.Name n && scope.lookup(n.name()) == null) {
            name = n.name();
        } else {
            error(argument.location(), function.functionName() + "() needs a "
                    + (function == Builtin.FIRST || function == Builtin.COUNT ? "process" : "communicator")
                    + " name in quotes, e.g. " + function.functionName() + "('"
                    + (function == Builtin.FIRST || function == Builtin.COUNT ? "P" : "world") + "')"
                    + (function == Builtin.SIZE && isSequence(argument) ? " (the length of an array is len(a))" : ""));
            return null;
        }
        switch (function) {
            case FIRST, COUNT -> {
                if (!names.processes().contains(name)) {
                    error(argument.location(), "unknown process '" + name + "'" + Suggestions.didYouMean(name, names.processes()));
                    return null;
                }
            }
            case COORDS, NEIGHBOR -> {
                if (!names.cartesians().contains(name)) {
                    error(argument.location(), names.isCommunicator(name)
                            ? "communicator '" + name + "' has no Cartesian topology (declare it with <cartesian>)"
                            : "unknown Cartesian communicator '" + name + "'");
                    return null;
                }
            }
            default -> {
                if (!names.isCommunicator(name)) {
                    error(argument.location(), name.isEmpty() ? names.emptyCommunicator() : "unknown communicator '" + name + "'"
                            + Suggestions.didYouMean(name, names.communicators().keySet()));
                    return null;
                }
            }
        }
        return new IrExpr.Const(MpflType.STRING, name, argument.location());
    }
}
