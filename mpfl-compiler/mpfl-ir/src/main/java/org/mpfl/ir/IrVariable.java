package org.mpfl.ir;

import org.mpfl.ir.diag.SourceLocation;

/** A per-rank process variable; {@code init} null = the type's zero value ({@link org.mpfl.ir.eval.Values#zero}). */
public record IrVariable(String name, MpflType type, IrExpr init, SourceLocation at) {
}
