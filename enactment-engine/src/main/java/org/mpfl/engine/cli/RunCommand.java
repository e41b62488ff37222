package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.ExecutablePath;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.ir.plan.ParamValues;
import org.mpfl.engine.run.SiteRequest;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.engine.EngineConfig;
import org.mpfl.engine.json.Json;
import org.mpfl.engine.local.InProcessRun;
import org.mpfl.engine.local.LocalCluster;
import org.mpfl.protocol.settings.ProtocolSettings;
import org.mpfl.ir.files.FileTrees;

/**
 * {@code mpflc run FILE|WORKFLOW[@N] [--param k=v]… (--engine URL | --local [--hosts N]) [--json]}: starts a run
 * of a document, plan or compiled directory, or ({@code --engine} only) of a workflow stored with
 * {@code mpflc deploy}: {@code NAME} runs its latest version, {@code NAME@N} version N;
 * follows it with a progress bar on stderr, prints the outputs; exit 0 only if the run SUCCEEDED.
 * {@code --local} starts an engine for this run only, with one service host in the same JVM (the ranks need
 * no process of their own) or, with {@code --hosts N}, N service-host processes on loopback
 * ({@code --service NAME=CLASS} publishes a hand-written {@code RankProgram} on them). Also
 * {@code --token-file F}/{@code --data DIR} (engine token; or {@code $MPFL_ENGINE_TOKEN}) and {@code --timeout S} (cancel after S seconds).
 * {@code --sweep NAME=V1,V2,…} (repeatable) runs every combination of the values, {@code --parallel K} at a
 * time, and prints a table of their outputs ({@link Sweep}). {@code --restarts N}: how often the run may restart
 * after an infrastructure fault (overrides the workflow's {@code restarts}). {@code --project P}: the project the run
 * belongs to, for a user of several.
 */
public final class RunCommand implements CliCommand {
    static final ArgumentSpec SPEC = ArgumentSpec.of("run", "Starts a run (or a sweep of runs) and follows it with a progress"
            + " bar on stderr; prints the outputs; exit 0 only if the run SUCCEEDED.")
            .positional("FILE|WORKFLOW[@N]", "a document, plan or compiled directory, or (with --engine) a deployed workflow")
            .with(RunParams::declare)
            .with(EngineOptions::client)
            .flag("--local", "start an embedded engine and local service hosts for this run only")
            .value("--hosts", "N", null, "--local: N service host processes (default: one host in the engine's JVM)")
            .value("--python", "PATH", "the interpreter of <compute python> kernels on the local hosts (default: python3 on the PATH)")
            .repeatable("--service", "NAME=CLASS", "publish a hand-written RankProgram on the hosts of --local")
            .value("--timeout", "S", "0", "cancel the run after S seconds (0: never)")
            .flag("--detach", "--engine: start the run and exit, printing its id (following a run, Ctrl-C or a lost terminal"
                    + " cancels it; a detached run goes on: mpflc status RUN --follow)")
            .value("--restarts", "N", "how often the run may restart after an infrastructure fault (overrides the workflow's)")
            .value("--priority", "N", "its place in the engine's run queue: higher first (default 0)")
            .flag("--oversubscribe", "place more ranks on hosts than their capacity rather than wait in the queue (as mpirun's)")
            .value("--queue-timeout", "S", "fail the run if it waits longer than S seconds in the queue (0: no bound;"
                    + " default: the engine's)")
            .value("--sites", "N|A,B", "spread the run over N sites, or over the sites named (default: packed within one site"
                    + " while capacity allows)")
            .value("--project", "P", "the project the run belongs to (default: the stored workflow's; else your only project,"
                    + " or an admin's 'default')")
            .repeatable("--sweep", "NAME=V1,V2,...", "run every combination of the values and print a table of their outputs")
            .value("--parallel", "K", String.valueOf(Sweep.DEFAULT_PARALLEL), "runs of a --sweep at a time")
            .flag("--json", "print the result as one JSON object")
            .note("Give exactly one of --engine URL or --local.");

    @Override
    public String name() {
        return "run";
    }

