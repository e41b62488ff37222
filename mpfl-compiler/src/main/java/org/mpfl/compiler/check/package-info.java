/**
 * Name resolution and static typing ({@link org.mpfl.compiler.check.WorkflowChecker}; the activity
 * elements are checked by the validators of {@link org.mpfl.compiler.check.activity}), param values,
 * and the {@link org.mpfl.compiler.check.WorkflowAnalysis} extension point for whole-program analyses
 * such as the communication check.
 */
package org.mpfl.compiler.check;
