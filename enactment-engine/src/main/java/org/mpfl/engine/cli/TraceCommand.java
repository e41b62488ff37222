package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.ir.cli.UsageException;
import org.mpfl.engine.json.Json;
import org.mpfl.protocol.tls.TlsSettings;

/**
 * {@code mpflc trace RUN --engine URL [-o trace.json]}: the run as Chrome Trace Event JSON, as the engine
 * builds it ({@code GET /api/runs/{id}/trace}; open the file in https://ui.perfetto.dev or
 * {@code chrome://tracing}). Without {@code -o} the JSON goes to standard output.
 */
public final class TraceCommand implements CliCommand {
    static final Set<String> VALUE_OPTIONS = Set.of("engine", "token-file", "data", "output", TlsSettings.CA);

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
        CliArgs args = CliArgs.parse(argList.stream().map(w -> w.equals("-o") ? "--output" : w).toList(), VALUE_OPTIONS, Set.of());
        String id = args.onePositional("RUN");
        String url = EngineClient.resolveUrl(args.option("engine"), args.option("data"));
        if (url == null) {
            throw new UsageException("give --engine URL");
        }
        EngineClient client = new EngineClient(url, EngineClient.resolveToken(args.option("token-file"), args.option("data")), args.tls());
        JsonNode trace = client.get("/api/runs/" + id + "/trace");
        String text = Json.write(trace);
        String output = args.option("output");
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