    @Override
    public String summary() {
        return "FILE|WORKFLOW[@N] [--param k=v]... [--sweep k=v1,v2... [--parallel K]] (--engine URL | --local [--hosts N]) [--json]  start a run (or a sweep) and follow it";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        String target = args.positional("FILE|WORKFLOW[@N]");
        Path file = Path.of(target);
        boolean local = args.flag("--local");
        if (local && args.has("--engine")) {
            throw new UsageException("give exactly one of --engine URL or --local");
        }
        // an engine as the other client commands find one: --engine, else $MPFL_ENGINE, else --data's engine
        String engineUrl = local ? null : EngineClient.resolveUrl(args.value("--engine"), args.value("--data"));
        if (!local && engineUrl == null) {
            throw new UsageException(EngineOptions.noEngine(args.value("--data")) + "; or run here with --local");
        }
        if (local) {
            kernelPython(args);
            quietEngineLifecycle();
        }
        // no --hosts: one host in this JVM (EmbeddedHost); --hosts N: N host processes
        boolean embedded = !args.has("--hosts");
        int hosts = args.intValue("--hosts", 1);
        if (hosts < 1) {
            throw new UsageException("--hosts must be at least 1");
        }
        UpCommand.requireLocalHosts(hosts);
        int timeoutS = args.intValue("--timeout");
        if (timeoutS < 0) {
            // a negative bound was taken as none, so the run went on unbounded while the user thought it bounded
            throw new UsageException("--timeout must be at least 0 (seconds; 0: no bound)");
        }
        Integer restarts = args.has("--restarts") ? args.intValue("--restarts") : null;
        if (restarts != null && restarts < 0) {
            throw new UsageException("--restarts must be at least 0");
        }
        boolean json = args.flag("--json");
        boolean detach = args.flag("--detach");
        if (detach && local) {
            throw new UsageException("--detach applies to --engine only (a --local engine ends with this command)");
        }
        if (detach && timeoutS > 0) {
            throw new UsageException("--timeout needs mpflc to follow the run: it cannot be combined with --detach");
        }
        Map<String, Object> params = RunParams.params(args);
        List<Sweep.Axis> axes = Sweep.axes(args.values("--sweep"), params);
        int parallel = args.intValue("--parallel");
        if (parallel < 1) {
            throw new UsageException("--parallel must be at least 1");
        }
        if (axes.isEmpty() && args.has("--parallel")) {
            throw new UsageException("--parallel applies to --sweep only");
        }

        String stored = axes.isEmpty() ? storedWorkflow(target, file, local) : null;
        if (local && args.has("--project")) {
            throw new UsageException("--project applies to --engine only (a --local engine is yours alone)");
        }
        Map<String, Object> common = new LinkedHashMap<>();
        if (args.has("--project")) {
            common.put("project", args.value("--project"));
        }
        if (!local && args.has("--service")) {
            throw new UsageException("--service applies to the hosts of --local only");
        }
        List<String> services = local ? services(args) : List.of();

        // --local with nothing that needs an engine or host processes: the ranks run as threads of this JVM
        boolean inProcess = local && embedded && services.isEmpty() && axes.isEmpty() && restarts == null
                && !queueingAsked(args) && InProcessRun.available();
        // --local: the kernels run in this machine's interpreter, so it parses their modules before the run starts
        String kernelPython = local ? ProtocolSettings.KERNEL_PYTHON.get() : null;
        LocalCluster.Starting cluster = null;
        CompletableFuture<Void> reported = new CompletableFuture<>();
        // a stop (Ctrl-C) before the run is followed says what happened: whether a run was started, and which
        Submission submission = Submission.watch(err, local, !detach);
        try {
            // --local: the cluster starts only once the document compiled. Started while it compiled, an engine still
            // starting when a document with an error ended the command failed in the JVM's exit with Camel's
            // 'Shutdown in progress' and its stack trace after the diagnostics
            WorkflowInput input = null;
            if (axes.isEmpty() && stored == null) {
                try {
                    input = WorkflowInput.load(file, params, RunParams.rawParams(args), inProcess, kernelPython);
                } catch (WorkflowCompiler.CompileException e) {
                    e.diagnostics().forEach(err::println);
                    return 1;
                }
                input.warnings().forEach(err::println);
            }
            if (stored == null && refusedUnvalued(input, file, params, args, axes, err)) {
                return 1;
            }
            if (inProcess && InProcessRun.runs(input.deploymentPlan(), input.archives(), input.programsInPlan())) {
                return runInProcess(input, timeoutS, json, out, err, submission);
            }
            if (input != null && input.programsInPlan()) {
                // a plan with a process the ranks here cannot run: the engine gets the archives after all
                input = WorkflowInput.load(file, params, RunParams.rawParams(args), false, kernelPython);
            }
            EngineClient client;
            LocalCluster started = null;
            if (local) {
                cluster = startCluster(Files.createTempDirectory("mpfl-local-"), embedded, hosts, services, json, err);
                started = cluster.await();
                // Ctrl-C from here: the engine stops only once the stop is said (and a run it took cancelled)
                started.holdExitUntil(submission.said());
                client = new EngineClient(started.engine().url(), started.engine().token());
            } else {
                client = EngineOptions.client(args, engineUrl);
            }
            if (!axes.isEmpty()) {
                if (detach) {
                    throw new UsageException("--detach applies to a single run, not to a --sweep (which follows its runs to"
                            + " print their table)");
                }
                submission.close(); // a sweep follows its runs itself
                return Sweep.run(client, file, params, RunParams.rawParams(args), common, axes, parallel, timeoutS, json, out, err);
            }
            Map<String, Object> start;
            if (stored != null) {
                start = new LinkedHashMap<>();
                start.put("workflow", stored);
                start.put("params", params);
            } else {
                start = startRequest(input);
            }
            start.putAll(common);
            if (restarts != null) {
                start.put("restarts", restarts);
            }
            queueing(args, start);
            if (detach) {
                return detached(client, start, json, out, err, submission);
            }
            PrintStream progress = json ? null : err;
            submission.sending(client);
            String id = start(client, start, progress, !local);
            submission.submitted(id);
            if (started != null) {
                // Ctrl-C: the engine and its hosts are stopped only once the run they ran is cancelled and printed
                started.holdExitUntil(reported);
            }
            return RunFollower.followAndReport(RunFollower.source(client, id), id, timeoutS, progress, !local,
                    run -> report(run, out, err, json), reported, submission::close);
        } finally {
            submission.close();
            // the cluster deletes its data directory once it stopped (LocalCluster.startInBackground), also at this JVM's exit
            if (cluster != null) {
                reported.complete(null); // whatever ended the command, it holds the exit no more
                cluster.close();
            }
        }
    }

