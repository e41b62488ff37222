package org.mpfl.engine.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.mpfl.compiler.plan.DeploymentPlan;
import org.mpfl.compiler.plan.PlanJson;
import org.mpfl.engine.deploy.DeploymentService;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.run.Run;
import org.mpfl.engine.run.RunService;
import org.mpfl.engine.store.RunStore;

/**
 * The workflow use cases: store workflows (an MPFL document, compiled and its services deployed, or a
 * deployment plan), list and read them, and start a run of a plan, a document or a stored workflow.
 * Plans are read with the compiler's {@link PlanJson}; documents are compiled with the engine's
 * {@link WorkflowCompiler}; runs are started by the {@link RunService}.
 */
public final class WorkflowService {
    private final RunStore store;
    private final WorkflowCompiler compiler;
    private final DeploymentService deployments;
    private final RunService runs;

    public WorkflowService(RunStore store, WorkflowCompiler compiler, DeploymentService deployments, RunService runs) {
        this.store = store;
        this.compiler = compiler;
        this.deployments = deployments;
        this.runs = runs;
    }

    /**
     * A workflow to store: a document (compiled now, its generated services deployed) or a plan.
     *
     * @param name     its name ({@code null}: the plan's workflow name)
     * @param document MPFL XML, or {@code null}
     * @param file     the document's file name for diagnostics ({@code null}: the name)
     * @param plan     a deployment plan as JSON, or {@code null}; used when both are given
     */
    public record SaveWorkflow(String name, String document, String file, JsonNode plan) {
    }

    /**
     * What to run: exactly one of a plan, a document or the name of a stored workflow is used (in that
     * order of preference).
     *
     * @param plan     a deployment plan as JSON
     * @param document MPFL XML, compiled with {@code params}
     * @param file     the document's file name for diagnostics ({@code null}: {@code workflow.mpfl.xml})
     * @param workflow the name of a stored workflow
     * @param params   parameter values of the run (override the plan's defaults)
     * @param archives service archives to deploy before anything else, by service type
     * @param restarts how many times the run may restart after an infrastructure fault ({@code null}: as the plan says)
     */
    public record StartRun(JsonNode plan, String document, String file, String workflow, Map<String, Object> params,
                           Map<String, byte[]> archives, Integer restarts) {
        public StartRun {
            params = params == null ? Map.of() : params;
            archives = archives == null ? Map.of() : archives;
        }

        /** A run that restarts as its plan says. */
        public StartRun(JsonNode plan, String document, String file, String workflow, Map<String, Object> params,
                        Map<String, byte[]> archives) {
            this(plan, document, file, workflow, params, archives, null);
        }
    }

    /** No stored workflow of that name. */
    public static final class UnknownWorkflowException extends Exception {
        private static final long serialVersionUID = 1L;

        public UnknownWorkflowException(String name) {
            super("no workflow '" + name + "'");
        }
    }

    /** Stored workflows by name. */
    public List<RunStore.StoredWorkflow> list() {
        return store.workflows();
    }

    /** A stored workflow. */
    public RunStore.StoredWorkflow get(String name) throws UnknownWorkflowException {
        return store.workflow(name).orElseThrow(() -> new UnknownWorkflowException(name));
    }

    /**
     * Stores a workflow (replacing one of the same name).
     *
     * @return its name
     * @throws IllegalArgumentException if it has neither document nor plan
     * @throws IOException if the plan is not a deployment plan, or deploying failed
     * @throws WorkflowCompiler.CompileException if the document has static errors
     */
    public String save(SaveWorkflow request) throws IOException, WorkflowCompiler.CompileException {
        String document = request.document();
        JsonNode plan = present(request.plan()) ? request.plan() : null;
        if (document == null && plan == null) {
            throw new IllegalArgumentException("a workflow needs 'document' (MPFL XML) or 'plan' (deployment plan JSON)");
        }
        String name = request.name();
        String planText;
        if (plan != null) {
            DeploymentPlan parsed = PlanJson.readPlan(plan);
            name = name == null ? parsed.workflow() : name;
            planText = Json.write(plan); // as given
        } else {
            String file = request.file() != null ? request.file() : name == null ? "workflow.mpfl.xml" : name;
            WorkflowCompiler.Compiled c = compiler.compile(file, document, Map.of());
            name = name == null ? c.plan().workflow() : name;
            deployments.deployAll(c.archives());
            planText = Json.write(c.planJson());
        }
        store.saveWorkflow(name, document, planText, System.currentTimeMillis());
        return name;
    }

    /**
     * Starts a run: deploys the archives given, works out the plan (reads it, compiles the document, or
     * takes the stored workflow's document or plan), deploys what a compilation generated, and hands the
     * plan to the run service.
     *
     * @return the run, PENDING
     * @throws IllegalArgumentException if there is nothing to run or the rank counts cannot be worked out
     * @throws IOException if the plan is not a deployment plan, or deploying failed
     * @throws WorkflowCompiler.CompileException if the document has static errors
     * @throws UnknownWorkflowException if the stored workflow named does not exist
     */
    public Run start(StartRun request) throws IOException, WorkflowCompiler.CompileException, UnknownWorkflowException {
        deployments.deployAll(request.archives());
        Map<String, Object> params = request.params();
        DeploymentPlan plan;
        if (present(request.plan())) {
            plan = PlanJson.readPlan(request.plan());
        } else if (request.document() != null) {
            String file = request.file() != null ? request.file() : "workflow.mpfl.xml";
            WorkflowCompiler.Compiled c = compileAndDeploy(file, request.document(), params);
            plan = c.plan();
            params = c.params();
        } else if (request.workflow() != null) {
            RunStore.StoredWorkflow w = get(request.workflow());
            if (w.document() != null) {
                WorkflowCompiler.Compiled c = compileAndDeploy(w.name(), w.document(), params);
                plan = c.plan();
                params = c.params();
            } else {
                plan = PlanJson.readPlan(Json.MAPPER.readTree(w.plan()));
            }
        } else {
            throw new IllegalArgumentException("a run needs 'plan', 'document' or 'workflow'");
        }
        return runs.start(plan, params, request.restarts());
    }

    private WorkflowCompiler.Compiled compileAndDeploy(String file, String document, Map<String, Object> params)
            throws IOException, WorkflowCompiler.CompileException {
        WorkflowCompiler.Compiled c = compiler.compile(file, document, params);
        deployments.deployAll(c.archives());
        return c;
    }

    private static boolean present(JsonNode n) {
        return n != null && !n.isNull();
    }

    /** The stored plan of a workflow as JSON, if it has one. */
    public static Optional<JsonNode> planJson(RunStore.StoredWorkflow w) throws IOException {
        return w.plan() == null ? Optional.empty() : Optional.of(Json.MAPPER.readTree(w.plan()));
    }
}
