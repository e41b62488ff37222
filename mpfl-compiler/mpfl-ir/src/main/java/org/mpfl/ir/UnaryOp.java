package org.mpfl.ir;

/** Prefix operators: {@code -x}, {@code !x} / {@code not x}. */
public enum UnaryOp {
    NEGATE("-"), NOT("!");

    private final String symbol;

    UnaryOp(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }
}
