package org.mpfl.compiler.check.typing;

import java.util.Set;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.compiler.parse.ExpressionParser;

/**
 * What the checking of one process's activities needs: its name, where diagnostics go, the
 * expression parser, the names its expressions may mention, and the requests its isend/irecv start.
 */
public record ProcessContext(String processName, Diagnostics diagnostics, ExpressionParser expressions, NameContext names,
        Set<String> requests) {
}
