package org.mpfl.engine.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.mpfl.ir.plan.DeploymentPlan;
import org.mpfl.ir.plan.ParamValues;
import org.mpfl.ir.plan.PlanJson;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.engine.deploy.DeploymentService;
import org.mpfl.engine.deploy.EngineStorageException;
import org.mpfl.engine.deploy.ServiceNames;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.run.Queueing;
import org.mpfl.engine.run.Run;
import org.mpfl.engine.run.RunService;
import org.mpfl.engine.store.WorkflowVersionStore;
import org.mpfl.protocol.digest.Sha256;

/**
 * The workflow use cases: store workflows (an MPFL document, compiled and its services deployed, or a
 * deployment plan), list and read them, and start a run of a plan, a document or a stored workflow.
 * Plans are read with the compiler's {@link PlanJson}; documents are compiled with the engine's
 * {@link WorkflowCompiler}; runs are started by the {@link RunService}.
 */
public final class WorkflowService {
    private final WorkflowVersionStore store;
    private final WorkflowCompiler compiler;
    private final DeploymentService deployments;
    private final RunService runs;

    public WorkflowService(WorkflowVersionStore store, WorkflowCompiler compiler, DeploymentService deployments, RunService runs) {
        this.store = store;
        this.compiler = compiler;
        this.deployments = deployments;
        this.runs = runs;
    }

    /**
     * A workflow to store: a document (compiled now, its generated services deployed) or a plan with
     * the archives of its services.
     *
     * @param name     its name ({@code null}: the plan's workflow name)
     * @param document MPFL XML, or {@code null}
     * @param file     the document's file name for diagnostics ({@code null}: the name)
     * @param plan     a deployment plan as JSON, or {@code null}; used when both are given (the document is
     *                 then stored only to draw the workflow)
     * @param archives the plan's service archives by service type (ignored without a plan: the document is compiled)
     */
    public record SaveWorkflow(String name, String document, String file, JsonNode plan, Map<String, byte[]> archives) {
        public SaveWorkflow {
            archives = archives == null ? Map.of() : archives;
        }

        /** A workflow without archives. */
        public SaveWorkflow(String name, String document, String file, JsonNode plan) {
            this(name, document, file, plan, Map.of());
        }
    }

    /**
     * What to run: exactly one of a plan, a document or the name of a stored workflow is used (in that
     * order of preference).
     *
     * @param plan     a deployment plan as JSON
     * @param document MPFL XML, compiled with {@code params}
     * @param file     the document's file name for diagnostics ({@code null}: {@code workflow.mpfl.xml})
     * @param workflow the name of a stored workflow, {@code NAME} (its latest version) or {@code NAME@N}
     * @param params   parameter values of the run (override the plan's defaults)
     * @param archives service archives to deploy before anything else, by service type
     * @param restarts how many times the run may restart after an infrastructure fault ({@code null}: as the plan says)
     * @param queueing its priority, oversubscription and queue timeout in the run queue
     */
    public record StartRun(JsonNode plan, String document, String file, String workflow, Map<String, Object> params,
                           Map<String, byte[]> archives, Integer restarts, Queueing queueing) {
        public StartRun {
            params = params == null ? Map.of() : params;
            archives = archives == null ? Map.of() : archives;
            queueing = queueing == null ? Queueing.DEFAULT : queueing;
        }

        /** A run queued the default way. */
        public StartRun(JsonNode plan, String document, String file, String workflow, Map<String, Object> params,
                        Map<String, byte[]> archives, Integer restarts) {
            this(plan, document, file, workflow, params, archives, restarts, Queueing.DEFAULT);
        }

        /** A run that restarts as its plan says. */
        public StartRun(JsonNode plan, String document, String file, String workflow, Map<String, Object> params,
                        Map<String, byte[]> archives) {
            this(plan, document, file, workflow, params, archives, null);
        }
    }

    /**
     * A run that gives a param without default no value: not a static error of a document (a plan or a stored workflow
     * has none to speak of), so its own words, one {@code FILE:LINE:COL: error: …} line per such param after them.
     */
    public static final class UnvaluedParamsException extends Exception {
        private static final long serialVersionUID = 1L;

        UnvaluedParamsException(List<String> lines) {
            super("the run cannot start without a value for each param that has no default:\n" + String.join("\n", lines));
        }
    }

    /** No stored workflow of that name, or no such version of it. */
    public static final class UnknownWorkflowException extends Exception {
        private static final long serialVersionUID = 1L;

        public UnknownWorkflowException(String message) {
            super(message);
        }

        static UnknownWorkflowException named(String name) {
            return new UnknownWorkflowException("no workflow '" + name + "'");
        }
    }

