package org.mpfl.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import org.mpfl.engine.json.Json;
import org.mpfl.ir.cli.ArgumentSpec;
import org.mpfl.ir.cli.Arguments;
import org.mpfl.ir.cli.CliCommand;

/**
 * {@code mpflc hosts [--engine URL] [--json]}: the service hosts in the engine's registry, one line each
 * ({@code GET /api/registry/hosts}) — what {@code sinfo} is to a Slurm user: host id, site, rank slots in use of
 * its capacity, when it last sent a heartbeat, whether the engine places ranks there (or holds it in quarantine,
 * and why), and the service types it offers.
 */
public final class HostsCommand implements CliCommand {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("hosts",
                    "Lists the service hosts in the engine's registry: id, site, ranks in use of its capacity, last"
                            + " heartbeat, state (quarantined: until when and why), services.")
            .with(EngineOptions::client)
            .flag("--json", "print the hosts as the engine's JSON array");
    private static final DateTimeFormatter UNTIL = DateTimeFormatter.ofPattern("HH:mm:ss");
    /** The longest quarantine reason shown in the table (the full one is --json's). */
    private static final int REASON_WIDTH = 60;

    @Override
    public String name() {
        return "hosts";
    }

    @Override
    public String summary() {
        return "[--engine URL] [--json]  list the engine's service hosts: ranks in use, heartbeat, quarantine";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        JsonNode hosts = EngineOptions.connect(args).get("/api/registry/hosts");
        if (args.flag("--json")) {
            out.println(Json.MAPPER.writeValueAsString(hosts));
            return 0;
        }
        if (hosts.isEmpty()) {
            out.println("no service hosts registered (start some: mpflc up --hosts N, or mpflc host --credential-file F"
                    + " on each machine; docs/deployment.md)");
            return 0;
        }
        long now = System.currentTimeMillis();
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("HOST", "SITE", "RANKS", "HEARTBEAT", "STATE", "SERVICES"));
        for (JsonNode h : hosts) {
            rows.add(List.of(h.path("hostId").asText(), h.path("site").asText(), ranks(h),
                    h.path("staticEntry").asBoolean() ? "static" : ago(now - h.path("lastHeartbeatMs").asLong()),
                    state(h), String.join(",", Json.MAPPER.convertValue(h.path("services"), String[].class))));
        }
        TextTable.print(rows, out);
        return 0;
    }

    /** {@code 2/4}: rank slots in use of the capacity; {@code +} when the host may take more (oversubscribe). */
    static String ranks(JsonNode host) {
        return host.path("ranksInUse").asInt() + "/" + host.path("capacity").asInt() + (host.path("oversubscribe").asBoolean() ? "+" : "");
    }

    /** {@code ok}, or {@code quarantined until 14:02:11: REASON} while the engine places nothing there. */
    static String state(JsonNode host) {
        JsonNode q = host.path("quarantine");
        if (!q.isObject() || !q.path("active").asBoolean()) {
            return "ok";
        }
        String until = UNTIL.format(Instant.ofEpochMilli(q.path("untilMs").asLong()).atZone(ZoneId.systemDefault()));
        String reason = q.path("reason").asText().lines().findFirst().orElse("");
        // a column, not the whole story: the reason in full is in --json (GET /api/registry/hosts)
        return "quarantined until " + until + ": " + (reason.length() > REASON_WIDTH ? reason.substring(0, REASON_WIDTH - 1) + "…" : reason);
    }

    private static String ago(long ms) {
        return Math.max(0, ms / 1000) + " s ago";
    }
}
