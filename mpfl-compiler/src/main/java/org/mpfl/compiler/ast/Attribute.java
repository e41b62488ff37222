package org.mpfl.compiler.ast;

import java.util.function.IntFunction;
import org.mpfl.ir.diag.SourceLocation;

/**
 * An attribute of a document element with its location and a map from offsets inside the (decoded)
 * value back to source positions, so that an error in an expression points at the right column.
 */
public record Attribute(String name, String value, SourceLocation location, IntFunction<SourceLocation> valuePositions) {

    /** The source position of character {@code offset} of the value (clamped to the value). */
    public SourceLocation positionInValue(int offset) {
        if (valuePositions == null) {
            return location;
        }
        int clamped = Math.max(0, Math.min(offset, value.length()));
        return valuePositions.apply(clamped);
    }
}
