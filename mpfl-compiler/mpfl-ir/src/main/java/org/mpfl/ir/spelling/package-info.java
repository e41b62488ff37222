/**
 * "Did you mean" hints for misspelt names, shared by the compiler's diagnostics (elements, attributes,
 * variables, types) and the command frame (options): one rule of closeness for both.
 */
package org.mpfl.ir.spelling;
