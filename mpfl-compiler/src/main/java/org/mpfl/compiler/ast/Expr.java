package org.mpfl.compiler.ast;

import java.util.List;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.BinaryOp;
import org.mpfl.ir.MpflType;
import org.mpfl.ir.UnaryOp;

/**
 * An untyped expression as written in an attribute value, with the location of each node (the
 * location of an operator node is the location of its operator token). The checker turns it into a
 * typed {@link org.mpfl.ir.IrExpr}.
 */
public sealed interface Expr {
    SourceLocation location();

    /** {@code 42}, {@code 42L}, {@code 1e-6}, {@code 'text'}, {@code true}; value is Integer, Long, Double, String or Boolean. */
    record Literal(MpflType type, Object value, SourceLocation location) implements Expr {
    }

    /** A name: param, variable, loop variable, or built-in identifier. */
    record Name(String name, SourceLocation location) implements Expr {
    }

    record Unary(UnaryOp op, Expr operand, SourceLocation location) implements Expr {
    }

    record Binary(BinaryOp op, Expr left, Expr right, SourceLocation location) implements Expr {
    }

    /** {@code test ? ifTrue : ifFalse}. */
    record Conditional(Expr test, Expr ifTrue, Expr ifFalse, SourceLocation location) implements Expr {
    }

    /** {@code array[index]}. */
    record Index(Expr array, Expr index, SourceLocation location) implements Expr {
    }

    /** {@code array[from:to]}, a copy of elements from (inclusive) to (exclusive). */
    record Slice(Expr array, Expr from, Expr to, SourceLocation location) implements Expr {
    }

    /** {@code f(a, b)}. */
    record Call(String function, List<Expr> arguments, SourceLocation location) implements Expr {
    }

    /** {@code [a, b, c]}. */
    record ArrayLiteral(List<Expr> elements, SourceLocation location) implements Expr {
    }
}
