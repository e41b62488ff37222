/**
 * What every validator of the check step stands on: scopes and name rules, the process being checked
 * ({@link org.mpfl.compiler.check.typing.ProcessContext}), typing of expressions and attribute values,
 * built-in function signatures. It knows nothing of particular
 * elements, so the workflow checker and the activity validators both depend on it, never it on them.
 */
package org.mpfl.compiler.check.typing;
