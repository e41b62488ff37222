package org.mpfl.engine.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.compiler.MpflCompiler;
import org.mpfl.compiler.check.ParamValues;
import org.mpfl.compiler.diag.Diagnostic;
import org.mpfl.compiler.diag.Diagnostics;
import org.mpfl.compiler.gen.BuildWriter;
import org.mpfl.compiler.ir.IrProcess;
import org.mpfl.engine.json.Json;

/**
 * The engine's bridge to the MPFL compiler: runs every static check ({@link MpflCompiler#check}) with
 * the run's parameters, resolves each process's rank count with them, and generates the deployment
 * plan and one service archive per process ({@link BuildWriter}, as {@code mpflc compile} does). The
 * plan's {@code ranks} become this run's counts (the expression is kept as {@code ranksExpression}).
 * A document with errors is refused with its GCC-style diagnostics.
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
        for (IrProcess p : result.workflow().processes()) {
            if (!counts.containsKey(p.name())) {
                throw new CompileException(List.of(fileName + ":1:1: error: the rank count of process '" + p.name()
                        + "' depends on a parameter without value; give it with --param"));
            }
        }
        Path out = null;
        try {
            out = Files.createTempDirectory("mpfl-compile-");
            BuildWriter.write(result.workflow(), document.getBytes(StandardCharsets.UTF_8), documentDirectory, out);
            ObjectNode plan = (ObjectNode) Json.MAPPER.readTree(out.resolve(BuildWriter.PLAN_FILE).toFile());
            Map<String, byte[]> archives = new LinkedHashMap<>();
            for (JsonNode p : plan.path("processes")) {
                ObjectNode process = (ObjectNode) p;
                // the plan keeps the count as an expression; the engine places the count for this run's params
                process.set("ranksExpression", process.get("ranks"));
                process.put("ranks", counts.get(process.path("name").asText()));
                String archive = process.path("archive").asText(null);
                if (archive != null && Files.isRegularFile(out.resolve(archive))) {
                    archives.put(process.path("service").asText(), Files.readAllBytes(out.resolve(archive)));
                }
            }
            // the values the counts were resolved with, so a stored plan starts with matching params
            plan.set("runParams", Json.MAPPER.valueToTree(result.paramValues()));
            return new Compiled(plan, archives, result.paramValues());
        } catch (IOException e) {
            throw new CompileException(List.of(fileName + ":1:1: error: cannot generate the services: " + e.getMessage()));
        } finally {
            if (out != null) {
                deleteTree(out);
            }
        }
    }

    private static void deleteTree(Path root) {
        try (var s = Files.walk(root)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }

    private static List<String> lines(Diagnostics diagnostics) {
        return diagnostics.sorted().stream().map(Diagnostic::format).toList();
    }
}
