package org.mpfl.ir;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import org.mpfl.ir.diag.SourceLocation;

/**
 * A typed, name-resolved expression. Implicit numeric promotions are explicit {@link Convert} nodes,
 * so the operands of an arithmetic or comparison {@link Binary} always have the same type and the
 * evaluator never has to guess. Serialised with a {@code "kind"} discriminator.
 * Evaluate with {@link org.mpfl.ir.eval.ExpressionEvaluator}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
    @JsonSubTypes.Type(value = IrExpr.Const.class, name = "const"),
    @JsonSubTypes.Type(value = IrExpr.Ref.class, name = "ref"),
    @JsonSubTypes.Type(value = IrExpr.Unary.class, name = "unary"),
    @JsonSubTypes.Type(value = IrExpr.Binary.class, name = "binary"),
    @JsonSubTypes.Type(value = IrExpr.Conditional.class, name = "conditional"),
    @JsonSubTypes.Type(value = IrExpr.Index.class, name = "index"),
    @JsonSubTypes.Type(value = IrExpr.Slice.class, name = "slice"),
    @JsonSubTypes.Type(value = IrExpr.Call.class, name = "call"),
    @JsonSubTypes.Type(value = IrExpr.ArrayOf.class, name = "array"),
    @JsonSubTypes.Type(value = IrExpr.Convert.class, name = "convert"),
})
public sealed interface IrExpr {
    /** The static type of the value. */
    MpflType type();

    /** Where the expression (its operator, for operator nodes) is in the source. */
    SourceLocation at();

    /** What a {@link Ref} refers to. */
    enum RefKind {
        /** A workflow param (read-only, same value on every rank). */
        PARAM,
        /** A process variable (per rank). */
        VAR,
        /** The int variable of an enclosing {@code for}. */
        LOOP,
        /** {@code rank}, {@code size}, {@code prank}, {@code psize}. */
        BUILTIN
    }

    /** A scalar constant; value is Integer, Long, Double, Boolean or String according to the type. */
    record Const(MpflType type, Object value, SourceLocation at) implements IrExpr {
        public Const {
            // JSON numbers come back as the smallest fitting Java type: normalise to the declared one.
            if (value instanceof Number n) {
                value = switch (type) {
                    case INT -> n.intValue();
                    case LONG -> n.longValue();
                    case DOUBLE -> n.doubleValue();
                    default -> value;
                };
            }
        }
    }

    /** A name, resolved. */
    record Ref(String name, RefKind ref, MpflType type, SourceLocation at) implements IrExpr {
    }

    record Unary(UnaryOp op, IrExpr operand, MpflType type, SourceLocation at) implements IrExpr {
    }

    /**
     * For arithmetic and comparisons both operands have the same (promoted) type; for {@code CONCAT}
     * either operand may have any type and is converted as by {@code string(x)}; {@code AND}/{@code OR}
     * short-circuit.
     */
    record Binary(BinaryOp op, IrExpr left, IrExpr right, MpflType type, SourceLocation at) implements IrExpr {
    }

    /** {@code test ? ifTrue : ifFalse}; only the chosen branch is evaluated. */
    record Conditional(IrExpr test, IrExpr ifTrue, IrExpr ifFalse, MpflType type, SourceLocation at) implements IrExpr {
    }

    /** Element {@code index} of a numeric array or of {@code bytes} (read as int). */
    record Index(IrExpr array, IrExpr index, MpflType type, SourceLocation at) implements IrExpr {
    }

    /** A copy of elements {@code [from, to)} of an array, bytes or string. */
    record Slice(IrExpr array, IrExpr from, IrExpr to, MpflType type, SourceLocation at) implements IrExpr {
    }

    /**
     * A built-in function call. For functions whose first argument names a communicator or a process
     * ({@link Builtin#takesName()}), that argument is a string {@link Const}.
     */
    record Call(Builtin function, List<IrExpr> arguments, MpflType type, SourceLocation at) implements IrExpr {
        public Call {
            arguments = List.copyOf(arguments);
        }
    }

    /** An array literal; elements are already converted to the element type. */
    record ArrayOf(List<IrExpr> elements, MpflType type, SourceLocation at) implements IrExpr {
        public ArrayOf {
            elements = List.copyOf(elements);
        }
    }

    /** Numeric widening (int → long → double) inserted by the checker. */
    record Convert(IrExpr operand, MpflType type, SourceLocation at) implements IrExpr {
    }
}
