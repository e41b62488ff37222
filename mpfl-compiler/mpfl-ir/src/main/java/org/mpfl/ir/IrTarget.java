package org.mpfl.ir;

import org.mpfl.ir.diag.SourceLocation;

/**
 * Where a value is stored: a whole variable ({@code index == null}) or one element of an array
 * variable. {@code type} is the type of the slot (the element type for an element).
 */
public record IrTarget(String variable, IrExpr index, MpflType type, SourceLocation at) {
}
