package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.PlanJson;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.workflow.Compilers;

/**
 * What the command line sends to the engine for a FILE argument: an MPFL document is checked and
 * compiled here (static errors stop it before anything starts); a {@code .json} file is taken as a
 * deployment plan; a directory as the output of {@code mpflc compile} (one plan {@code .json} and
 * the generated {@code .aar} archives).
 *
 * <p>A compiled document keeps its plan as the object the compiler made: its JSON is written only when it is
 * sent ({@link #plan}), and ranks in this JVM run from the object ({@link #load} with {@code forThisJvm}).
 */
final class WorkflowInput {
    private final DeploymentPlan compiledPlan;
    private JsonNode planJson;
    private final Map<String, byte[]> archives;
    private final Map<String, Object> params;
    private final boolean programsInPlan;
    private final String document;
    private final List<String> warnings;

    /**
     * @param compiledPlan   the plan as the compiler made it ({@code null}: read from {@code planJson})
     * @param planJson       the plan as read from a file ({@code null}: written from {@code compiledPlan} when asked)
     * @param archives       generated services by service type
     * @param params         parameter values to send with the run: typed by the compiler for a document, as
     *                       typed on the command line otherwise
     * @param programsInPlan the archives were left out for ranks in this JVM, which run the plan's programs
     * @param document       the document's text as the compiler read it ({@code null}: a plan was given)
     * @param warnings       the compiler's warnings about the document
     */
    private WorkflowInput(DeploymentPlan compiledPlan, JsonNode planJson, Map<String, byte[]> archives,
                          Map<String, Object> params, boolean programsInPlan, String document, List<String> warnings) {
        this.compiledPlan = compiledPlan;
        this.planJson = planJson;
        this.archives = archives;
        this.params = params;
        this.programsInPlan = programsInPlan;
        this.document = document;
        this.warnings = warnings;
    }

    /**
     * @param params    parameter values guessed into JSON types (for plans, which carry no declarations)
     * @param rawParams the same values as typed, for the compiler to type by the declarations
     */
    static WorkflowInput load(Path file, Map<String, Object> params, Map<String, Object> rawParams)
            throws IOException, WorkflowCompiler.CompileException {
        return load(file, params, rawParams, false, null);
    }

