package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;
import org.mpfl.ir.cli.CliCommand;
import org.mpfl.protocol.tls.TlsSettings;
import org.mpfl.ir.cli.UsageException;

/** {@code mpflc cancel RUN --engine URL}: cancels a run (its domain is aborted on every rank). */
public final class CancelCommand implements CliCommand {
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
        CliArgs args = CliArgs.parse(argList, Set.of("engine", "token-file", "data", TlsSettings.CA), Set.of());
        String id = args.onePositional("RUN");
        String url = EngineClient.resolveUrl(args.option("engine"), args.option("data"));
        if (url == null) {
            throw new UsageException("give --engine URL");
        }
        EngineClient client = new EngineClient(url, EngineClient.resolveToken(args.option("token-file"), args.option("data")), args.tls());
        JsonNode r = client.post("/api/runs/" + id + "/cancel", null);
        if (r.path("cancelled").asBoolean()) {
            out.println("run " + id + " cancelled");
            return 0;
        }
        err.println("mpflc cancel: run " + id + " had already ended (" + r.path("state").asText() + ")");
        return 1;
    }
}