    /**
     * What deploying a workflow did.
     *
     * @param name     the workflow
     * @param version  its version now (a new one, or the latest when nothing changed)
     * @param created  whether this deployment made a new version
     * @param deployed per deployed service name, the per-host results
     */
    public record Deployed(String name, int version, boolean created, Map<String, Map<String, String>> deployed) {
    }

    /** A stored workflow's picture ({@link WorkflowCompiler#graphDot}) as DOT or, rendered by Graphviz, SVG. */
    public record Graph(String contentType, String text) {
    }

    /** {@code given} over the stored plan's parameter defaults (those of the deployment), or {@code given} without a plan. */
    private static Map<String, Object> storedDefaults(WorkflowVersionStore.StoredWorkflow w, Map<String, Object> given)
            throws EngineStorageException {
        if (w.plan() == null) {
            return given;
        }
        Map<String, Object> values = new java.util.LinkedHashMap<>(storedPlan(w).paramValues(Map.of()));
        values.values().removeIf(java.util.Objects::isNull);
        values.putAll(given);
        return values;
    }

    /** A workflow stored as a plan only: there is no document to draw. */
    public static final class NoDocumentException extends Exception {
        private static final long serialVersionUID = 1L;

        public NoDocumentException(String message) {
            super(message);
        }
    }

    /**
     * The picture of a stored workflow, from its document with its parameters' defaults.
     *
     * @param svg SVG through Graphviz's {@code dot} (a {@link NoRendererException} without it), else the DOT text
     */
    public Graph graph(String name, boolean svg) throws UnknownWorkflowException, NoDocumentException,
            WorkflowCompiler.CompileException, NoRendererException, IOException, InterruptedException {
        WorkflowVersionStore.StoredWorkflow w = get(name);
        if (w.document() == null) {
            throw new NoDocumentException("workflow '" + name + "' was stored as a plan without its document, so there is "
                    + "nothing to draw: deploy it from its MPFL document (mpflc deploy FILE.mpfl.xml)");
        }
        String dot = compiler.graphDot(name + ".mpfl.xml", w.document(), storedDefaults(w, Map.of()));
        if (!svg) {
            return new Graph("text/vnd.graphviz; charset=utf-8", dot);
        }
        try {
            return new Graph("image/svg+xml", compiler.svg(dot));
        } catch (WorkflowCompiler.RendererUnavailableException e) {
            throw new NoRendererException(e.getMessage());
        }
    }

    /** SVG was asked for and Graphviz is missing or failed; the message says how to get it. */
    public static final class NoRendererException extends Exception {
        private static final long serialVersionUID = 1L;

        public NoRendererException(String message) {
            super(message);
        }
    }

    /** Stored workflows by name (their latest versions). */
    public List<WorkflowVersionStore.StoredWorkflow> list() {
        return store.all();
    }

    /**
     * A stored workflow: {@code NAME} (its latest version) or {@code NAME@N} (version N).
     *
     * @throws UnknownWorkflowException if there is no such workflow or version
     * @throws IllegalArgumentException if the version after {@code @} is not a positive number
     */
    public WorkflowVersionStore.StoredWorkflow get(String reference) throws UnknownWorkflowException {
        int at = reference.lastIndexOf('@');
        if (at < 0) {
            return store.latest(reference).orElseThrow(() -> UnknownWorkflowException.named(reference));
        }
        String name = reference.substring(0, at);
        String v = reference.substring(at + 1);
        int version;
        try {
            version = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            version = -1;
        }
        if (version < 1) {
            throw new IllegalArgumentException("bad workflow version '" + v + "' in '" + reference
                    + "' (NAME@N with N = 1, 2, 3 …; NAME alone is the latest)");
        }
        Optional<WorkflowVersionStore.StoredWorkflow> w = store.version(name, version);
        if (w.isPresent()) {
            return w.get();
        }
        WorkflowVersionStore.StoredWorkflow latest = store.latest(name).orElseThrow(() -> UnknownWorkflowException.named(name));
        throw new UnknownWorkflowException("workflow '" + name + "' has no version " + version + " (versions 1 to "
                + latest.version() + ")");
    }

    /** Every version of a workflow, oldest first (no documents or plans). */
    public List<WorkflowVersionStore.StoredWorkflow> versions(String name) throws UnknownWorkflowException {
        List<WorkflowVersionStore.StoredWorkflow> all = store.versions(name);
        if (all.isEmpty()) {
            throw UnknownWorkflowException.named(name);
        }
        return all;
    }

