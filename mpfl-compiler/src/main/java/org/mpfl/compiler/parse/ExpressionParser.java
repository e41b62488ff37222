package org.mpfl.compiler.parse;

import java.util.ArrayList;
import java.util.List;
import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.ParserRuleContext;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.tree.TerminalNode;
import org.mpfl.compiler.ast.Attribute;
import org.mpfl.compiler.ast.Expr;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.BinaryOp;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.UnaryOp;
import org.mpfl.grammar.MpflExpressionBaseVisitor;
import org.mpfl.grammar.MpflExpressionLexer;
import org.mpfl.grammar.MpflExpressionParser;

/**
 * Parses expression attributes with the ANTLR grammar of {@code mpfl-grammar} into {@link Expr}
 * trees whose nodes carry exact source positions (attribute position + offset inside the value).
 * Syntax errors become diagnostics at the offending token; only the first syntax error of an
 * attribute is reported, because ANTLR's recovery tends to cascade.
 */
public final class ExpressionParser {
    /** Expressions longer than this are refused: no MPFL attribute needs them and they slow the parser down. */
    public static final int MAX_EXPRESSION_LENGTH = 10_000;
    /** Deepest bracket nesting accepted. */
    public static final int MAX_NESTING = 64;
    /** Most tokens accepted in one expression. */
    public static final int MAX_TOKENS = 1000;
    /** Deepest expression tree accepted (e.g. a chain of 100 additions): keeps the IR's JSON well within parser limits. */
    public static final int MAX_DEPTH = 100;

    private final Diagnostics diagnostics;

    public ExpressionParser(Diagnostics diagnostics) {
        this.diagnostics = diagnostics;
    }

    /** Parses one expression filling the attribute's whole value; null after reporting a syntax error. */
    public Expr parse(Attribute attribute) {
        return parse(attribute, false);
    }

    private Expr parse(Attribute attribute, boolean quotesHint) {
        MpflExpressionParser parser = parser(attribute);
        if (parser == null) {
            return null;
        }
        ((FirstError) parser.getErrorListeners().get(0)).quotesHint = quotesHint;
        FirstError errors = (FirstError) parser.getErrorListeners().get(0);
        MpflExpressionParser.ExpressionEofContext tree = parser.expressionEof();
        if (errors.reported) {
            return null;
        }
        return safeBuild(attribute, tree.expression());
    }

    /**
     * Parses an expression where a text is expected (a message, a string param's default): as
     * {@link #parse}, but a syntax error in a value without any quote also says that text needs quotes,
     * since {@code message="Starting the run"} is far more often prose than a broken formula.
     */
    public Expr parseText(Attribute attribute) {
        return parse(attribute, attribute.value().indexOf('\'') < 0 && attribute.value().indexOf('"') < 0);
    }

    /** Parses a comma-separated list of expressions ({@code dims="4, 2"}); null after a syntax error. */
    public List<Expr> parseList(Attribute attribute) {
        MpflExpressionParser parser = parser(attribute);
        if (parser == null) {
            return null;
        }
        FirstError errors = (FirstError) parser.getErrorListeners().get(0);
        MpflExpressionParser.ExpressionListEofContext tree = parser.expressionListEof();
        if (errors.reported) {
            return null;
        }
        List<Expr> list = new ArrayList<>();
        for (MpflExpressionParser.ExpressionContext e : tree.expression()) {
            Expr built = safeBuild(attribute, e);
            if (built == null) {
                return null;
            }
            list.add(built);
        }
        return list;
    }

    private Expr safeBuild(Attribute attribute, MpflExpressionParser.ExpressionContext tree) {
        Expr built;
        try {
            built = new Builder(attribute).visit(tree);
        } catch (BadLiteral e) {
            return null;
        }
        if (depth(built) > MAX_DEPTH) {
            diagnostics.error(built.location(), "expression in attribute '" + attribute.name() + "' is nested deeper than "
                    + MAX_DEPTH + " levels; split it with a variable");
            return null;
        }
        return built;
    }

    /** Depth of an expression tree, computed without recursion (the tree may be deeper than the stack allows). */
    static int depth(Expr root) {
        java.util.ArrayDeque<Object[]> pending = new java.util.ArrayDeque<>();
        pending.push(new Object[] {root, 1});
        int deepest = 0;
        while (!pending.isEmpty()) {
            Object[] item = pending.pop();
            Expr e = (Expr) item[0];
            int d = (Integer) item[1];
            deepest = Math.max(deepest, d);
            List<Expr> children = new ArrayList<>();
            if (e instanceof Expr.Unary u) {
                children.add(u.operand());
            } else if (e instanceof Expr.Binary b) {
                children.add(b.left());
                children.add(b.right());
            } else if (e instanceof Expr.Conditional c) {
                children.add(c.test());
                children.add(c.ifTrue());
                children.add(c.ifFalse());
            } else if (e instanceof Expr.Index i) {
                children.add(i.array());
                children.add(i.index());
            } else if (e instanceof Expr.Slice sl) {
                children.add(sl.array());
                children.add(sl.from());
                children.add(sl.to());
            } else if (e instanceof Expr.Call c) {
                children.addAll(c.arguments());
            } else if (e instanceof Expr.ArrayLiteral a) {
                children.addAll(a.elements());
            }
            for (Expr child : children) {
                pending.push(new Object[] {child, d + 1});
            }
        }
        return deepest;
    }

