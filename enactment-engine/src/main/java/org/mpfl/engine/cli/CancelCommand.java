package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.List;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;

/** {@code mpflc cancel RUN --engine URL}: cancels a run (its domain is aborted on every rank). */
public final class CancelCommand implements CliCommand {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("cancel", "Cancels a run: its domain is aborted on every rank.")
            .positional("RUN", "the run's id")
            .with(EngineOptions::client);
    @Override
    public String name() {
        return "cancel";
    }

    @Override
    public String summary() {
        return "RUN --engine URL  cancel a run";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        String id = EngineOptions.runId(args);
        EngineClient client = EngineOptions.connect(args);
        JsonNode r = client.post("/api/runs/" + id + "/cancel", null);
        if (r.path("cancelled").asBoolean()) {
            out.println("run " + id + " cancelled");
            return 0;
        }
        err.println("mpflc cancel: run " + id + " had already ended (" + r.path("state").asText() + ")");
        return 1;
    }
}
