package org.mpfl.ir.spi;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.PlanJson;

/**
 * Turns an MPFL document into a deployment plan and generated service archives — the engine's view
 * of the compiler ({@code mpflc check}/{@code compile}), used by {@code mpflc run} and by REST
 * starts that send a document instead of a plan. The compiler proper implements it
 * ({@link WorkflowCompilerProvider}); the engine also implements it in tests (a fixed plan).
 */
public interface WorkflowCompiler {
    /**
     * Checks and compiles a document.
     *
     * @param fileName name used in diagnostics ({@code ring.mpfl.xml})
     * @param document the XML text
     * @param params   parameter values of the run (rank counts may depend on them)
     * @throws CompileException with GCC-style diagnostics when the document has static errors
     */
    Compiled compile(String fileName, String document, Map<String, Object> params) throws CompileException;

    /**
     * The text of a document file as this compiler's parser reads it, which is what {@link #compile} and the
     * engine take (the engine's JSON carries text, not bytes): decoded with the encoding the document's XML
     * declaration names, UTF-8 without one. A compiler that does not override this reads UTF-8.
     *
     * @throws CompileException with the parser's diagnostic when the bytes are not text in that encoding
     */
    default String documentText(String fileName, byte[] content) throws CompileException {
        try {
            return java.nio.charset.StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(content)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new CompileException(List.of(fileName + ":1:1: error: not UTF-8 text"));
        }
    }

    /**
     * As {@link #compile}, for ranks that run in the caller's JVM and take their programs from the plan
     * object itself ({@code mpflc run --local} without host processes): the service archives are left out
     * when the workflow has no libraries, since they would then carry nothing but the plan's own programs
     * as JSON, written here for the ranks to parse back (about a third of a second of the README's first
     * run). With libraries (whose files only the archives carry) the archives are made as by
     * {@link #compile}; so they are by a compiler that does not override this.
     */
    default Compiled compileForThisJvm(String fileName, String document, Map<String, Object> params)
            throws CompileException {
        return compile(fileName, document, params);
    }

    /**
     * This compiler, also looking for each {@code <compute python="M:F">} function in its module's file
     * as {@code mpflc check} does: the file parsed (never imported) by {@code python}, a module that does
     * not parse or lacks the function being a static error. For runs whose kernels run in that very
     * interpreter ({@code mpflc run --local}); an engine's hosts may have another one. Without an
     * interpreter the functions are not checked. A compiler that cannot look returns itself.
     */
    default WorkflowCompiler checkingPythonKernelsWith(String python) {
        return this;
    }

    /**
     * This compiler, naming the parameter values given to {@link #compile} and {@link #graphDot} in its diagnostics
     * with {@code naming}: the engine's REST API names them by the request's field ({@code 'params.n'}), the command
     * line by its option ({@code --param n}, the default). A compiler that names no given values returns itself.
     */
    default WorkflowCompiler namingParams(org.mpfl.ir.plan.ParamValues.Naming naming) {
        return this;
    }

    /**
     * The workflow's picture as Graphviz DOT ({@code mpflc graph}): its processes, the messages and the
     * collectives between them, for these parameter values (defaults for the rest).
     *
     * @throws CompileException when the document has static errors, or this compiler draws no pictures
     */
    default String graphDot(String fileName, String document, Map<String, Object> params) throws CompileException {
        throw new CompileException(List.of(fileName + ":1:1: error: this engine's compiler draws no pictures"));
    }

    /**
     * A picture's DOT text rendered as SVG (by Graphviz's {@code dot}, which MPFL does not bundle).
     *
     * @throws RendererUnavailableException when there is no renderer or it failed; the message says how to get SVG
     */
    default String svg(String dot) throws IOException, InterruptedException {
        throw new RendererUnavailableException("this engine's compiler renders no pictures; ask for DOT instead");
    }

    /**
     * @param plan     the deployment plan (its param defaults are this run's values)
     * @param archives generated service archives by service type ({@code .aar} bytes)
     * @param params   the typed values of every parameter for this run (defaults filled in)
     * @param warnings the static checks' warnings, {@code FILE:LINE:COL: warning: message} lines (a run
     *                 that goes ahead shows them, as {@code mpflc check} does)
     */
    record Compiled(DeploymentPlan plan, Map<String, byte[]> archives, Map<String, Object> params,
                    List<String> warnings) {
        public Compiled {
            warnings = List.copyOf(warnings);
        }

        /** Compiled without warnings (a fixed plan). */
        public Compiled(DeploymentPlan plan, Map<String, byte[]> archives, Map<String, Object> params) {
            this(plan, archives, params, List.of());
        }

        /** The plan as JSON, written by the compiler's {@link PlanJson} (what clients send to the engine). */
        public JsonNode planJson() {
            return PlanJson.mapper().valueToTree(plan);
        }
    }

    /** Static errors: the document must not be started. */
    final class CompileException extends Exception {
        private static final long serialVersionUID = 1L;
        private final List<String> diagnostics;

        public CompileException(List<String> diagnostics) {
            super(String.join("\n", diagnostics));
            this.diagnostics = List.copyOf(diagnostics);
        }

        /** {@code FILE:LINE:COL: error: message} lines. */
        public List<String> diagnostics() {
            return diagnostics;
        }
    }

    /** SVG cannot be drawn here (no Graphviz, or it failed or is busy); the message says what to do. */
    final class RendererUnavailableException extends IOException {
        private static final long serialVersionUID = 1L;

        public RendererUnavailableException(String message) {
            super(message);
        }
    }
}