    private MpflExpressionParser parser(Attribute attribute) {
        String text = attribute.value();
        if (text.isBlank()) {
            diagnostics.error(attribute.location(), "empty expression in attribute '" + attribute.name() + "'");
            return null;
        }
        if (text.length() > MAX_EXPRESSION_LENGTH) {
            diagnostics.error(attribute.location(), "expression in attribute '" + attribute.name() + "' is longer than "
                    + MAX_EXPRESSION_LENGTH + " characters");
            return null;
        }
        int depth = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            depth += c == '(' || c == '[' ? 1 : c == ')' || c == ']' ? -1 : 0;
            if (depth > MAX_NESTING) {
                // the parser recurses per level: refuse before it could exhaust the stack
                diagnostics.error(attribute.positionInValue(i), "expression nested deeper than " + MAX_NESTING + " levels");
                return null;
            }
        }
        MpflExpressionLexer lexer = new MpflExpressionLexer(CharStreams.fromString(text));
        lexer.removeErrorListeners();
        CommonTokenStream tokens = new CommonTokenStream(lexer);
        tokens.fill();
        if (tokens.size() > MAX_TOKENS) {
            // parsing and typing recurse over the expression: a bound on its size bounds the stack they need
            diagnostics.error(attribute.location(), "expression in attribute '" + attribute.name() + "' has more than "
                    + MAX_TOKENS + " tokens");
            return null;
        }
        MpflExpressionParser parser = new MpflExpressionParser(tokens);
        parser.removeErrorListeners();
        parser.addErrorListener(new FirstError(attribute));
        return parser;
    }

    /** Records the first syntax error of one attribute as a diagnostic at the offending token. */
    private final class FirstError extends BaseErrorListener {
        private final Attribute attribute;
        private boolean reported;
        private boolean quotesHint;

        FirstError(Attribute attribute) {
            this.attribute = attribute;
        }

        @Override
        public void syntaxError(Recognizer<?, ?> recognizer, Object offendingSymbol, int line, int charPositionInLine,
                String msg, RecognitionException e) {
            if (reported) {
                return;
            }
            reported = true;
            int offset = charPositionInLine;
            String what;
            if (offendingSymbol instanceof Token t) {
                offset = t.getType() == Token.EOF ? attribute.value().length() : t.getStartIndex();
                what = t.getType() == Token.EOF ? "unexpected end of expression" : "unexpected '" + t.getText() + "'";
            } else {
                what = msg;
            }
            String hint = quotesHint
                    ? " (text needs quotes inside an expression: " + attribute.name() + "=\"'" + shorten(attribute.value()) + "'\")"
                    : offendingSymbol instanceof Token t ? otherLanguagesOperator(attribute.value(), t.getText()) : "";
            diagnostics.error(attribute.positionInValue(offset),
                    "syntax error in expression '" + shorten(attribute.value()) + "': " + what + hint);
        }
    }

    /** The MPFL way of an operator other languages have and MPFL does not, as the syntax error it caused shows it. */
    static String otherLanguagesOperator(String value, String offending) {
        if (value.contains("**") || offending.equals("^")) {
            return " (a power is pow(x, y))";
        } else if (value.matches("(?s).*(\\+\\+|--|[-+*/%]=).*")) {
            return " (an expression assigns nothing: <assign to=\"x\" value=\"x + 1\"/>)";
        } else if (offending.equals(".") && value.matches("(?s).*[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_][A-Za-z0-9_]*\\s*\\(.*")) {
            return " (built-in functions are called without a module: sqrt(x), sum(a))";
        } else if (offending.equals(".") && value.matches("(?s).*\\.(length|size|shape)\\b.*")) {
            return " (the length of an array is len(a))";
        } else if (offending.equals("=")) {
            return " (equality is == or eq)";
        } else if (offending.equalsIgnoreCase("mod")) {
            return " (the remainder is %)";
        }
        return "";
    }

    static String shorten(String text) {
        String oneLine = text.strip().replaceAll("\\s+", " ");
        return oneLine.length() <= 60 ? oneLine : oneLine.substring(0, 57) + "...";
    }

    /** Signals a literal error already reported. */
    private static final class BadLiteral extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadLiteral() {
            super(null, null, false, false);
        }
    }

    /** Parse tree → {@link Expr}. */
    private final class Builder extends MpflExpressionBaseVisitor<Expr> {
        private final Attribute attribute;

        Builder(Attribute attribute) {
            this.attribute = attribute;
        }

        private SourceLocation at(Token token) {
            return attribute.positionInValue(token.getStartIndex());
        }

        private SourceLocation at(ParserRuleContext context) {
            return at(context.getStart());
        }

        @Override
        public Expr visitConditional(MpflExpressionParser.ConditionalContext ctx) {
            Expr test = visit(ctx.orExpr());
            if (ctx.expression().isEmpty()) {
                return test;
            }
            Token question = ((TerminalNode) ctx.getChild(1)).getSymbol();
            return new Expr.Conditional(test, visit(ctx.expression(0)), visit(ctx.expression(1)), at(question));
        }

        /** Left-associative chain: operand (op operand)*; the operator tokens sit between the operands. */
        private Expr chain(ParserRuleContext ctx) {
            Expr result = visit(ctx.getChild(0));
            for (int i = 1; i + 1 < ctx.getChildCount(); i += 2) {
                Token op = ((TerminalNode) ctx.getChild(i)).getSymbol();
                result = new Expr.Binary(binaryOp(op), result, visit(ctx.getChild(i + 1)), at(op));
            }
            return result;
        }

        @Override
        public Expr visitOrExpr(MpflExpressionParser.OrExprContext ctx) {
            return chain(ctx);
        }

        @Override
        public Expr visitAndExpr(MpflExpressionParser.AndExprContext ctx) {
            return chain(ctx);
        }

        @Override
        public Expr visitEqualityExpr(MpflExpressionParser.EqualityExprContext ctx) {
            return chain(ctx);
        }

        @Override
        public Expr visitRelationalExpr(MpflExpressionParser.RelationalExprContext ctx) {
            return chain(ctx);
        }

        @Override
        public Expr visitAdditiveExpr(MpflExpressionParser.AdditiveExprContext ctx) {
            return chain(ctx);
        }

        @Override
        public Expr visitMultiplicativeExpr(MpflExpressionParser.MultiplicativeExprContext ctx) {
            return chain(ctx);
        }

        @Override
        public Expr visitPrefixUnary(MpflExpressionParser.PrefixUnaryContext ctx) {
            Token op = ctx.op;
            if (op.getType() == MpflExpressionLexer.MINUS && isLiteral(ctx.unaryExpr(), MpflExpressionLexer.INT_LITERAL)) {
                // -2147483648 is a valid int although 2147483648 alone is not
                String digits = ctx.unaryExpr().getText();
                try {
                    return new Expr.Literal(MpflType.INT, Integer.parseInt("-" + digits), at(op));
                } catch (NumberFormatException e) {
                    // falls through to the ordinary path, which reports the range error
                }
            }
            UnaryOp unary = op.getType() == MpflExpressionLexer.MINUS ? UnaryOp.NEGATE : UnaryOp.NOT;
            return new Expr.Unary(unary, visit(ctx.unaryExpr()), at(op));
        }

        private boolean isLiteral(MpflExpressionParser.UnaryExprContext ctx, int tokenType) {
            if (ctx instanceof MpflExpressionParser.PlainUnaryContext plain
                    && plain.postfixExpr().postfix().isEmpty()
                    && plain.postfixExpr().primary() instanceof MpflExpressionParser.LiteralPrimaryContext lit) {
                return lit.literal().getStart().getType() == tokenType;
            }
            return false;
        }

        @Override
        public Expr visitPlainUnary(MpflExpressionParser.PlainUnaryContext ctx) {
            return visit(ctx.postfixExpr());
        }

        @Override
        public Expr visitPostfixExpr(MpflExpressionParser.PostfixExprContext ctx) {
            Expr result = visit(ctx.primary());
            for (MpflExpressionParser.PostfixContext p : ctx.postfix()) {
                if (p instanceof MpflExpressionParser.IndexSuffixContext index) {
                    result = new Expr.Index(result, visit(index.index), at(index));
                } else {
                    MpflExpressionParser.SliceSuffixContext slice = (MpflExpressionParser.SliceSuffixContext) p;
                    result = new Expr.Slice(result, visit(slice.from), visit(slice.to), at(slice));
                }
            }
            return result;
        }

        @Override
        public Expr visitLiteralPrimary(MpflExpressionParser.LiteralPrimaryContext ctx) {
            return visit(ctx.literal());
        }

        @Override
        public Expr visitCallPrimary(MpflExpressionParser.CallPrimaryContext ctx) {
            List<Expr> args = new ArrayList<>();
            for (MpflExpressionParser.ExpressionContext e : ctx.expression()) {
                args.add(visit(e));
            }
            return new Expr.Call(ctx.IDENTIFIER().getText(), args, at(ctx));
        }

        @Override
        public Expr visitNamePrimary(MpflExpressionParser.NamePrimaryContext ctx) {
            return new Expr.Name(ctx.IDENTIFIER().getText(), at(ctx));
        }

        @Override
        public Expr visitArrayPrimary(MpflExpressionParser.ArrayPrimaryContext ctx) {
            List<Expr> elements = new ArrayList<>();
            for (MpflExpressionParser.ExpressionContext e : ctx.expression()) {
                elements.add(visit(e));
            }
            return new Expr.ArrayLiteral(elements, at(ctx));
        }

        @Override
        public Expr visitParenPrimary(MpflExpressionParser.ParenPrimaryContext ctx) {
            return visit(ctx.expression());
        }

        @Override
        public Expr visitIntLiteral(MpflExpressionParser.IntLiteralContext ctx) {
            try {
                return new Expr.Literal(MpflType.INT, Integer.parseInt(ctx.getText()), at(ctx));
            } catch (NumberFormatException e) {
                return badLiteral(ctx, "integer literal " + ctx.getText() + " is out of int range (write "
                        + ctx.getText() + "L for a long)");
            }
        }

        @Override
        public Expr visitLongLiteral(MpflExpressionParser.LongLiteralContext ctx) {
            String text = ctx.getText();
            try {
                return new Expr.Literal(MpflType.LONG, Long.parseLong(text.substring(0, text.length() - 1)), at(ctx));
            } catch (NumberFormatException e) {
                return badLiteral(ctx, "long literal " + text + " is out of long range");
            }
        }

        @Override
        public Expr visitDoubleLiteral(MpflExpressionParser.DoubleLiteralContext ctx) {
            double value = Double.parseDouble(ctx.getText());
            if (Double.isInfinite(value)) {
                return badLiteral(ctx, "double literal " + ctx.getText() + " is out of double range");
            }
            return new Expr.Literal(MpflType.DOUBLE, value, at(ctx));
        }

        @Override
        public Expr visitBooleanLiteral(MpflExpressionParser.BooleanLiteralContext ctx) {
            return new Expr.Literal(MpflType.BOOLEAN, Boolean.parseBoolean(ctx.getText()), at(ctx));
        }

        @Override
        public Expr visitStringLiteral(MpflExpressionParser.StringLiteralContext ctx) {
            String raw = ctx.getText();
            StringBuilder value = new StringBuilder(raw.length());
            for (int i = 1; i < raw.length() - 1; i++) {
                char c = raw.charAt(i);
                if (c != '\\') {
                    value.append(c);
                    continue;
                }
                char next = raw.charAt(++i);
                switch (next) {
                    case '\'', '\\' -> value.append(next);
                    case 'n' -> value.append('\n');
                    case 't' -> value.append('\t');
                    default -> {
                        diagnostics.error(attribute.positionInValue(ctx.getStart().getStartIndex() + i - 1),
                                "unknown escape '\\" + next + "' in string literal (use \\' \\\\ \\n \\t)");
                        throw new BadLiteral();
                    }
                }
            }
            return new Expr.Literal(MpflType.STRING, value.toString(), at(ctx));
        }

        private Expr badLiteral(ParserRuleContext ctx, String message) {
            diagnostics.error(at(ctx), message);
            throw new BadLiteral();
        }

        private BinaryOp binaryOp(Token op) {
            return switch (op.getType()) {
                case MpflExpressionLexer.OROR, MpflExpressionLexer.OR -> BinaryOp.OR;
                case MpflExpressionLexer.ANDAND, MpflExpressionLexer.AND -> BinaryOp.AND;
                case MpflExpressionLexer.EQEQ, MpflExpressionLexer.EQ -> BinaryOp.EQ;
                case MpflExpressionLexer.NOTEQ, MpflExpressionLexer.NE -> BinaryOp.NE;
                case MpflExpressionLexer.LT_, MpflExpressionLexer.LT -> BinaryOp.LT;
                case MpflExpressionLexer.LE_, MpflExpressionLexer.LE -> BinaryOp.LE;
                case MpflExpressionLexer.GT_, MpflExpressionLexer.GT -> BinaryOp.GT;
                case MpflExpressionLexer.GE_, MpflExpressionLexer.GE -> BinaryOp.GE;
                case MpflExpressionLexer.PLUS -> BinaryOp.ADD;
                case MpflExpressionLexer.MINUS -> BinaryOp.SUB;
                case MpflExpressionLexer.STAR -> BinaryOp.MUL;
                case MpflExpressionLexer.SLASH -> BinaryOp.DIV;
                case MpflExpressionLexer.PERCENT -> BinaryOp.MOD;
                default -> throw new IllegalStateException("operator " + op.getText());
            };
        }
    }
}
