package org.mpfl.engine.workflow;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.compiler.check.ParamValues;
import org.mpfl.compiler.diag.Diagnostic;
import org.mpfl.compiler.diag.Diagnostics;
import org.mpfl.compiler.ir.IrProcess;
import org.mpfl.engine.Json;

/**
 * The engine's bridge to the MPFL compiler: runs every static check ({@link MpflCompiler#check}) with
 * the run's parameters, resolves each process's rank count with them, and returns a plan the engine
 * can place ({@code workflow}, {@code processes[name, service, ranks]}, {@code params} with the typed
 * values). A document with errors is refused with its GCC-style diagnostics.
 *
 * <p>Generated service archives are not produced here yet: they come from {@code mpflc compile}
 * (a build directory given to {@code mpflc run}/{@code deploy}) until the compiler's build writer is
 * wired in.
 */
public final class MpflCompilerBridge implements WorkflowCompiler {
    private final Path documentDirectory;

    /** @param documentDirectory where library paths of the document resolve ({@code null}: none) */
    public MpflCompilerBridge(Path documentDirectory) {
        this.documentDirectory = documentDirectory;
    }

    @Override
    public Compiled compile(String fileName, String document, Map<String, Object> params) throws CompileException {
        Map<String, String> text = new LinkedHashMap<>();
        params.forEach((k, v) -> text.put(k, v instanceof String s ? s
                : v instanceof Number || v instanceof Boolean ? String.valueOf(v) : Json.write(v)));
        MpflCompiler.CheckResult result = new MpflCompiler().check(document.getBytes(StandardCharsets.UTF_8), fileName,
                documentDirectory, text);
        if (!result.ok()) {
            throw new CompileException(lines(result.diagnostics()));
        }
        Diagnostics countProblems = new Diagnostics();
        Map<String, Integer> counts = ParamValues.rankCounts(result.workflow(), result.paramValues(), countProblems);
        if (countProblems.hasErrors()) {
            throw new CompileException(lines(countProblems));
        }
        ObjectNode plan = Json.MAPPER.createObjectNode();
        plan.put("workflow", result.workflow().name());
        plan.put("source", fileName);
        ArrayNode processes = plan.putArray("processes");
        for (IrProcess p : result.workflow().processes()) {
            Integer n = counts.get(p.name());
            if (n == null) {
                throw new CompileException(List.of(fileName + ":1:1: error: the rank count of process '" + p.name()
                        + "' depends on a parameter without value; give it with --param"));
            }
            ObjectNode o = processes.addObject();
            o.put("name", p.name());
            o.put("service", p.service() == null ? p.name() : p.service());
            o.put("ranks", n);
        }
        plan.set("params", Json.MAPPER.valueToTree(result.paramValues()));
        return new Compiled(plan, Map.of());
    }

    private static List<String> lines(Diagnostics diagnostics) {
        return diagnostics.sorted().stream().map(Diagnostic::format).toList();
    }
}
