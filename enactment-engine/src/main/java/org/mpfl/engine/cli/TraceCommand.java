package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.engine.json.Json;

/**
 * {@code mpflc trace RUN --engine URL [-o trace.json]}: the run as Chrome Trace Event JSON, as the engine
 * builds it ({@code GET /api/runs/{id}/trace}; open the file in https://ui.perfetto.dev or
 * {@code chrome://tracing}). Without {@code -o} the JSON goes to standard output.
 */
public final class TraceCommand implements CliCommand {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("trace", "The run as Chrome Trace Event JSON (open it in"
            + " https://ui.perfetto.dev or chrome://tracing).")
            .positional("RUN", "the run's id")
            .with(EngineOptions::client)
            .value("--output", "FILE", "write the trace to FILE (else standard output)")
            .alias("-o", "--output");

    @Override
    public String name() {
        return "trace";
    }

    @Override
    public String summary() {
        return "RUN --engine URL [-o trace.json]  the run as a Chrome/Perfetto trace";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        String id = EngineOptions.runId(args);
        EngineClient client = EngineOptions.connect(args);
        JsonNode trace = client.get("/api/runs/" + id + "/trace");
        String text = Json.write(trace);
        String output = args.value("--output");
        if (output == null) {
            out.println(text);
        } else {
            Files.writeString(Path.of(output), text);
            int events = trace.path("traceEvents").size();
            err.println("mpflc trace: wrote " + events + " trace events of run " + id + " to " + output
                    + " (open it in https://ui.perfetto.dev or chrome://tracing)");
        }
        return 0;
    }
}
