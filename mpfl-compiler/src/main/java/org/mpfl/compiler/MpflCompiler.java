package org.mpfl.compiler;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.mpfl.compiler.ast.Element;
import org.mpfl.compiler.check.WorkflowAnalysis;
import org.mpfl.compiler.check.WorkflowChecker;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.ir.diag.SourceLocation;
import org.mpfl.ir.IrWorkflow;
import org.mpfl.compiler.parse.DocumentReader;
import org.mpfl.compiler.parse.StructureValidator;
import org.mpfl.ir.plan.ParamValues;

/**
 * The front-end pipeline of {@code mpflc check}: secure reading, structure, names and types (→ IR),
 * param values and rank counts, then the registered {@link WorkflowAnalysis} steps (communication
 * check). Every step reports into one {@link Diagnostics}; later steps run only when the earlier
 * ones left something meaningful to look at.
 */
public final class MpflCompiler {
    private final List<WorkflowAnalysis> analyses;

    /** A compiler with the analyses registered through {@link ServiceLoader}. */
    public MpflCompiler() {
        this(ServiceLoader.load(WorkflowAnalysis.class).stream().map(ServiceLoader.Provider::get).toList());
    }

    public MpflCompiler(List<WorkflowAnalysis> analyses) {
        this.analyses = List.copyOf(analyses);
    }

    /** What checking produced. {@code workflow} is null when the document could not be read as MPFL at all. */
    public record CheckResult(Diagnostics diagnostics, IrWorkflow workflow, Map<String, Object> paramValues) {
        public boolean ok() {
            return !diagnostics.hasErrors() && workflow != null;
        }
    }

    /** Checks a file; {@code displayName} is how the file is named in diagnostics. */
    public CheckResult check(Path file, String displayName, Map<String, String> params) {
        Diagnostics diagnostics = new Diagnostics();
        Element root = new DocumentReader(diagnostics).read(file, displayName);
        Path directory = file.toAbsolutePath().getParent();
        return checkTree(root, displayName, directory, params, diagnostics);
    }

    /** Checks a document in memory; {@code documentDirectory} (may be null) resolves library paths. */
    public CheckResult check(byte[] content, String displayName, Path documentDirectory, Map<String, String> params) {
        Diagnostics diagnostics = new Diagnostics();
        Element root = new DocumentReader(diagnostics).read(content, displayName);
        return checkTree(root, displayName, documentDirectory, params, diagnostics);
    }

    /**
     * Checks a document that is already text (as the engine gets it): its characters are parsed as they are,
     * an encoding named in its XML declaration is not applied again. {@code documentDirectory} as above.
     */
    public CheckResult check(String text, String displayName, Path documentDirectory, Map<String, String> params) {
        return check(text, displayName, documentDirectory, params, ParamValues.Naming.COMMAND_LINE);
    }

    /** {@link #check(String, String, Path, Map)} whose diagnostics name the given param values with {@code naming}. */
    public CheckResult check(String text, String displayName, Path documentDirectory, Map<String, String> params,
            ParamValues.Naming naming) {
        Diagnostics diagnostics = new Diagnostics();
        Element root = new DocumentReader(diagnostics).read(text, displayName);
        return checkTree(root, displayName, documentDirectory, params, diagnostics, naming);
    }

    private CheckResult checkTree(Element root, String displayName, Path directory, Map<String, String> params,
            Diagnostics diagnostics) {
        return checkTree(root, displayName, directory, params, diagnostics, ParamValues.Naming.COMMAND_LINE);
    }

    private CheckResult checkTree(Element root, String displayName, Path directory, Map<String, String> params,
            Diagnostics diagnostics, ParamValues.Naming naming) {
        if (root == null) {
            return new CheckResult(diagnostics, null, Map.of());
        }
        new StructureValidator(diagnostics).validate(root);
        if (!root.name().equals("workflow")) {
            return new CheckResult(diagnostics, null, Map.of());
        }
        IrWorkflow workflow = new WorkflowChecker(diagnostics).check(root, displayName, directory);
        SourceLocation at = root.location();
        Map<String, Object> values = ParamValues.resolve(workflow, params, diagnostics, at, naming);
        // params with errors have no value and are skipped, so counts can be checked regardless
        ParamValues.rankCounts(workflow, values, diagnostics);
        if (!diagnostics.hasErrors()) {
            for (WorkflowAnalysis analysis : analyses) {
                analysis.analyse(workflow, values, diagnostics);
            }
        }
        return new CheckResult(diagnostics, workflow, values);
    }

    /**
     * {@code mpflc check}'s look into Python kernels: each {@code <compute python="M:F">} function among
     * the top-level names of its module's file in the libraries, parsed (never imported) by
     * {@code python}; what is missing is added to the result's diagnostics.
     */
    public void checkPythonFunctions(CheckResult result, Path documentDirectory, String python) {
        if (result.workflow() != null) {
            org.mpfl.compiler.check.KernelLibraryCheck.pythonFunctions(result.workflow(), documentDirectory, python,
                    result.diagnostics());
        }
    }

    /**
     * The picture of a checked workflow ({@code mpflc graph}): processes, messages, collectives as
     * Graphviz DOT, from the {@link org.mpfl.compiler.check.WorkflowPicture} found through ServiceLoader.
     *
     * @throws IllegalStateException when the result has errors or no picture provider is installed
     */
    public Picture picture(CheckResult result) {
        if (!result.ok()) {
            throw new IllegalStateException("a document with errors has no picture");
        }
        org.mpfl.compiler.check.WorkflowPicture picture = ServiceLoader.load(org.mpfl.compiler.check.WorkflowPicture.class)
                .findFirst().orElseThrow(() -> new IllegalStateException("no workflow picture provider on the class path"));
        org.mpfl.compiler.check.WorkflowPicture.Drawing d = picture.draw(result.workflow(), result.paramValues());
        return new Picture(d.dot(), d.notes(), d.processes(), d.messageFlows(), d.collectives());
    }

    /**
     * A workflow's picture.
     *
     * @param dot          Graphviz DOT
     * @param notes        why it is partial (communication that depends on run-time data), or empty
     * @param processes    boxes
     * @param messageFlows arrows between processes
     * @param collectives  collective nodes
     */
    public record Picture(String dot, java.util.List<String> notes, int processes, int messageFlows, int collectives) {
    }
}