    /**
     * @param forThisJvm   the run's ranks are to be threads of this JVM: a document is compiled for them
     *                     ({@link WorkflowCompiler#compileForThisJvm}: no archives unless it has libraries)
     * @param kernelPython the interpreter the run's Python kernels will run in, which parses their modules
     *                     first ({@link WorkflowCompiler#checkingPythonKernelsWith}); {@code null}: not known here
     */
    static WorkflowInput load(Path file, Map<String, Object> params, Map<String, Object> rawParams, boolean forThisJvm,
                              String kernelPython) throws IOException, WorkflowCompiler.CompileException {
        if (Files.isDirectory(file)) {
            return fromDirectory(file, params);
        }
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + ": no such file");
        }
        if (file.getFileName().toString().endsWith(".json")) {
            JsonNode plan = readPlan(file);
            return new WorkflowInput(null, plan, archivesNextTo(file.getParent(), plan), params, false, null, List.of());
        }
        WorkflowCompiler compiler = Compilers.forFile(file);
        // as the parser reads it (the encoding its XML declaration names), so that run and deploy take what check took
        String document = compiler.documentText(file.toString(), Files.readAllBytes(file));
        if (kernelPython != null) {
            compiler = compiler.checkingPythonKernelsWith(kernelPython);
        }
        WorkflowCompiler.Compiled c = forThisJvm ? compiler.compileForThisJvm(file.toString(), document, rawParams)
                : compiler.compile(file.toString(), document, rawParams);
        return new WorkflowInput(c.plan(), null, c.archives(), c.params(), forThisJvm, document, c.warnings());
    }

    /** The deployment plan as JSON (what the engine takes). */
    synchronized JsonNode plan() {
        if (planJson == null) {
            planJson = PlanJson.mapper().valueToTree(compiledPlan);
        }
        return planJson;
    }

    /** The deployment plan as an object (read from its JSON if it came from a file). */
    DeploymentPlan deploymentPlan() throws IOException {
        return compiledPlan != null ? compiledPlan : PlanJson.readPlan(plan());
    }

    /** Generated services by service type. */
    Map<String, byte[]> archives() {
        return archives;
    }

    /** Parameter values to send with the run. */
    Map<String, Object> params() {
        return params;
    }

    /** The document's text as the compiler read it, or {@code null} when a plan was given. */
    String document() {
        return document;
    }

    /**
     * The compiler's warnings about the document ({@code FILE:LINE:COL: warning: message}), for the command
     * to print before it goes ahead as {@code mpflc check} would; none for a plan.
     */
    List<String> warnings() {
        return warnings;
    }

    /** Whether the archives were left out for ranks in this JVM, which run the plan's own programs. */
    boolean programsInPlan() {
        return programsInPlan;
    }

    private static WorkflowInput fromDirectory(Path dir, Map<String, Object> params) throws IOException {
        List<Path> plans = new ArrayList<>();
        try (var s = Files.list(dir)) {
            s.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().forEach(plans::add);
        }
        if (plans.size() != 1) {
            List<String> documents = new ArrayList<>();
            try (var s = Files.list(dir)) {
                s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".mpfl.xml")).sorted().forEach(documents::add);
            }
            // a sample's directory holds its document, not a compiled plan: name what to run instead
            throw new IOException(dir + ": expected one deployment plan (.json) in the directory (mpflc compile's output),"
                    + " found " + plans.size() + (documents.isEmpty() ? "" : "; to run a document, name it: "
                    + String.join(", ", documents.stream().map(n -> dir.resolve(n).toString()).toList())));
        }
        JsonNode plan = readPlan(plans.get(0));
        return new WorkflowInput(null, plan, archivesNextTo(dir, plan), params, false, null, List.of());
    }

    /**
     * A deployment plan's JSON, or an error that names the file (and for malformed JSON its line and column): any
     * {@code .json} was sent as it was, so a trace or a truncated plan got the engine's {@code plan 'workflow' has no
     * processes}, or the JSON parser's words with the file {@code REDACTED}.
     */
    static JsonNode readPlan(Path file) throws IOException {
        JsonNode plan;
        try {
            plan = Json.MAPPER.readTree(file.toFile());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            var at = e.getLocation();
            throw new IOException(file + (at == null ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr())
                    + ": malformed JSON (" + e.getOriginalMessage() + "); a deployment plan is what mpflc compile writes"
                    + " (plan.json)", e);
        }
        if (plan == null || !plan.path("processes").isArray()) {
            throw new IOException(file + ": not a deployment plan (it has no 'processes'); a deployment plan is what mpflc"
                    + " compile writes (plan.json)");
        }
        return plan;
    }

    /**
     * The archives next to a plan, by the service type they provide: a process's archive is the file its
     * {@code archive} names ({@code mpflc compile} writes {@code solver.aar} for process {@code solver}, whose
     * service may be {@code HeatSolver}); any other {@code NAME.aar} is taken as service {@code NAME}.
     */
    private static Map<String, byte[]> archivesNextTo(Path dir, JsonNode planJson) throws IOException {
        Map<String, byte[]> out = new LinkedHashMap<>();
        if (dir == null) {
            return out;
        }
        Map<String, String> serviceOfArchive = new LinkedHashMap<>();
        for (JsonNode process : planJson.path("processes")) {
            if (process.hasNonNull("archive") && process.hasNonNull("service")) {
                serviceOfArchive.put(process.get("archive").asText(), process.get("service").asText());
            }
        }
        try (var s = Files.list(dir)) {
            for (Path p : s.filter(p -> p.getFileName().toString().endsWith(".aar")).sorted().toList()) {
                String name = p.getFileName().toString();
                out.put(serviceOfArchive.getOrDefault(name, name.substring(0, name.length() - 4)), Files.readAllBytes(p));
            }
        }
        return out;
    }

    /** The archives as the REST API takes them. */
    List<Map<String, String>> archivesJson() {
        List<Map<String, String>> out = new ArrayList<>();
        archives.forEach((service, bytes) -> out.add(Map.of("service", service, "archive", Base64.getEncoder().encodeToString(bytes))));
        return out;
    }
}
