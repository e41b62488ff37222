package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.mpfl.compiler.cli.CliCommand;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.compiler.plan.PlanJson;
import org.mpfl.engine.workflow.WorkflowCompiler;

/**
 * {@code mpflc deploy FILE|DIR --engine URL}: compiles if needed, sends the generated services to the
 * engine (which installs them on every live host) and stores the workflow so runs can name it.
 */
public final class DeployCommand implements CliCommand {
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
        CliArgs args = CliArgs.parse(argList, Set.of("engine", "token-file", "data", TlsSettings.CA), Set.of());
        Path file = Path.of(args.onePositional("FILE or DIR"));
        WorkflowInput input;
        try {
            input = WorkflowInput.load(file, args.params, args.rawParams);
        } catch (WorkflowCompiler.CompileException e) {
            e.diagnostics().forEach(err::println);
            return 1;
        }
        String url = EngineClient.resolveUrl(args.option("engine"), args.option("data"));
        if (url == null) {
            throw new org.mpfl.compiler.cli.UsageException("give --engine URL");
        }
        EngineClient client = new EngineClient(url, EngineClient.resolveToken(args.option("token-file"), args.option("data")), args.tls());
        int failures = 0;
        if (!input.archives().isEmpty()) {
            JsonNode res = client.post("/api/deployments", Map.of("archives", input.archivesJson()));
            for (var svc = res.path("deployed").fields(); svc.hasNext();) {
                var s = svc.next();
                for (var h = s.getValue().fields(); h.hasNext();) {
                    var host = h.next();
                    out.println(s.getKey() + " on " + host.getKey() + ": " + host.getValue().asText());
                    failures += host.getValue().asText().startsWith("failed") ? 1 : 0;
                }
            }
        } else {
            out.println("no generated services to deploy (the plan's services must already be on the hosts)");
        }
        String name = PlanJson.readPlan(input.plan()).workflow();
        Map<String, Object> wf = new LinkedHashMap<>();
        wf.put("name", name);
        wf.put("plan", input.plan());
        if (Files.isRegularFile(file) && file.getFileName().toString().endsWith(".xml")) {
            // the document too, so that the engine can draw the workflow (console, GET /api/workflows/{name}/graph)
            wf.put("document", Files.readString(file, java.nio.charset.StandardCharsets.UTF_8));
        }
        client.post("/api/workflows", wf);
        out.println("workflow '" + name + "' stored at " + client.url());
        return failures == 0 ? 0 : 1;
    }
}
