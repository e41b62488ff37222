package org.mpfl.ir;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The value types of MPFL (spec section 2), written in JSON with their MPFL spelling
 * ({@code "int"}, {@code "double[]"} ...).
 *
 * <p>Run-time representation, shared by the compiler's evaluator and the rank interpreter:
 * int → {@link Integer}, long → {@link Long}, double → {@link Double}, boolean → {@link Boolean},
 * string → {@link String}, int[]/long[]/double[] → the Java primitive arrays, bytes → {@code byte[]},
 * object → any serialisable {@link Object}. Only {@code object} values may be null (its zero value).
 */
public enum MpflType {
    INT("int"), LONG("long"), DOUBLE("double"), BOOLEAN("boolean"), STRING("string"),
    INT_ARRAY("int[]"), LONG_ARRAY("long[]"), DOUBLE_ARRAY("double[]"), BYTES("bytes"), OBJECT("object");

    private final String spelling;

    MpflType(String spelling) {
        this.spelling = spelling;
    }

    @JsonValue
    public String spelling() {
        return spelling;
    }

    @Override
    public String toString() {
        return spelling;
    }

    /** The type written {@code text} in a document, or null. */
    @JsonCreator
    public static MpflType fromSpelling(String text) {
        for (MpflType t : values()) {
            if (t.spelling.equals(text)) {
                return t;
            }
        }
        return null;
    }

    public boolean isNumeric() {
        return this == INT || this == LONG || this == DOUBLE;
    }

    /** int or long: the types of integer arithmetic (division truncates, division by zero faults). */
    public boolean isIntegral() {
        return this == INT || this == LONG;
    }

    /** Scalar types: allowed for params. */
    public boolean isScalar() {
        return isNumeric() || this == BOOLEAN || this == STRING;
    }

    /** int[], long[], double[]. */
    public boolean isNumericArray() {
        return this == INT_ARRAY || this == LONG_ARRAY || this == DOUBLE_ARRAY;
    }

    /** The element type of a numeric array (bytes elements read as int), or null. */
    public MpflType elementType() {
        return switch (this) {
            case INT_ARRAY, BYTES -> INT;
            case LONG_ARRAY -> LONG;
            case DOUBLE_ARRAY -> DOUBLE;
            default -> null;
        };
    }

    /** The array type whose elements are this numeric type, or null. */
    public MpflType arrayType() {
        return switch (this) {
            case INT -> INT_ARRAY;
            case LONG -> LONG_ARRAY;
            case DOUBLE -> DOUBLE_ARRAY;
            default -> null;
        };
    }

    /** The wider of two numeric types (int → long → double), or null if either is not numeric. */
    public static MpflType promote(MpflType a, MpflType b) {
        if (a == null || b == null || !a.isNumeric() || !b.isNumeric()) {
            return null;
        }
        return a.ordinal() >= b.ordinal() ? a : b;
    }

    /** Whether a value of type {@code from} may be stored where {@code this} is expected (same type or numeric widening). */
    public boolean accepts(MpflType from) {
        return this == from || (isNumeric() && from != null && from.isNumeric() && from.ordinal() < ordinal());
    }
}