    /**
     * {@code run --local} with its ranks as threads of this JVM ({@link InProcessRun}): followed and reported
     * as a run of an engine is.
     */
    private static int runInProcess(WorkflowInput input, int timeoutS, boolean json, PrintStream out, PrintStream err,
                                    Submission submission) throws Exception {
        // refused before anything is said to start
        InProcessRun.check(input.deploymentPlan(), input.params());
        Integer restarts = input.deploymentPlan().restarts();
        if (restarts != null && restarts > 0) {
            // the run would go on as if restarts were allowed: a fault here ends it, so say so before it starts
            err.println("mpflc run: warning: the workflow's restarts=\"" + restarts + "\" does not apply: --local runs the ranks"
                    + " in this JVM, with no checkpoint to restart from; --local --restarts " + restarts + " or --local --hosts N"
                    + " runs it on a local engine, which restarts it");
        }
        if (!json) {
            err.println("mpflc run: running the ranks in this JVM...");
        }
        try (InProcessRun run = InProcessRun.start(input.deploymentPlan(), input.archives(), input.params())) {
            if (!json) {
                // every line, as mpirun prints its ranks' output: there is no run record to read them from afterwards
                run.followLogs();
            }
            return RunFollower.followAndReport(new RunFollower.Source() {
                @Override
                public JsonNode get() {
                    return run.view();
                }

                @Override
                public void cancel(String reason) {
                    run.cancel(reason);
                }

                @Override
                public void pause(long ms) throws InterruptedException {
                    run.awaitChange(ms);
                }
            }, run.id(), timeoutS, json ? null : err, false, last -> report(last, out, err, json), new CompletableFuture<>(),
                    submission::close);
        }
    }

    /** Whether any of the engine's queueing options is given (they need an engine's run queue). */
    private static boolean queueingAsked(Arguments args) {
        return args.has("--priority") || args.flag("--oversubscribe") || args.has("--queue-timeout") || args.has("--sites");
    }

    /** Starts the cluster of {@code --local} in the background ({@link LocalCluster#startInBackground}). */
    private static LocalCluster.Starting startCluster(Path dataDir, boolean embedded, int hosts, List<String> services,
                                                      boolean json, PrintStream err) {
        if (!json) {
            err.println("mpflc run: starting a local engine and " + (embedded ? "a service host in its JVM"
                    : hosts + " service host process(es)") + "...");
        }
        EngineConfig config = new EngineConfig().port(0).dataDir(dataDir).throwawayDatabase();
        Duration startTimeout = Duration.ofSeconds(60);
        return LocalCluster.startInBackground(guard -> embedded ? LocalCluster.startEmbedded(config, services, startTimeout, guard)
                : LocalCluster.start(config, hosts, services, startTimeout, guard), startTimeout.multipliedBy(2),
                () -> FileTrees.deleteQuietly(dataDir));
    }

