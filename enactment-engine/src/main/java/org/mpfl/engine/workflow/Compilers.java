package org.mpfl.engine.workflow;

import java.util.List;
import java.util.Map;

/**
 * Finds the compiler bridge. The bridge to the MPFL compiler is the adapter point for
 * {@code org.mpfl.compiler}'s entry point; until it is wired, compiling answers with a clear error
 * and callers must send a deployment plan instead.
 */
public final class Compilers {
    private Compilers() {
    }

    /** The compiler the engine and the command line use. */
    public static WorkflowCompiler standard() {
        return (fileName, document, params) -> {
            throw new WorkflowCompiler.CompileException(List.of(fileName
                    + ":1:1: error: this build of the engine cannot compile MPFL documents yet; give a deployment plan (.json) instead"));
        };
    }

    /** Convenience for tests: a compiler that always returns the given plan. */
    public static WorkflowCompiler fixed(com.fasterxml.jackson.databind.JsonNode plan, Map<String, byte[]> archives) {
        return (fileName, document, params) -> new WorkflowCompiler.Compiled(plan, archives);
    }
}
