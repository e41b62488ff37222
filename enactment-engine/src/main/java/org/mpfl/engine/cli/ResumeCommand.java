package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.List;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;

/**
 * {@code mpflc resume RUN --engine URL [--follow] [--json]}: starts a new attempt of a FAILED or
 * CANCELLED run from its newest usable checkpoint (from the start when it has none); with
 * {@code --follow} follows it like {@code mpflc run}. Exit 0 when the resume was accepted (and, when
 * followed, the run SUCCEEDED); 1 when the engine refused it (the run is in another state).
 */
public final class ResumeCommand implements CliCommand {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("resume", "Starts a new attempt of a FAILED or CANCELLED run from its newest usable checkpoint (from the start without one).")
            .with(RunFollower::runOptions);
    @Override
    public String name() {
        return "resume";
    }

    @Override
    public String summary() {
        return "RUN --engine URL [--follow] [--json]  resume a failed or cancelled run from its last checkpoint";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        String id = EngineOptions.runId(args);
        EngineClient client = EngineOptions.connect(args);
        JsonNode r;
        try {
            r = client.post("/api/runs/" + id + "/resume", null);
        } catch (EngineClient.EngineException e) {
            err.println("mpflc resume: " + e.getMessage());
            return 1;
        }
        if (!args.flag("--follow")) {
            // from which checkpoint, or from the start: what a resume is worth to the one who asked for it
            JsonNode log = client.get("/api/runs/" + id).path("attemptLog");
            out.println("run " + id + " resumed (" + r.path("state").asText() + ")"
                    + (log.size() > 0 ? ": " + RunFollower.attemptLine(log.get(log.size() - 1)) : "")
                    + "; follow it with mpflc status " + id + " --follow --engine " + client.url());
            return 0;
        }
        boolean json = args.flag("--json");
        return RunFollower.followAndReport(RunFollower.source(client, id), id, 0, json ? null : err, true,
                last -> RunCommand.report(last, out, err, json));
    }
}