    /** The {@code --service NAME=CLASS} values, checked to be pairs (the hosts load the classes). */
    static List<String> services(Arguments args) throws UsageException {
        for (String v : args.values("--service")) {
            if (v.indexOf('=') <= 0) {
                throw new UsageException("--service needs NAME=CLASS (a RankProgram class on the class path), got '" + v + "'");
            }
        }
        return args.values("--service");
    }

    /** {@code --priority}, {@code --oversubscribe}, {@code --queue-timeout} and {@code --sites} into the start request. */
    static void queueing(Arguments args, Map<String, Object> start) throws UsageException {
        if (args.has("--priority")) {
            start.put("priority", args.intValue("--priority"));
        }
        if (args.flag("--oversubscribe")) {
            start.put("oversubscribe", true);
        }
        if (args.has("--queue-timeout")) {
            int s = args.intValue("--queue-timeout");
            if (s < 0) {
                throw new UsageException("--queue-timeout must be at least 0 (seconds; 0: no bound)");
            }
            start.put("queueTimeoutS", s);
        }
        if (args.has("--sites")) {
            try {
                start.put("sites", SiteRequest.parse(args.value("--sites")).toString());
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new UsageException("--sites: " + (e.getMessage() == null ? "give N or A,B" : e.getMessage()));
            }
        }
    }

    /**
     * Starts a run of {@code input} and follows it to its end (progress to {@code progress}, or none); {@code common}:
     * more fields of its start request ({@code project}).
     */
    static JsonNode startAndFollow(EngineClient client, WorkflowInput input, Map<String, Object> common, int timeoutS,
                                   PrintStream progress) throws Exception {
        Map<String, Object> start = startRequest(input);
        start.putAll(common);
        return startAndFollow(client, start, timeoutS, progress, false);
    }

    /** The body of {@code POST /api/runs} that starts {@code input} (its plan, parameters and archives). */
    static Map<String, Object> startRequest(WorkflowInput input) {
        Map<String, Object> start = new LinkedHashMap<>();
        start.put("plan", input.plan());
        start.put("params", input.params());
        if (!input.archives().isEmpty()) {
            start.put("archives", input.archivesJson());
        }
        return start;
    }

    /**
     * Starts a run as {@code POST /api/runs} with {@code start} and follows it to its end; {@code showConsole}: first
     * says where the engine's console shows the run (an engine that outlives this command).
     */
    static JsonNode startAndFollow(EngineClient client, Map<String, Object> start, int timeoutS, PrintStream progress,
                                   boolean showConsole) throws Exception {
        return RunFollower.follow(client, start(client, start, progress, showConsole), timeoutS, progress, true, showConsole);
    }

    /** Starts a run as {@code POST /api/runs} with {@code start}; its id. {@code showConsole}: as for {@link #startAndFollow}. */
    private static String start(EngineClient client, Map<String, Object> start, PrintStream progress, boolean showConsole)
            throws Exception {
        JsonNode started = client.post("/api/runs", start);
        String id = started.get("id").asText();
        if (progress != null && showConsole) {
            progress.println("mpflc run: run " + id + " started; the console shows it at " + client.url() + "/#/runs/" + id);
        }
        return id;
    }

    /**
     * {@code --detach}: starts the run and says how to find it again, without following it, so that nothing cancels it
     * when this command ends (a closed terminal, a batch script's end).
     */
    private static int detached(EngineClient client, Map<String, Object> start, boolean json, PrintStream out, PrintStream err,
                                Submission submission) throws Exception {
        submission.sending(client);
        JsonNode started = client.post("/api/runs", start);
        String id = started.get("id").asText();
        submission.submitted(id);
        if (json) {
            out.println(Json.write(Map.of("run", id, "state", started.path("state").asText())));
        } else {
            out.println(id); // alone on stdout: RUN=$(mpflc run … --detach)
            err.println("mpflc run: run " + id + " started (" + started.path("state").asText() + "); follow it with mpflc status " + id
                    + " --follow --engine " + client.url() + ", or in the console at " + client.url() + "/#/runs/" + id);
        }
        return 0;
    }

    /** A stored workflow reference: {@code NAME} or {@code NAME@N}, with an optional {@code @N}. */
    private static final java.util.regex.Pattern STORED = java.util.regex.Pattern.compile("[A-Za-z][A-Za-z0-9_-]*(@[0-9]+)?");

