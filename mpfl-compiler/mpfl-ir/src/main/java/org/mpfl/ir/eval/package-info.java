/**
 * Evaluation of IR expressions over run-time values ({@link org.mpfl.ir.eval.ExpressionEvaluator})
 * in an {@link org.mpfl.ir.eval.EvaluationEnvironment} supplied by the caller; faults as
 * {@link org.mpfl.ir.eval.RuntimeFault} with locations.
 */
package org.mpfl.ir.eval;
