package org.mpfl.ir.spi;

import java.nio.file.Path;

/**
 * Makes {@link WorkflowCompiler}s: the service the compiler proper registers in
 * {@code META-INF/services/org.mpfl.ir.spi.WorkflowCompilerProvider} and the engine loads with
 * {@link java.util.ServiceLoader}.
 */
public interface WorkflowCompilerProvider {
    /**
     * A compiler for documents whose library paths resolve in {@code documentDirectory}.
     *
     * @param documentDirectory the directory of the document, or {@code null} when it has none (a
     *                          document sent over REST): a document that uses libraries is then refused
     */
    WorkflowCompiler compiler(Path documentDirectory);
}
