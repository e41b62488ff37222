package org.mpfl.compiler.check;

import java.util.Set;
import org.mpfl.compiler.diag.Diagnostics;
import org.mpfl.compiler.parse.ExpressionParser;

/** What the activity validators of one process share. */
record ProcessContext(String processName, Diagnostics diagnostics, ExpressionParser expressions, NameContext names,
        Set<String> requests) {
}
