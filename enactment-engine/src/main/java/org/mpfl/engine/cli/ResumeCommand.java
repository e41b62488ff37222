package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * {@code mpflc resume RUN --engine URL [--follow] [--json]}: starts a new attempt of a FAILED or
 * CANCELLED run from its newest usable checkpoint (from the start when it has none); with
 * {@code --follow} follows it like {@code mpflc run}. Exit 0 when the resume was accepted (and, when
 * followed, the run SUCCEEDED); 1 when the engine refused it (the run is in another state).
 */
public final class ResumeCommand implements CliCommand {
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
        CliArgs args = CliArgs.parse(argList, Set.of("engine", "token-file", "data", TlsSettings.CA), Set.of("follow", "json"));
        String id = args.onePositional("RUN");
        String url = EngineClient.resolveUrl(args.option("engine"), args.option("data"));
        if (url == null) {
            throw new UsageException("give --engine URL");
        }
        EngineClient client = new EngineClient(url, EngineClient.resolveToken(args.option("token-file"), args.option("data")), args.tls());
        JsonNode r;
        try {
            r = client.post("/api/runs/" + id + "/resume", null);
        } catch (EngineClient.EngineException e) {
            err.println("mpflc resume: " + e.getMessage());
            return 1;
        }
        if (!args.flag("follow")) {
            out.println("run " + id + " resumed (" + r.path("state").asText() + ")");
            return 0;
        }
        JsonNode last = RunFollower.follow(client, id, 0, args.flag("json") ? null : err);
        return RunCommand.report(last, out, err, args.flag("json"));
    }
}
