package org.mpfl.ir;

/**
 * Binary operators. The word forms of the source ({@code and}, {@code lt} ...) map to the same
 * operator as their symbols. {@link #CONCAT} is the string form of {@code +}.
 */
public enum BinaryOp {
    OR("||"), AND("&&"), EQ("=="), NE("!="), LT("<"), LE("<="), GT(">"), GE(">="),
    ADD("+"), SUB("-"), MUL("*"), DIV("/"), MOD("%"), CONCAT("+");

    private final String symbol;

    BinaryOp(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }

    public boolean isComparison() {
        return this == EQ || this == NE || this == LT || this == LE || this == GT || this == GE;
    }

    public boolean isArithmetic() {
        return this == ADD || this == SUB || this == MUL || this == DIV || this == MOD;
    }
}
