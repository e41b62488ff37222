package org.mpfl.ir;

import org.mpfl.ir.diag.SourceLocation;

/** A workflow param: scalar type, optional constant default (null = must be given at run time). */
public record IrParam(String name, MpflType type, IrExpr defaultValue, SourceLocation at) {
}