    /**
     * Deploys a workflow: a new version when it changed (another document or plan, or other archives
     * than the latest version's), the latest version again otherwise. The services of version N are
     * deployed under their own names ({@link ServiceNames#ofVersion}), so the runs of earlier versions
     * keep theirs; no version's services are ever taken off the hosts here.
     *
     * @return the version and what deploying did
     * @throws IllegalArgumentException if it has neither document nor plan
     * @throws IOException if the plan is not a deployment plan, an archive is not one, or deploying failed
     * @throws WorkflowCompiler.CompileException if the document has static errors
     */
    public Deployed save(SaveWorkflow request) throws IOException, WorkflowCompiler.CompileException {
        return save(request, DEFAULT_PROJECT);
    }

    /** The project of what is deployed or run without naming one (as for admins and the admin token). */
    private static final String DEFAULT_PROJECT = "default";

    /**
     * Deploys a workflow for a project: its services' archives become that project's
     * ({@link DeploymentService#deployAllAs(Map, String)}), so that runs of other projects are never placed on them.
     *
     * @see #save(SaveWorkflow)
     * @throws DeploymentService.ServiceTakenException if a service name holds another project's archive
     */
    public synchronized Deployed save(SaveWorkflow request, String project) throws IOException, WorkflowCompiler.CompileException {
        String document = request.document();
        JsonNode plan = present(request.plan()) ? request.plan() : null;
        if (document == null && plan == null) {
            throw new IllegalArgumentException("a workflow needs 'document' (MPFL XML) or 'plan' (deployment plan JSON)");
        }
        String name = request.name();
        String planText;
        String sourceSha;
        Map<String, byte[]> archives;
        if (plan != null) {
            // a plan compiled by the client (mpflc deploy): it and its archives are what runs, since the
            // document may use libraries that only the client's machine has; the document rides along
            // to draw the workflow
            DeploymentPlan parsed = PlanJson.readPlan(plan);
            name = name == null ? parsed.workflow() : name;
            planText = Json.write(plan); // as given
            sourceSha = parsed.sourceSha256() != null && !parsed.sourceSha256().isBlank() ? parsed.sourceSha256()
                    : Sha256.hex(planText);
            archives = request.archives();
        } else {
            String file = request.file() != null ? request.file() : name == null ? "workflow.mpfl.xml" : name;
            WorkflowCompiler.Compiled c = compiler.compile(file, document, Map.of());
            name = name == null ? c.plan().workflow() : name;
            planText = Json.write(c.planJson());
            sourceSha = Sha256.hex(document);
            archives = c.archives();
        }
        // the language's workflow@name (a name with a space or '/' was stored, its services left unqualified, and its
        // Location and GET /api/workflows/NAME could not name it)
        if (!isName(name)) {
            throw new IllegalArgumentException(badName(name));
        }
        // what decides "changed": the source (or the plan when there is none) and every archive
        StringBuilder content = new StringBuilder(plan == null ? "document\n" + document : "plan\n" + planText);
        if (plan != null && document != null) {
            content.append("\ndocument\n").append(document);
        }
        new TreeMap<>(archives).forEach((type, bytes) -> content.append("\narchive ").append(type).append(' ')
                .append(Sha256.hex(bytes)));
        String contentSha = Sha256.hex(content.toString());
        Optional<WorkflowVersionStore.StoredWorkflow> latest = store.latest(name);
        boolean created = latest.isEmpty() || !latest.get().contentSha256().equals(contentSha);
        int version = created ? latest.map(w -> w.version() + 1).orElse(1) : latest.get().version();
        Map<String, String> names = serviceNames(latest.filter(w -> !created).orElse(null), name, version, archives.keySet());
        // deployed before the version is recorded: a version never names services that were not sent
        Map<String, Map<String, String>> results = deployments.deployAllAs(byName(archives, names), project);
        if (created) {
            store.save(new WorkflowVersionStore.StoredWorkflow(name, version, System.currentTimeMillis(), sourceSha, contentSha,
                    document, planText, Json.write(names)));
        }
        return new Deployed(name, version, created, results);
    }

    /** The deployed names of a version's services: as recorded, else qualified by workflow and version. */
    private static Map<String, String> serviceNames(WorkflowVersionStore.StoredWorkflow recorded, String name, int version,
                                                    java.util.Collection<String> types) throws IOException {
        Map<String, String> names = new LinkedHashMap<>(recorded == null ? Map.of() : recordedNames(recorded));
        boolean legacy = recorded != null && recorded.services() == null;
        for (String type : types) {
            names.putIfAbsent(type, legacy ? type : ServiceNames.ofVersion(name, version, type));
        }
        return names;
    }

