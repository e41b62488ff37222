package org.mpfl.compiler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.diag.Diagnostic;
import org.mpfl.ir.diag.Diagnostics;
import org.mpfl.compiler.gen.Graphviz;
import org.mpfl.compiler.parse.DocumentReader;
import org.mpfl.compiler.gen.PlanBuilder;
import org.mpfl.compiler.gen.ServiceArchiveWriter;
import org.mpfl.ir.IrParam;
import org.mpfl.ir.IrProcess;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.ParamValues;
import org.mpfl.ir.plan.PlanProcess;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.ir.spi.WorkflowCompilerProvider;
import org.mpfl.ir.files.FileTrees;

/**
 * The engine's bridge to the MPFL compiler: runs every static check ({@link MpflCompiler#check}) with
 * the run's parameters, checks each process's rank count with them, and builds the deployment plan
 * ({@link PlanBuilder}) and one service archive per process ({@link ServiceArchiveWriter}), as
 * {@code mpflc compile} does. The plan handed back carries the run's parameter values as its
 * defaults ({@link DeploymentPlan#withParamValues}), so a plan stored from it starts with them.
 * A document with errors is refused with its GCC-style diagnostics. Pictures are drawn by
 * {@link MpflCompiler#picture} and rendered by {@link Graphviz}.
 *
 * <p>The engine compiles against mpfl-ir only and finds this class through {@link Provider}
 * ({@code META-INF/services/org.mpfl.ir.spi.WorkflowCompilerProvider}).
 */
public final class MpflCompilerBridge implements WorkflowCompiler {

    private final Path documentDirectory;
    /** The interpreter that parses the Python kernels' modules ({@link #checkingPythonKernelsWith}), or {@code null}. */
    private final String python;
    /** How diagnostics name the parameter values given ({@link #namingParams}). */
    private final ParamValues.Naming naming;

    /** The {@link WorkflowCompilerProvider} that the engine loads. */
    public static final class Provider implements WorkflowCompilerProvider {
        @Override
        public WorkflowCompiler compiler(Path documentDirectory) {
            return new MpflCompilerBridge(documentDirectory);
        }
    }

    /** @param documentDirectory where library paths of the document resolve ({@code null}: none) */
    public MpflCompilerBridge(Path documentDirectory) {
        this(documentDirectory, null, ParamValues.Naming.COMMAND_LINE);
    }

    private MpflCompilerBridge(Path documentDirectory, String python, ParamValues.Naming naming) {
        this.documentDirectory = documentDirectory;
        this.python = python;
        this.naming = naming;
    }

    @Override
    public WorkflowCompiler checkingPythonKernelsWith(String python) {
        return new MpflCompilerBridge(documentDirectory, python, naming);
    }

    @Override
    public WorkflowCompiler namingParams(ParamValues.Naming naming) {
        return new MpflCompilerBridge(documentDirectory, python, naming);
    }

    @Override
    public String graphDot(String fileName, String document, Map<String, Object> params) throws CompileException {
        MpflCompiler compiler = new MpflCompiler();
        MpflCompiler.CheckResult result = compiler.check(document, fileName,
                documentDirectory, texts(params), naming);
        if (!result.ok()) {
            throw new CompileException(lines(result.diagnostics()));
        }
        return compiler.picture(result).dot();
    }

    @Override
    public String documentText(String fileName, byte[] content) throws CompileException {
        Diagnostics diagnostics = new Diagnostics();
        String text = new DocumentReader(diagnostics).text(content, fileName);
        if (text == null) {
            throw new CompileException(lines(diagnostics));
        }
        return text;
    }

    @Override
    public String svg(String dot) throws IOException, InterruptedException {
        try {
            return Graphviz.svg(dot);
        } catch (Graphviz.UnavailableException e) {
            throw new RendererUnavailableException(e.getMessage());
        }
    }

    private static Map<String, String> texts(Map<String, Object> params) {
        Map<String, String> text = new LinkedHashMap<>();
        params.forEach((k, v) -> text.put(k, v instanceof String s ? s
                : v instanceof Number || v instanceof Boolean ? String.valueOf(v) : json(v)));
        return text;
    }

    private static String json(Object value) {
        try {
            return ParamText.MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
        }
    }

    @Override
    public Compiled compile(String fileName, String document, Map<String, Object> params) throws CompileException {
        return compile(fileName, document, params, true);
    }

