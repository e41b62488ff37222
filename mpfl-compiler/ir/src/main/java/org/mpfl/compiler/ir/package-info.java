/**
 * The typed intermediate representation executed by the rank interpreter and analysed by the
 * communication check: {@link org.mpfl.compiler.ir.IrWorkflow} → {@link org.mpfl.compiler.ir.IrProcess} →
 * {@link org.mpfl.compiler.ir.IrActivity} / {@link org.mpfl.compiler.ir.IrExpr}; every node has its source
 * location; Jackson-serialisable with stable field names.
 */
package org.mpfl.compiler.ir;
