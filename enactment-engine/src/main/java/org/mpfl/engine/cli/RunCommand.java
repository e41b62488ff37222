package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.mpfl.compiler.cli.CliCommand;
import org.mpfl.compiler.cli.UsageException;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.engine.workflow.WorkflowCompiler;

/**
 * {@code mpflc run FILE [--param k=v]… (--engine URL | --local [--hosts N]) [--json]}: starts a run,
 * follows it with a progress bar on stderr, prints the outputs; exit 0 only if the run SUCCEEDED.
 * {@code --local} starts an embedded engine and N local service hosts for this run only
 * ({@code --service NAME=CLASS} publishes a hand-written {@code RankProgram} on them). Also
 * {@code --token-file F}/{@code --data DIR} (engine token; or {@code $MPFL_ENGINE_TOKEN}), {@code --timeout S} (cancel after S seconds)
 * and {@code --restarts N} (how often the run may restart after an infrastructure fault; overrides the
 * workflow's {@code restarts}).
 */
public final class RunCommand implements CliCommand {
    static final Set<String> VALUE_OPTIONS = Set.of("engine", "hosts", "token-file", "data", "timeout", "service", "restarts",
            org.mpfl.protocol.tls.TlsSettings.CA);
    static final Set<String> FLAGS = Set.of("local", "json");

    @Override
    public String name() {
        return "run";
    }

    @Override
    public String summary() {
        return "FILE [--param k=v]... (--engine URL | --local [--hosts N]) [--json]  start a run and follow it";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        CliArgs args = CliArgs.parse(argList, VALUE_OPTIONS, FLAGS);
        Path file = Path.of(args.onePositional("FILE"));
        boolean local = args.flag("local");
        if (local == (args.option("engine") != null)) {
            throw new UsageException("give exactly one of --engine URL or --local");
        }
        int hosts = args.intOption("hosts", 2);
        if (hosts < 1) {
            throw new UsageException("--hosts must be at least 1");
        }
        int timeoutS = args.intOption("timeout", 0);
        Integer restarts = args.option("restarts") == null ? null : args.intOption("restarts", 0);
        if (restarts != null && restarts < 0) {
            throw new UsageException("--restarts must be at least 0");
        }
        boolean json = args.flag("json");

        WorkflowInput input;
        try {
            input = WorkflowInput.load(file, args.params, args.rawParams);
        } catch (WorkflowCompiler.CompileException e) {
            e.diagnostics().forEach(err::println);
            return 1;
        }

        LocalCluster cluster = null;
        Path localData = null;
        try {
            EngineClient client;
            if (local) {
                localData = Files.createTempDirectory("mpfl-local-");
                if (!json) {
                    err.println("mpflc run: starting a local engine and " + hosts + " service host(s)...");
                }
                cluster = LocalCluster.start(new EngineConfig().port(0).dataDir(localData), hosts, args.services,
                        Duration.ofSeconds(60));
                client = new EngineClient(cluster.engine().url(), cluster.engine().token());
            } else {
                if (!args.services.isEmpty()) {
                    throw new UsageException("--service applies to the hosts of --local only");
                }
                client = new EngineClient(args.option("engine"),
                        EngineClient.resolveToken(args.option("token-file"), args.option("data")), args.tls());
            }
            Map<String, Object> start = new LinkedHashMap<>();
            start.put("plan", input.plan());
            start.put("params", input.params());
            if (restarts != null) {
                start.put("restarts", restarts);
            }
            if (!input.archives().isEmpty()) {
                start.put("archives", input.archivesJson());
            }
            JsonNode started = client.post("/api/runs", start);
            String id = started.get("id").asText();
            JsonNode last = RunFollower.follow(client, id, timeoutS, json ? null : err);
            return report(last, out, err, json);
        } finally {
            if (cluster != null) {
                cluster.close();
            }
            if (localData != null) {
                deleteTree(localData);
            }
        }
    }

    static int report(JsonNode run, PrintStream out, PrintStream err, boolean json) {
        String state = run.path("state").asText();
        JsonNode error = run.get("error");
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("run", run.path("id").asText());
            m.put("state", state);
            m.put("outputs", run.has("outputs") ? run.get("outputs") : Json.MAPPER.createObjectNode());
            if (error == null || error.isNull()) {
                m.put("error", null);
            } else {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("rank", error.get("rank") == null || error.get("rank").isNull() ? null : error.get("rank").asInt());
                e.put("location", error.get("location") == null || error.get("location").isNull() ? null : error.get("location").asText());
                e.put("message", error.path("message").asText());
                m.put("error", e);
            }
            m.put("elapsedMs", run.path("elapsedMs").asLong());
            out.println(Json.write(m));
        } else {
            JsonNode outputs = run.path("outputs");
            outputs.fields().forEachRemaining(o -> {
                JsonNode byRank = o.getValue();
                if (byRank.size() == 1) {
                    out.println(o.getKey() + " = " + byRank.elements().next());
                } else {
                    byRank.fields().forEachRemaining(r -> out.println(o.getKey() + "[" + r.getKey() + "] = " + r.getValue()));
                }
            });
            if (!state.equals("SUCCEEDED")) {
                err.println("mpflc run: run " + run.path("id").asText() + " " + state + describeError(error));
            }
        }
        return state.equals("SUCCEEDED") ? 0 : 1;
    }

    static String describeError(JsonNode error) {
        if (error == null || error.isNull()) {
            return "";
        }
        StringBuilder sb = new StringBuilder(":");
        if (error.hasNonNull("rank")) {
            sb.append(" rank ").append(error.get("rank").asInt());
        }
        if (error.hasNonNull("location")) {
            sb.append(" at ").append(error.get("location").asText());
        }
        sb.append(sb.length() > 1 ? ": " : " ").append(error.path("message").asText());
        return sb.toString();
    }

    static void deleteTree(Path root) {
        try (var s = Files.walk(root)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            // a temporary directory left behind is harmless; the run's result matters more
        }
    }
}