    /** As the interface says, and every param must have a value: the ranks start at once with these. */
    @Override
    public Compiled compileForThisJvm(String fileName, String document, Map<String, Object> params) throws CompileException {
        return compile(fileName, document, params, false);
    }

    /** @param archivesAlways {@code false}: archives only if the workflow has libraries (see {@link #compileForThisJvm}) */
    private Compiled compile(String fileName, String document, Map<String, Object> params, boolean archivesAlways)
            throws CompileException {
        MpflCompiler compiler = new MpflCompiler();
        MpflCompiler.CheckResult result = compiler.check(document, fileName,
                documentDirectory, texts(params), naming);
        if (result.ok() && python != null) {
            compiler.checkPythonFunctions(result, documentDirectory, python);
        }
        if (!result.ok()) {
            throw new CompileException(lines(result.diagnostics()));
        }
        if (!archivesAlways) {
            // a run in this JVM starts with these values: a param left without one would fail every rank at its start,
            // with no place in the document (a deployment, through compile, leaves it to its runs)
            Diagnostics unvalued = new Diagnostics();
            for (IrParam p : result.workflow().params()) {
                if (!result.paramValues().containsKey(p.name())) {
                    unvalued.error(p.at(), ParamValues.noValue(p.name(), naming));
                }
            }
            if (unvalued.hasErrors()) {
                throw new CompileException(lines(unvalued));
            }
        }
        Diagnostics countProblems = new Diagnostics();
        Map<String, Integer> counts = ParamValues.rankCounts(result.workflow(), result.paramValues(), countProblems);
        if (countProblems.hasErrors()) {
            throw new CompileException(lines(countProblems));
        }
        for (IrProcess p : result.workflow().processes()) {
            if (!counts.containsKey(p.name())) {
                throw new CompileException(List.of(fileName + ":1:1: error: the rank count of process '" + p.name()
                        + "' depends on a parameter without value; give it with " + naming.name("NAME", "VALUE")));
            }
        }
        DeploymentPlan plan = PlanBuilder.build(result.workflow(), document.getBytes(StandardCharsets.UTF_8));
        if (documentDirectory == null && !plan.libraries().isEmpty()) {
            // the archives bundle the libraries, which lie next to the document on the sender's machine
            throw new CompileException(List.of(fileName + ":1:1: error: the document uses libraries (" + plan.libraries().size()
                    + "), which the engine cannot read: send its compiled plan and archives with it (mpflc deploy FILE, mpflc run FILE)"));
        }
        Map<String, byte[]> archives;
        try {
            archives = archivesAlways || !plan.libraries().isEmpty() ? archives(plan) : Map.of();
        } catch (IOException e) {
            throw new CompileException(List.of(fileName + ":1:1: error: cannot generate the services: " + e.getMessage()));
        }
        // the archives carry the plan as compiled; the engine gets it with this run's values as defaults
        return new Compiled(plan.withParamValues(result.paramValues()), archives, result.paramValues(),
                lines(result.diagnostics()));
    }

    /**
     * One archive per process, by service type. {@link ServiceArchiveWriter} writes files only, so each
     * archive passes through a private temporary directory (the plan does not).
     */
    private Map<String, byte[]> archives(DeploymentPlan plan) throws IOException {
        Map<String, byte[]> archives = new LinkedHashMap<>();
        Path dir = Files.createTempDirectory("mpfl-archives-");
        // mpflc stopped by a signal while it writes an archive (run --local compiles while its cluster starts)
        FileTrees.AtExit atExit = FileTrees.deleteAtExit(dir);
        try {
            for (PlanProcess process : plan.processes()) {
                Path archive = dir.resolve(process.archive());
                ServiceArchiveWriter.write(plan, process, documentDirectory, archive);
                archives.put(process.service(), Files.readAllBytes(archive));
            }
            return archives;
        } finally {
            FileTrees.deleteQuietly(dir);
            atExit.close();
        }
    }

    /**
     * Non-text parameter values (lists, maps from JSON) become JSON text again, as {@code --param} takes them;
     * created on first use: a run with plain parameters (the README's first run) creates no mapper here.
     */
    private static final class ParamText {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

    private static List<String> lines(Diagnostics diagnostics) {
        return diagnostics.sorted().stream().map(Diagnostic::format).toList();
    }
}
