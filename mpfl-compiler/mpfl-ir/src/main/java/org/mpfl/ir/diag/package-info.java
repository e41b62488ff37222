/** Diagnostics: located errors and warnings, collected (never thrown) and printed GCC-style. */
package org.mpfl.ir.diag;
