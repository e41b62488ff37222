/**
 * The check step's owner: {@link org.mpfl.compiler.check.WorkflowChecker} resolves names and types a
 * document into the checked IR (declarations here, activities through
 * {@link org.mpfl.compiler.check.activity.ActivityChecker} and its one-validator-per-element package),
 * and the {@link org.mpfl.compiler.check.WorkflowAnalysis} extension point runs whole-program
 * analyses such as the communication check. Layers: this package → {@code check.activity} →
 * {@code check.typing}.
 */
package org.mpfl.compiler.check;
