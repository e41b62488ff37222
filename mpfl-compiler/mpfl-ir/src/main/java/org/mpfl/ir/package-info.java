/**
 * The typed intermediate representation executed by the rank interpreter and analysed by the
 * communication check: {@link org.mpfl.ir.IrWorkflow} → {@link org.mpfl.ir.IrProcess} →
 * {@link org.mpfl.ir.IrActivity} / {@link org.mpfl.ir.IrExpr}; every node has its source
 * location; Jackson-serialisable with stable field names.
 */
package org.mpfl.ir;
