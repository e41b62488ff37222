/**
 * Evaluation of IR expressions over run-time values ({@link org.mpfl.compiler.ir.eval.ExpressionEvaluator})
 * in an {@link org.mpfl.compiler.ir.eval.EvaluationEnvironment} supplied by the caller; faults as
 * {@link org.mpfl.compiler.ir.eval.RuntimeFault} with locations.
 */
package org.mpfl.compiler.ir.eval;