    private static Map<String, String> recordedNames(WorkflowVersionStore.StoredWorkflow w) throws EngineStorageException {
        Map<String, String> names = storedServiceNames(w);
        return names == null ? Map.of() : names; // none: a version from before versions existed, plain names
    }

    /**
     * The deployed names a version recorded for its services (service type → name), {@code null} for a version from
     * before versions existed; read as {@link #storedJson} reads (what is no map of names is the engine's failure).
     */
    public static Map<String, String> storedServiceNames(WorkflowVersionStore.StoredWorkflow w) throws EngineStorageException {
        JsonNode names = storedJson(w, "service names", w.services());
        if (names == null) {
            return null;
        }
        if (!names.isObject()) {
            throw unreadable(w, "service names", new IOException("a JSON " + names.getNodeType() + ", not an object of names"));
        }
        try {
            return Json.MAPPER.readerFor(new com.fasterxml.jackson.core.type.TypeReference<LinkedHashMap<String, String>>() { })
                    .readValue(names);
        } catch (IOException e) {
            throw unreadable(w, "service names", e);
        }
    }

    private static Map<String, byte[]> byName(Map<String, byte[]> archives, Map<String, String> names) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        archives.forEach((type, bytes) -> out.put(names.getOrDefault(type, type), bytes));
        return out;
    }

    /**
     * Starts a run: deploys the archives given, works out the plan (reads it, compiles the document, or
     * takes the stored workflow version's document or plan), deploys what a compilation generated, and
     * hands the plan to the run service. Archives sent with a run are deployed under names of their own
     * ({@link ServiceNames#ofArchive}); a stored version's under the version's names.
     *
     * @return the run, PENDING
     * @throws IllegalArgumentException if there is nothing to run or the rank counts cannot be worked out
     * @throws IOException if the plan is not a deployment plan, or deploying failed
     * @throws WorkflowCompiler.CompileException if the document has static errors
     * @throws UnknownWorkflowException if the stored workflow or version named does not exist
     * @throws UnvaluedParamsException if a param without default is given no value (nothing of the run's own is deployed)
     */
    public Run start(StartRun request) throws IOException, WorkflowCompiler.CompileException, UnknownWorkflowException,
            UnvaluedParamsException {
        return start(request, null);
    }

    /**
     * Starts a run of a project: what it deploys becomes the project's, and its ranks are placed only on services the
     * project may use ({@link DeploymentService#usableBy}): a plan naming another project's deployed service is
     * placed nowhere, exactly as one naming a service that does not exist.
     *
     * @param project the project whose services the run may use and to which what it deploys belongs: the run's, or for
     *                a stored workflow the workflow's; {@code null}: a run started inside the engine's JVM, placed on any
     *                service
     * @see #start(StartRun)
     */
    public Run start(StartRun request, String project) throws IOException, WorkflowCompiler.CompileException,
            UnknownWorkflowException, UnvaluedParamsException {
        String owner = project == null ? DEFAULT_PROJECT : project;
        Map<String, Object> params = request.params();
        DeploymentPlan plan;
        Integer version = null;
        Map<String, String> names;
        if (present(request.plan())) {
            plan = PlanJson.readPlan(request.plan());
            requireValues(plan, params);
            names = deployOwn(plan.workflow(), request.archives(), owner);
        } else if (request.document() != null) {
            String file = request.file() != null ? request.file() : "workflow.mpfl.xml";
            deployments.deployAll(request.archives(), owner);
            WorkflowCompiler.Compiled c = compiler.compile(file, request.document(), params);
            plan = c.plan();
            params = c.params();
            requireValues(plan, params);
            names = deployOwn(plan.workflow(), c.archives(), owner);
        } else if (request.workflow() != null) {
            deployments.deployAll(request.archives(), owner);
            WorkflowVersionStore.StoredWorkflow w = get(request.workflow());
            version = w.version();
            DeploymentPlan stored = w.plan() == null ? null : storedPlan(w);
            if (w.document() != null && (stored == null || stored.libraries().isEmpty())) {
                // compiled again with this run's values over the deployment's (mpflc deploy --param), so the
                // static checks see them; a document with libraries cannot be compiled here (they are on the
                // deploying machine) and runs from the plan and archives compiled there
                WorkflowCompiler.Compiled c = compiler.compile(w.name(), w.document(), storedDefaults(w, params));
                plan = storedAs(c.plan(), w.name());
                params = c.params();
                requireValues(plan, params);
                names = serviceNames(w, w.name(), w.version(), c.archives().keySet());
                // the stored archives are these; deploying again reaches hosts that joined since (a no-op elsewhere)
                deployments.deployAllAs(byName(c.archives(), names), owner);
            } else {
                plan = storedAs(stored, w.name());
                requireValues(plan, params);
                names = recordedNames(w);
            }
        } else {
            throw new IllegalArgumentException("a run needs 'plan', 'document' or 'workflow'");
        }
        return runs.start(plan, params, version, names, request.restarts(), request.queueing(), project);
    }

    /**
     * Refuses a run that gives a required param no value, before its own archives are deployed, at the param's
     * {@code <param>} and naming the request's field: each of its ranks would fail at its start, saying nothing of where
     * the param is declared.
     */
    private static void requireValues(DeploymentPlan plan, Map<String, Object> params) throws UnvaluedParamsException {
        List<String> unvalued = plan.unvaluedParams(params, ParamValues.Naming.JSON_FIELD);
        if (!unvalued.isEmpty()) {
            throw new UnvaluedParamsException(unvalued);
        }
    }

    /**
     * The plan under the name its workflow is stored as: a document named "ring" saved as "sim" runs as "sim", so
     * that the run's workflow and version ("sim", 2) name what was run (and the console links to it), not another
     * stored workflow or one of another project.
     */
    private static DeploymentPlan storedAs(DeploymentPlan p, String name) {
        if (p == null || name.equals(p.workflow())) {
            return p;
        }
        return new DeploymentPlan(p.formatVersion(), name, p.version(), p.description(), p.source(), p.sourceSha256(), p.compiler(),
                p.params(), p.libraries(), p.processes(), p.restarts());
    }

    /** Deploys the archives sent with one run under names of their own; returns them by service type. */
    private Map<String, String> deployOwn(String workflow, Map<String, byte[]> archives, String project) throws IOException {
        Map<String, String> names = new LinkedHashMap<>();
        archives.forEach((type, bytes) -> names.put(type, ServiceNames.ofArchive(workflow, bytes, type)));
        deployments.deployAllAs(byName(archives, names), project);
        return names;
    }

    private static boolean present(JsonNode n) {
        return n != null && !n.isNull();
    }

    /** The stored plan of a workflow as JSON, if it has one. */
    public static Optional<JsonNode> planJson(WorkflowVersionStore.StoredWorkflow w) throws EngineStorageException {
        return w.plan() == null ? Optional.empty() : Optional.of(storedJson(w, "plan", w.plan()));
    }

    /**
     * JSON the engine stored with a workflow version ({@code what}: "plan", "service names"), {@code null} for none. It
     * was written by the engine, checked, when the version was saved: what cannot be read now is the engine's failure
     * (its store altered or damaged), never the client's.
     */
    public static JsonNode storedJson(WorkflowVersionStore.StoredWorkflow w, String what, String text) throws EngineStorageException {
        if (text == null) {
            return null;
        }
        try {
            JsonNode json = Json.MAPPER.readTree(text);
            if (json == null || json.isMissingNode()) {
                // Jackson reads an empty text as no value rather than failing: the engine never stores one
                throw new IOException("no JSON value (the stored text is empty)");
            }
            return json;
        } catch (IOException e) {
            throw unreadable(w, what, e);
        }
    }

    /** The stored plan of a version that has one, as a plan ({@link #storedJson}: the engine's failure if unreadable). */
    private static DeploymentPlan storedPlan(WorkflowVersionStore.StoredWorkflow w) throws EngineStorageException {
        JsonNode plan = storedJson(w, "plan", w.plan());
        try {
            return PlanJson.readPlan(plan);
        } catch (IOException e) {
            // e.g. a plan format an older engine stored that this one no longer reads
            throw unreadable(w, "plan", e);
        }
    }

    private static EngineStorageException unreadable(WorkflowVersionStore.StoredWorkflow w, String what, IOException e) {
        return new EngineStorageException("the stored " + what + " of version " + w.version() + " of workflow '" + w.name()
                + "' cannot be read", e);
    }

    /** Whether {@code name} may name a stored workflow (see {@link #badName}). */
    public static boolean isName(String name) {
        return name != null && name.length() <= 256 && ServiceNames.MPFL_NAME.matcher(name).matches();
    }

    /**
     * Why {@code name} is no workflow name: MPFL's grammar for {@code workflow@name} ({@code [A-Za-z][A-Za-z0-9_-]*},
     * docs/language-reference.md), at most 256 characters; the REST API refuses a request's {@code name} with it.
     */
    public static String badName(String name) {
        return "a workflow name is a letter, then letters, digits, '_' or '-' (as the document's workflow@name), at most 256"
                + " characters; not '" + name + "'";
    }
}
