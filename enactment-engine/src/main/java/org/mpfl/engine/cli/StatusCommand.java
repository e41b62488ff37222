package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.ir.cli.UsageException;

/**
 * {@code mpflc status RUN --engine URL [--follow] [--json]}: the run's state, its ranks (state,
 * progress, activity and location, what a blocked rank waits for) and outputs or error. With
 * {@code --follow} it follows the run like {@code mpflc run} does. Exit 0 only if SUCCEEDED.
 */
public final class StatusCommand implements CliCommand {
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
        CliArgs args = CliArgs.parse(argList, Set.of("engine", "token-file", "data", TlsSettings.CA), Set.of("follow", "json"));
        String id = args.onePositional("RUN");
        String url = EngineClient.resolveUrl(args.option("engine"), args.option("data"));
        if (url == null) {
            throw new UsageException("give --engine URL");
        }
        EngineClient client = new EngineClient(url, EngineClient.resolveToken(args.option("token-file"), args.option("data")), args.tls());
        JsonNode run = args.flag("follow") ? RunFollower.follow(client, id, 0, args.flag("json") ? null : err)
                : client.get("/api/runs/" + id);
        if (args.flag("json")) {
            return RunCommand.report(run, out, err, true);
        }
        out.printf("run %s  %s  workflow %s  %.0f%%  %.1f s%n", run.path("id").asText(), run.path("state").asText(),
                run.path("workflow").asText(), run.path("progress").asDouble() * 100, run.path("elapsedMs").asLong() / 1000.0);
        for (JsonNode r : run.path("ranks")) {
            String where = r.hasNonNull("location") ? " at " + r.get("location").asText() : "";
            String what = r.hasNonNull("activity") ? " " + r.get("activity").asText() : "";
            String wait = r.path("blocked").asBoolean() && r.hasNonNull("waitingFor") ? "  waiting: " + r.get("waitingFor").asText() : "";
            String error = r.hasNonNull("error") ? "  error: " + r.get("error").asText() : "";
            out.printf("  rank %-3d %-8s %-10s host %s%s%s%s%s%n", r.path("rank").asInt(), r.path("state").asText(),
                    r.path("process").asText(), r.path("host").asText(), what, where, wait, error);
        }
        return RunCommand.report(run, out, err, false);
    }
}
