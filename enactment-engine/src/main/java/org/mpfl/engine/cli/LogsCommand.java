package org.mpfl.engine.cli;

import java.io.PrintStream;
import java.util.List;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;

/**
 * {@code mpflc logs RUN [--engine URL] [--rank N]}: every {@code <log>} line of a run (and every line a
 * Python or executable kernel printed), oldest first, as the engine stored them
 * ({@code GET /api/runs/{id}/logs}): {@code 2026-11-29T02:49:32.125Z rank 3 INFO the message}.
 * {@code mpflc run} prints them as they come; this command has them all, also for a run that ended.
 */
public final class LogsCommand implements CliCommand {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("logs",
                    "Prints every log line of a run, oldest first (what its <log> activities and kernels printed).")
            .positional("RUN", "the run's id")
            .with(EngineOptions::client)
            .value("--rank", "N", "only this rank's lines");

    @Override
    public String name() {
        return "logs";
    }

    @Override
    public String summary() {
        return "RUN [--engine URL] [--rank N]  every log line of a run, oldest first";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        String path = "/api/runs/" + EngineOptions.runId(args) + "/logs";
        if (args.has("--rank")) {
            int rank = args.intValue("--rank");
            if (rank < 0) {
                throw new UsageException("--rank must be at least 0");
            }
            path += "?rank=" + rank;
        }
        String text = EngineOptions.connect(args).getText(path);
        out.print(text.isEmpty() || text.endsWith("\n") ? text : text + "\n");
        return 0;
    }
}
