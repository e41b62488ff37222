package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.plan.PlanJson;
import org.mpfl.ir.spi.WorkflowCompiler;

/**
 * {@code mpflc deploy FILE|DIR --engine URL}: compiles if needed, sends the plan and the generated
 * services to the engine in one request, which stores them as a new version of the workflow when they
 * changed (and installs the services on every live host, under the version's names) so runs can name
 * it ({@code NAME} for the latest version, {@code NAME@N} for version N); {@code --project P} names the project a new
 * workflow goes to.
 */
public final class DeployCommand implements CliCommand {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("deploy", "Compiles if needed and stores the plan and the"
            + " generated services in the engine as a new version of the workflow when they changed (run it as NAME or NAME@N).")
            .positional("FILE|DIR", "a document, plan or compiled directory")
            .with(RunParams::declare)
            .value("--project", "P", "the project a new workflow goes to (default: your only project, or an admin's 'default';"
                    + " a new version stays in its workflow's)")
            .with(EngineOptions::client);
    @Override
    public String name() {
        return "deploy";
    }

    @Override
    public String summary() {
        return "FILE|DIR --engine URL  compile if needed and deploy the generated services through the engine";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        Path file = Path.of(args.positional("FILE|DIR"));
        WorkflowInput input;
        try {
            input = WorkflowInput.load(file, RunParams.params(args), RunParams.rawParams(args));
        } catch (WorkflowCompiler.CompileException e) {
            e.diagnostics().forEach(err::println);
            return 1;
        }
        input.warnings().forEach(err::println);
        EngineClient client = EngineOptions.connect(args);
        int failures = 0;
        String name = PlanJson.readPlan(input.plan()).workflow();
        Map<String, Object> wf = new LinkedHashMap<>();
        wf.put("name", name);
        wf.put("plan", input.plan());
        if (args.has("--project")) {
            wf.put("project", args.value("--project"));
        }
        if (input.document() != null) {
            // the document too, so that the engine can draw the workflow (console, GET /api/workflows/{name}/graph)
            wf.put("document", input.document());
        }
        if (!input.archives().isEmpty()) {
            // one request: the archives belong to the version they are deployed for
            wf.put("archives", input.archivesJson());
        }
        JsonNode res = client.post("/api/workflows", wf);
        for (var svc = res.path("deployed").fields(); svc.hasNext();) {
            var s = svc.next();
            for (var h = s.getValue().fields(); h.hasNext();) {
                var host = h.next();
                out.println(s.getKey() + " on " + host.getKey() + ": " + host.getValue().asText());
                failures += host.getValue().asText().startsWith("failed") ? 1 : 0;
            }
        }
        if (input.archives().isEmpty()) {
            out.println("no generated services to deploy (the plan's services must already be on the hosts)");
        }
        out.println("workflow '" + name + "' version " + res.path("version").asInt()
                + (res.path("created").asBoolean() ? " deployed" : " unchanged (same source and services as the latest version)")
                + " at " + client.url() + " (run it with 'mpflc run " + name + " --engine URL' or '" + name + "@"
                + res.path("version").asInt() + "')");
        return failures == 0 ? 0 : 1;
    }
}
