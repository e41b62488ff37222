package org.mpfl.compiler.check;

import java.util.Set;
import java.util.regex.Pattern;

/** Lexical rules for the names a document declares. */
final class Names {
    /** Params, vars, loop variables, requests, communicators: usable inside expressions. */
    static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** Workflow and process names (also service types and communicator names of processes). */
    static final Pattern WORKFLOW_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*");
    /** Output names. */
    static final Pattern OUTPUT_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]*");
    /** Java class names for compute. */
    static final Pattern CLASS_NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");
    /** Words of the expression language: never names. */
    static final Set<String> RESERVED = Set.of("and", "or", "not", "eq", "ne", "lt", "le", "gt", "ge", "true", "false", "any");

    private Names() {
    }
}