    /**
     * The stored workflow the argument names ({@code NAME} or {@code NAME@N}, deployed with {@code mpflc
     * deploy}), or {@code null} when it is a file: a file that exists wins; with {@code --local} there is
     * no stored workflow.
     */
    /**
     * What a run of {@code argList} would refuse before anything starts — its options, and a document that is missing
     * or does not compile — said on {@code err}; whether it would start. For a command that must spend something
     * first ({@code mpflc slurm --run} starts the allocation's hosts): a typo costs no queued job. A stored
     * workflow's name ({@code NAME[@N]}) is the engine's to check.
     */
    static boolean wouldStart(List<String> argList, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        String target = args.positional("FILE|WORKFLOW[@N]");
        Path file = Path.of(target);
        Map<String, Object> params = RunParams.params(args);
        if (storedWorkflow(target, file, false) != null) {
            return true;
        }
        List<Sweep.Axis> axes = Sweep.axes(args.values("--sweep"), params);
        WorkflowInput input = null;
        if (axes.isEmpty()) {
            try {
                input = WorkflowInput.load(file, params, RunParams.rawParams(args), false, null);
            } catch (WorkflowCompiler.CompileException e) {
                e.diagnostics().forEach(err::println);
                return false;
            }
        }
        return !refusedUnvalued(input, file, params, args, axes, err);
    }

    /**
     * Whether a run is refused for a required param without a value, said on {@code err} at its {@code <param>}: before
     * any engine or host starts, as --local refuses it (an engine refuses it too, and would otherwise have each rank fail
     * at its start without the param's place); a sweep before any combination is sent.
     *
     * @param input the compiled document of one run; {@code null} for a sweep (its first combination is compiled)
     */
    private static boolean refusedUnvalued(WorkflowInput input, Path file, Map<String, Object> params, Arguments args,
                                           List<Sweep.Axis> axes, PrintStream err) throws java.io.IOException, UsageException {
        List<String> unvalued = axes.isEmpty()
                ? input.deploymentPlan().unvaluedParams(input.params(), ParamValues.Naming.COMMAND_LINE)
                : Sweep.unvaluedInEvery(file, params, RunParams.rawParams(args), axes);
        unvalued.forEach(err::println);
        return !unvalued.isEmpty();
    }

    static String storedWorkflow(String argument, Path file, boolean local) {
        if (local || Files.exists(file) || !STORED.matcher(argument).matches()) {
            return null;
        }
        return argument;
    }

    static int report(JsonNode run, PrintStream out, PrintStream err, boolean json) {
        return report(run, out, err, json, "mpflc run");
    }

    /** Prints a run's outcome; {@code command} prefixes the line about a run that did not succeed. */
    static int report(JsonNode run, PrintStream out, PrintStream err, boolean json, String command) {
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
                    out.println(o.getKey() + " = " + text(byRank.elements().next()));
                } else {
                    byRank.fields().forEachRemaining(r -> out.println(o.getKey() + "[" + r.getKey() + "] = " + text(r.getValue())));
                }
            });
            if (!state.equals("SUCCEEDED")) {
                out.flush(); // before the error, where both streams go to one terminal or file
                err.println(command + ": run " + run.path("id").asText() + " " + state + describeError(error));
            }
        }
        return state.equals("SUCCEEDED") ? 0 : 1;
    }

    /**
     * A value as JSON text. Integers, booleans and finite doubles are their {@code asText()}, the same text:
     * {@code JsonNode.toString()} creates a JSON mapper first, a tenth of a second of a first run's CPU.
     */
    static String text(JsonNode value) {
        boolean plain = value.isIntegralNumber() || value.isBoolean() || value.isDouble() && Double.isFinite(value.doubleValue());
        return plain ? value.asText() : value.toString();
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

    /**
     * A {@code --local} run's engine is this command's own: the follower says a restart ({@code attempt 2: restart
     * after: …}) and a failure in the user's words, so the engine's warning of the same restart would say it twice,
     * as a log line. Its errors still show; a logger level the user sets ({@code -Dorg.slf4j.simpleLogger.log.…}) wins.
     */
    private static void quietEngineLifecycle() {
        String logger = "org.slf4j.simpleLogger.log.org.mpfl.engine.run.RunLifecycle";
        if (System.getProperty(logger) == null) {
            System.setProperty(logger, "error");
        }
    }

    /**
     * {@code --python PATH} of {@code run --local} and {@code up}: the interpreter of Python kernels, for a
     * host in this JVM and for the host processes, to which the launcher passes it on ({@code --python}). A path is
     * made absolute against the working directory and refused if it is no executable file, before anything starts:
     * the kernel workers start in their libraries' directory, where a relative path names another file.
     */
    static void kernelPython(Arguments args) throws UsageException {
        if (args.has("--python")) {
            System.setProperty(ProtocolSettings.KERNEL_PYTHON.name(), ExecutablePath.resolve("--python", args.value("--python")));
        }
    }
}
