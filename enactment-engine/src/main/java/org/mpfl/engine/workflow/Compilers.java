package org.mpfl.engine.workflow;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.ir.spi.WorkflowCompilerProvider;

/**
 * The compilers the engine and the command line use. The engine compiles against mpfl-ir only: the
 * compiler proper (mpfl-compiler, on the run-time class path) is found through {@link ServiceLoader}
 * as a {@link WorkflowCompilerProvider}, so no engine class can reach into the parser or the checks.
 */
public final class Compilers {
    private Compilers() {
    }

    /** The compiler the engine uses for documents sent over REST (library paths resolve nowhere). */
    public static WorkflowCompiler standard() {
        return compiler(null);
    }

    /** The compiler for a document file (its library paths resolve next to it). */
    public static WorkflowCompiler forFile(Path document) {
        return compiler(document.toAbsolutePath().getParent());
    }

    /** Convenience for tests: a compiler that always returns the given plan. */
    public static WorkflowCompiler fixed(DeploymentPlan plan, Map<String, byte[]> archives) {
        return (fileName, document, params) -> new WorkflowCompiler.Compiled(plan, archives, Map.of());
    }

    private static WorkflowCompiler compiler(Path documentDirectory) {
        return compiler(Installed.PROVIDER, documentDirectory);
    }

    /** The provider's compiler, or one that refuses every document when there is no provider. */
    static WorkflowCompiler compiler(WorkflowCompilerProvider provider, Path documentDirectory) {
        return provider == null ? Missing.INSTANCE : provider.compiler(documentDirectory);
    }

    /** Looked up once, on first use (the class path does not change). */
    private static final class Installed {
        static final WorkflowCompilerProvider PROVIDER = ServiceLoader
                .load(WorkflowCompilerProvider.class, WorkflowCompilerProvider.class.getClassLoader()).findFirst().orElse(null);
    }

    /**
     * No compiler on the class path (a broken installation): the engine still runs compiled plans, and
     * every document is refused with a diagnostic that says what is missing.
     */
    private enum Missing implements WorkflowCompiler {
        INSTANCE;

        @Override
        public Compiled compile(String fileName, String document, Map<String, Object> params) throws CompileException {
            throw missing(fileName);
        }

        @Override
        public String graphDot(String fileName, String document, Map<String, Object> params) throws CompileException {
            throw missing(fileName);
        }

        private static CompileException missing(String fileName) {
            return new CompileException(List.of(fileName + ":1:1: error: this engine has no MPFL compiler on its class path "
                    + "(the mpfl-compiler jar provides " + WorkflowCompilerProvider.class.getName() + "): send a compiled "
                    + "plan with its archives instead, or reinstall the engine"));
        }
    }
}
