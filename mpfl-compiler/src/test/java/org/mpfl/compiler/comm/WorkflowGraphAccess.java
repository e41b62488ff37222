package org.mpfl.compiler.comm;

/** Test access to {@link WorkflowGraph}'s DOT quoting. */
public final class WorkflowGraphAccess {
    private WorkflowGraphAccess() {
    }

    public static String quote(String s) {
        return WorkflowGraph.quote(s);
    }
}
