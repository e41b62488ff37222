package org.mpfl.compiler.check.typing;

import java.util.Set;
import java.util.regex.Pattern;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.diag.SourceLocation;

/**
 * Lexical rules for the names a document declares, and the check that a new name may be declared
 * where it is (shared by the workflow checker and the activity validators).
 */
public final class Names {
    /** Params, vars, loop variables, requests, communicators: usable inside expressions. */
    public static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** {@link #IDENTIFIER} in words, for the messages that reject a name. */
    public static final String IDENTIFIER_RULE = "ASCII letters, digits and '_', not starting with a digit";
    /** Workflow and process names (also service types and communicator names of processes). */
    public static final Pattern WORKFLOW_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*");
    /** Output names. */
    public static final Pattern OUTPUT_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]*");
    /** Java class names for compute. */
    public static final Pattern CLASS_NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");
    /** Words of the expression language: never names. */
    static final Set<String> RESERVED = Set.of("and", "or", "not", "eq", "ne", "lt", "le", "gt", "ge", "true", "false", "any");

    /**
     * Reports whether {@code name} may be declared here: a well-formed identifier, not a reserved
     * word or built-in, not already visible (no shadowing: it would make expressions ambiguous).
     */
    public static boolean checkNewName(Diagnostics diagnostics, SourceLocation at, String name, String what, Scope scope) {
        if (!IDENTIFIER.matcher(name).matches()) {
            diagnostics.error(at, "'" + name + "' is not a valid " + what + " name (" + IDENTIFIER_RULE + ")");
            return false;
        }
        if (RESERVED.contains(name)) {
            diagnostics.error(at, "'" + name + "' is a reserved word and cannot name a " + what);
            return false;
        }
        if (Scope.BUILTIN_IDENTIFIERS.containsKey(name)) {
            diagnostics.error(at, "'" + name + "' is a built-in identifier and cannot name a " + what);
            return false;
        }
        Scope.Symbol existing = scope.lookup(name);
        if (existing != null) {
            diagnostics.error(at, "duplicate name '" + name + "': already declared as "
                    + existing.kind().name().toLowerCase(java.util.Locale.ROOT).replace("loop", "loop variable")
                    .replace("var", "variable") + (existing.declaredAt() == null ? "" : " at " + existing.declaredAt()));
            return false;
        }
        return true;
    }

    private Names() {
    }
}
