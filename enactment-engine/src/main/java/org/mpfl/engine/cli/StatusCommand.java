package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.List;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;

/**
 * {@code mpflc status RUN --engine URL [--follow] [--json]}: the run's state, its ranks (state,
 * progress, activity and location, what a blocked rank waits for) and outputs or error. With
 * {@code --follow} it follows the run like {@code mpflc run} does. Exit 0 only if SUCCEEDED.
 */
public final class StatusCommand implements CliCommand {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("status", "Shows a run: its state, its ranks (state, progress, activity and location, what a blocked rank waits for), outputs or error; exit 0 only if it SUCCEEDED.")
            .with(RunFollower::runOptions);
    @Override
    public String name() {
        return "status";
    }

    @Override
    public String summary() {
        return "RUN --engine URL [--follow] [--json]  show (or follow) a run";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        String id = EngineOptions.runId(args);
        EngineClient client = EngineOptions.connect(args);
        JsonNode run = args.flag("--follow") ? RunFollower.follow(client, args, err, false)
                : client.get("/api/runs/" + id);
        if (args.flag("--json")) {
            return RunCommand.report(run, out, err, true, "mpflc status");
        }
        out.printf("run %s  %s  workflow %s  %.0f%%%s  %.1f s%n", run.path("id").asText(), run.path("state").asText(),
                run.path("workflow").asText(), run.path("progress").asDouble() * 100, RunFollower.progressSource(run),
                run.path("elapsedMs").asLong() / 1000.0);
        if (run.path("queue").isObject()) {
            out.println(RunFollower.queuePlace(run).strip());
        }
        if (run.hasNonNull("project") && !run.get("project").asText().equals("default")) {
            out.println("project: " + run.get("project").asText() + " (started by " + run.path("owner").asText("?") + ")");
        }
        if (run.path("attemptLog").size() > 1) {
            // restarts and resumes: how the run got to its current attempt
            for (JsonNode attempt : run.path("attemptLog")) {
                out.println(RunFollower.attemptLine(attempt));
            }
        }
        if (run.at("/placement/reason").isTextual()) {
            // how the sites were chosen (packed in one, or spanning several, and why)
            out.println("placement: " + run.at("/placement/reason").asText());
        }
        for (JsonNode r : run.path("ranks")) {
            String where = r.hasNonNull("location") ? " at " + r.get("location").asText() : "";
            String what = r.hasNonNull("activity") ? " " + r.get("activity").asText() : "";
            String wait = r.path("blocked").asBoolean() && r.hasNonNull("waitingFor") ? "  waiting: " + r.get("waitingFor").asText() : "";
            String error = r.path("state").asText().equals("ABORTED") ? "  " + stopReason(run, r)
                    : r.hasNonNull("error") ? "  error" + faultKind(run, r) + ": " + r.get("error").asText() : "";
            String site = r.hasNonNull("site") && !r.get("site").asText().equals("default") ? " (site " + r.get("site").asText() + ")" : "";
            out.printf("  rank %-3d %-8s %-10s host %s%s%s%s%s%s%n", r.path("rank").asInt(), r.path("state").asText(),
                    r.path("process").asText(), r.path("host").asText(), site, what, where, wait, error);
        }
        return RunCommand.report(run, out, err, false, "mpflc status");
    }

    /**
     * Whose fault a FAILED rank's error is, as the console says it: {@code " (workflow fault, never restarted)"}, or for
     * the infrastructure's what the run's {@code restarts} made of it ({@code " (infrastructure fault, not restarted: no
     * restarts left, 1 of 1 used)"}); empty when the engine gives no kind.
     */
    static String faultKind(JsonNode run, JsonNode rank) {
        if (!rank.path("state").asText().equals("FAILED")) {
            return "";
        }
        return switch (rank.path("fault").asText("")) {
            case "WORKFLOW" -> " (workflow fault, never restarted)";
            case "INFRASTRUCTURE" -> " (infrastructure fault, " + restartFate(run) + ")";
            default -> "";
        };
    }

    /** Whether the run was (or will be) restarted after an infrastructure fault, from its restarts {allowed, used}. */
    private static String restartFate(JsonNode run) {
        int allowed = run.at("/restarts/allowed").asInt(0);
        int used = run.at("/restarts/used").asInt(0);
        String counted = used + " of " + allowed + " used";
        if (allowed <= 0) {
            return "not restarted: the run allows no restarts";
        }
        if (used >= allowed) {
            return "not restarted: no restarts left, " + counted;
        }
        boolean ended = java.util.Set.of("SUCCEEDED", "FAILED", "CANCELLED").contains(run.path("state").asText());
        return (ended ? "not restarted: the run ended, " : "restarted while restarts are left, ") + counted;
    }

    /** Why an ABORTED rank stopped, as the engine says it ({@code abortedBecause}) and the console shows it. */
    static String stopReason(JsonNode run) {
        return "stopped: " + run.path("abortedBecause").asText("run aborted");
    }

    /**
     * Why ABORTED rank {@code rank} stopped: a rank the engine could not reach when the run ended (its host lost) in the
     * engine's words about it, as the console says it, rather than the run's reason (which may name that rank itself).
     */
    static String stopReason(JsonNode run, JsonNode rank) {
        String error = rank.path("error").asText("");
        return error.startsWith("lost: ") ? error : stopReason(run);
    }
}
