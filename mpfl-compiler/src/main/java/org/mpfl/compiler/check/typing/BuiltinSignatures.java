package org.mpfl.compiler.check.typing;

import java.util.ArrayList;
import java.util.List;
import org.mpfl.compiler.ast.Expr;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.Builtin;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

/** Argument and result types of the built-in functions (arity is checked before). */
final class BuiltinSignatures {
    private BuiltinSignatures() {
    }

    static IrExpr type(Builtin f, List<IrExpr> args, Expr.Call call, Diagnostics diagnostics) {
        Typing t = new Typing(f, args, call, diagnostics);
        return t.result();
    }

    private static final class Typing {
        private final Builtin f;
        private final List<IrExpr> args;
        private final Expr.Call call;
        private final Diagnostics diagnostics;

        Typing(Builtin f, List<IrExpr> args, Expr.Call call, Diagnostics diagnostics) {
            this.f = f;
            this.args = new ArrayList<>(args);
            this.call = call;
            this.diagnostics = diagnostics;
        }

        MpflType t(int i) {
            return args.get(i).type();
        }

        IrExpr fail(int i, String expected) {
            diagnostics.error(call.arguments().get(i).location(), "argument " + (i + 1) + " of " + f.functionName()
                    + "() must be " + expected + ", found " + t(i));
            return null;
        }

        IrExpr ok(MpflType result) {
            return new IrExpr.Call(f, args, result, call.location());
        }

        /** Converts argument i to target or reports it. */
        boolean want(int i, MpflType target) {
            IrExpr converted = ExpressionTyper.coerce(args.get(i), target);
            if (converted == null) {
                fail(i, target.toString());
                return false;
            }
            args.set(i, converted);
            return true;
        }

        IrExpr result() {
            switch (f) {
                case LEN -> {
                    return t(0).elementType() != null || t(0) == MpflType.STRING ? ok(MpflType.INT)
                            : fail(0, "an array, bytes or a string");
                }
                case MIN, MAX -> {
                    if (args.size() == 1) {
                        return t(0).isNumericArray() ? ok(t(0).elementType()) : fail(0, "a numeric array (or give two numbers)");
                    }
                    return numericPair();
                }
                case ABS -> {
                    return t(0).isNumeric() ? ok(t(0)) : fail(0, "a number");
                }
                case SQRT, EXP, LOG, FLOOR, CEIL -> {
                    return want(0, MpflType.DOUBLE) ? ok(MpflType.DOUBLE) : null;
                }
                case POW -> {
                    return want(0, MpflType.DOUBLE) && want(1, MpflType.DOUBLE) ? ok(MpflType.DOUBLE) : null;
                }
                case TO_INT, TO_LONG, TO_DOUBLE -> {
                    if (!t(0).isNumeric() && t(0) != MpflType.STRING) {
                        return fail(0, "a number or a string");
                    }
                    return ok(f == Builtin.TO_INT ? MpflType.INT : f == Builtin.TO_LONG ? MpflType.LONG : MpflType.DOUBLE);
                }
                case TO_STRING -> {
                    return ok(MpflType.STRING);
                }
                case ZEROS -> {
                    return want(0, MpflType.INT) ? ok(MpflType.DOUBLE_ARRAY) : null;
                }
                case IZEROS -> {
                    return want(0, MpflType.INT) ? ok(MpflType.INT_ARRAY) : null;
                }
                case FILL -> {
                    if (!want(0, MpflType.INT)) {
                        return null;
                    }
                    return t(1).isNumeric() ? ok(t(1).arrayType()) : fail(1, "a number");
                }
                case RANGE, DIMS -> {
                    return want(0, MpflType.INT) && want(1, MpflType.INT) ? ok(MpflType.INT_ARRAY) : null;
                }
                case CONCAT -> {
                    boolean joinable = t(0).elementType() != null || t(0) == MpflType.STRING;
                    if (!joinable) {
                        return fail(0, "an array, bytes or a string");
                    }
                    if (t(1) != t(0)) {
                        IrExpr converted = ExpressionTyper.coerce(args.get(1), t(0));
                        if (converted == null) {
                            return fail(1, t(0).toString() + " like the first argument");
                        }
                        args.set(1, converted);
                    }
                    return ok(t(0));
                }
                case SUM -> {
                    return t(0).isNumericArray() ? ok(t(0).elementType()) : fail(0, "a numeric array");
                }
                case FIRST, COUNT, RANK, SIZE -> {
                    return ok(MpflType.INT);
                }
                case COORDS -> {
                    return ok(MpflType.INT_ARRAY);
                }
                case NEIGHBOR -> {
                    return want(1, MpflType.INT) && want(2, MpflType.INT) ? ok(MpflType.INT) : null;
                }
                default -> throw new IllegalStateException(f.name());
            }
        }

        private IrExpr numericPair() {
            MpflType common = MpflType.promote(t(0), t(1));
            if (common == null) {
                return t(0).isNumeric() ? fail(1, "a number") : fail(0, "a number");
            }
            want(0, common);
            want(1, common);
            return ok(common);
        }
    }
}
