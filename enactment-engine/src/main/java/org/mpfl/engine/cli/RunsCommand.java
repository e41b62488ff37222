package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.engine.json.Json;

/**
 * {@code mpflc runs [--engine URL] [--state S] [--workflow W] [--limit N] [--json]}: the engine's runs,
 * newest first, one line each ({@code GET /api/runs}) — what {@code squeue} is to a Slurm user, where
 * {@code mpflc status RUN} is {@code scontrol show job}. A line says the run's id, workflow, state,
 * when it was created (local time), how long it has taken, its ranks, and the first line of a
 * failed run's error.
 */
public final class RunsCommand implements CliCommand {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("runs",
                    "Lists the engine's runs, newest first: id, workflow, state, created, time, ranks, error.")
            .with(EngineOptions::client)
            .value("--state", "S", "only runs in this state (PENDING, QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED)")
            .value("--workflow", "W", "only runs of this workflow (its exact name)")
            .value("--project", "P", "only runs of this project")
            .value("--limit", "N", "at most N runs (default 20)")
            .flag("--json", "print the runs as one JSON array");
    private static final int DEFAULT_LIMIT = 20;
    /**
     * The engine's largest page of {@code GET /api/runs}: {@code --limit 10000} asked for 10001 (one more, to tell whether
     * there are more) and {@code --limit 2147483647} for -2147483648, both refused by the engine as a bad {@code limit}
     * the user had not written.
     */
    private static final int MAX_LIMIT = 10_000;
    /** The longest error shown in a line; the whole error is {@code mpflc status RUN}'s. */
    private static final int ERROR_WIDTH = 100;
    private static final DateTimeFormatter CREATED = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    @Override
    public String name() {
        return "runs";
    }

    @Override
    public String summary() {
        return "[--engine URL] [--state S] [--workflow W] [--project P] [--limit N] [--json]  list the engine's runs, newest first";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        int limit = args.has("--limit") ? args.intValue("--limit") : DEFAULT_LIMIT;
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new UsageException("--limit must be from 1 to " + MAX_LIMIT + " (the most runs the engine lists at once)");
        }
        // one more: are there more? (not asked at the engine's largest page, whose last line then cannot say so)
        StringBuilder query = new StringBuilder("/api/runs?limit=").append(Math.min(limit + 1, MAX_LIMIT));
        if (args.has("--state")) {
            query.append("&state=").append(URLEncoder.encode(args.value("--state"), StandardCharsets.UTF_8));
        }
        if (args.has("--workflow")) {
            query.append("&workflow=").append(URLEncoder.encode(args.value("--workflow"), StandardCharsets.UTF_8));
        }
        if (args.has("--project")) {
            query.append("&project=").append(URLEncoder.encode(args.value("--project"), StandardCharsets.UTF_8));
        }
        JsonNode page = EngineOptions.connect(args).get(query.toString());
        List<JsonNode> runs = new ArrayList<>();
        page.forEach(runs::add);
        boolean more = runs.size() > limit;
        if (more) {
            runs = runs.subList(0, limit);
        }
        if (args.flag("--json")) {
            ArrayNode array = Json.MAPPER.createArrayNode();
            runs.forEach(array::add);
            out.println(Json.MAPPER.writeValueAsString(array));
            return 0;
        }
        if (runs.isEmpty()) {
            out.println(args.has("--state") || args.has("--workflow") || args.has("--project") ? "no runs match" : "no runs yet");
            return 0;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("RUN", "WORKFLOW", "STATE", "CREATED", "TIME", "RANKS", "ERROR"));
        for (JsonNode r : runs) {
            rows.add(List.of(
                r.path("id").asText(),
                r.path("workflow").asText() + (r.hasNonNull("workflowVersion") ? "@" + r.get("workflowVersion").asInt() : ""),
                r.path("state").asText(),
                CREATED.format(Instant.ofEpochMilli(r.path("createdMs").asLong()).atZone(ZoneId.systemDefault())),
                String.format(Locale.ROOT, "%.1f s", r.path("elapsedMs").asLong() / 1000.0),
                String.valueOf(r.path("size").asInt()),
                oneLine(r.path("error"))));
        }
        TextTable.print(rows, out);
        if (more) {
            out.println("(more runs: --limit N shows more, --state, --workflow and --project choose)");
        }
        return 0;
    }

    /**
     * A run's error in one line, cut to a line's width; empty without one: its rank and place, and its
     * message's first line, unless that line only announces what follows (ends with a colon, as
     * {@code raised an exception:} before a Python traceback), when the last line says it
     * ({@code NameError: name 'w' is not defined}).
     */
    static String oneLine(JsonNode error) {
        if (error == null || !error.isObject()) {
            return error == null || error.isNull() || error.isMissingNode() ? "" : error.asText();
        }
        String message = error.path("message").asText().strip();
        List<String> lines = message.lines().filter(l -> !l.isBlank()).toList();
        String said = lines.isEmpty() ? "" : lines.get(0).endsWith(":") ? lines.get(lines.size() - 1).strip() : lines.get(0);
        ObjectNode shown = error.deepCopy();
        shown.put("message", said);
        String line = RunCommand.describeError(shown).replaceFirst("^: ", "");
        return line.length() <= ERROR_WIDTH ? line : line.substring(0, ERROR_WIDTH - 1) + "…";
    }
}
