package org.mpfl.engine.workflow;

import java.util.Map;

/** The compilers the engine and the command line use (see {@link MpflCompilerBridge}). */
public final class Compilers {
    private Compilers() {
    }

    /** The compiler the engine uses for documents sent over REST (library paths resolve nowhere). */
    public static WorkflowCompiler standard() {
        return new MpflCompilerBridge(null);
    }

    /** The compiler for a document file (its library paths resolve next to it). */
    public static WorkflowCompiler forFile(java.nio.file.Path document) {
        return new MpflCompilerBridge(document.toAbsolutePath().getParent());
    }

    /** Convenience for tests: a compiler that always returns the given plan. */
    public static WorkflowCompiler fixed(org.mpfl.compiler.plan.DeploymentPlan plan, Map<String, byte[]> archives) {
        return (fileName, document, params) -> new WorkflowCompiler.Compiled(plan, archives, Map.of());
    }
}
