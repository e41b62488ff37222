package org.mpfl.compiler.ir;

import org.mpfl.compiler.diag.SourceLocation;

/** A per-rank process variable; {@code init} null = the type's zero value ({@link org.mpfl.compiler.ir.eval.Values#zero}). */
public record IrVariable(String name, MpflType type, IrExpr init, SourceLocation at) {
}
