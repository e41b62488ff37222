package org.mpfl.ir.eval;

import java.util.Objects;
import org.mpfl.ir.IrExpr;
import org.mpfl.ir.MpflType;

/** Binary operators over run-time values; integer arithmetic is Java's (wrapping), division by zero faults. */
final class Arithmetic {
    private Arithmetic() {
    }

    static Object binary(IrExpr.Binary b, EvaluationEnvironment env) {
        switch (b.op()) {
            case AND:
                return ExpressionEvaluator.test(b.left(), env) && ExpressionEvaluator.test(b.right(), env);
            case OR:
                return ExpressionEvaluator.test(b.left(), env) || ExpressionEvaluator.test(b.right(), env);
            case CONCAT:
                return Values.toText(ExpressionEvaluator.evaluate(b.left(), env))
                        + Values.toText(ExpressionEvaluator.evaluate(b.right(), env));
            default:
                break;
        }
        Object left = ExpressionEvaluator.evaluate(b.left(), env);
        Object right = ExpressionEvaluator.evaluate(b.right(), env);
        MpflType operands = b.left().type();
        if (b.op().isComparison()) {
            return compare(b, operands, left, right);
        }
        return switch (operands) {
            case INT -> intOp(b, (Integer) left, (Integer) right);
            case LONG -> longOp(b, (Long) left, (Long) right);
            case DOUBLE -> doubleOp(b, (Double) left, (Double) right);
            default -> throw new IllegalStateException(b.op() + " on " + operands);
        };
    }

    private static Object compare(IrExpr.Binary b, MpflType operands, Object left, Object right) {
        int order;
        switch (operands) {
            case INT -> order = Integer.compare((Integer) left, (Integer) right);
            case LONG -> order = Long.compare((Long) left, (Long) right);
            case DOUBLE -> {
                double l = (Double) left;
                double r = (Double) right;
                // IEEE semantics (NaN compares false), unlike Double.compare
                return switch (b.op()) {
                    case EQ -> l == r;
                    case NE -> l != r;
                    case LT -> l < r;
                    case LE -> l <= r;
                    case GT -> l > r;
                    case GE -> l >= r;
                    default -> throw new IllegalStateException();
                };
            }
            case STRING -> order = ((String) left).compareTo((String) right);
            default -> {
                boolean equal = Objects.equals(left, right);
                return switch (b.op()) {
                    case EQ -> equal;
                    case NE -> !equal;
                    default -> throw new IllegalStateException(b.op() + " on " + operands);
                };
            }
        }
        return switch (b.op()) {
            case EQ -> order == 0;
            case NE -> order != 0;
            case LT -> order < 0;
            case LE -> order <= 0;
            case GT -> order > 0;
            case GE -> order >= 0;
            default -> throw new IllegalStateException();
        };
    }

    private static Object intOp(IrExpr.Binary b, int l, int r) {
        return switch (b.op()) {
            case ADD -> l + r;
            case SUB -> l - r;
            case MUL -> l * r;
            case DIV -> {
                checkDivisor(b, r);
                yield l / r;
            }
            case MOD -> {
                checkDivisor(b, r);
                yield l % r;
            }
            default -> throw new IllegalStateException(b.op().name());
        };
    }

    private static Object longOp(IrExpr.Binary b, long l, long r) {
        return switch (b.op()) {
            case ADD -> l + r;
            case SUB -> l - r;
            case MUL -> l * r;
            case DIV -> {
                checkDivisor(b, r);
                yield l / r;
            }
            case MOD -> {
                checkDivisor(b, r);
                yield l % r;
            }
            default -> throw new IllegalStateException(b.op().name());
        };
    }

    private static Object doubleOp(IrExpr.Binary b, double l, double r) {
        return switch (b.op()) {
            case ADD -> l + r;
            case SUB -> l - r;
            case MUL -> l * r;
            case DIV -> l / r;
            case MOD -> l % r;
            default -> throw new IllegalStateException(b.op().name());
        };
    }

    private static void checkDivisor(IrExpr.Binary b, long divisor) {
        if (divisor == 0) {
            throw new RuntimeFault(b.at(), "integer division by zero");
        }
    }
}
