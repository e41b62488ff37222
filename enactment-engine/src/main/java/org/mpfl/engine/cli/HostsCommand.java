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
 * and why), and the service types it offers. On an engine with a capacity provider ({@code mpflc up --provider slurm})
 * a {@code capacity} section follows ({@code GET /api/capacity}): the provider's jobs, also those still pending whose
 * host is not in the table yet, and why no job is being submitted.
 */
public final class HostsCommand implements CliCommand {
    private static final ArgumentSpec SPEC = ArgumentSpec.of("hosts",
                    "Lists the service hosts in the engine's registry: id, site, ranks in use of its capacity, last"
                            + " heartbeat, state (quarantined: until when and why), services.")
            .with(EngineOptions::client)
            .flag("--json", "print {\"hosts\": the engine's array of hosts, \"capacity\": its capacity provider's jobs or null}");
    private static final DateTimeFormatter UNTIL = DateTimeFormatter.ofPattern("HH:mm:ss");
    /** The longest quarantine reason shown in the table (the full one is --json's). */
    private static final int REASON_WIDTH = 60;

    @Override
    public String name() {
        return "hosts";
    }

    @Override
    public String summary() {
        return "[--engine URL] [--json]  list the engine's service hosts: ranks in use, heartbeat, quarantine; a capacity provider's jobs";
    }

    @Override
    public int run(List<String> argList, PrintStream out, PrintStream err) throws Exception {
        Arguments args = SPEC.parse(argList);
        EngineClient engine = EngineOptions.connect(args);
        JsonNode hosts = engine.get("/api/registry/hosts");
        JsonNode capacity = capacity(engine);
        if (args.flag("--json")) {
            com.fasterxml.jackson.databind.node.ObjectNode o = Json.MAPPER.createObjectNode();
            o.set("hosts", hosts);
            o.set("capacity", capacity == null ? Json.MAPPER.nullNode() : capacity);
            out.println(Json.MAPPER.writeValueAsString(o));
            return 0;
        }
        if (hosts.isEmpty()) {
            out.println("no service hosts registered (start some: mpflc up --hosts N, or mpflc host --credential-file F"
                    + " on each machine; docs/deployment.md)");
            printCapacity(capacity, out);
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
        printCapacity(capacity, out);
        return 0;
    }

    /**
     * The engine's capacity provider and its jobs ({@code GET /api/capacity}), or {@code null} when it has none; also
     * {@code null} from an engine older than that route (404), whose hosts are still worth listing.
     */
    private static JsonNode capacity(EngineClient engine) throws Exception {
        JsonNode c;
        try {
            c = engine.get("/api/capacity");
        } catch (EngineClient.EngineException e) {
            if (e.status() == 404) {
                return null;
            }
            throw e;
        }
        return c == null || c.path("provider").isNull() || c.path("provider").isMissingNode() ? null : c;
    }

    /**
     * After the hosts: one line per job of the provider (id, state, node, host id, {@code releasing} while the engine
     * waits for a cancelled job to end), then why no job is being submitted, if anything holds them back.
     */
    static void printCapacity(JsonNode c, PrintStream out) {
        if (c == null) {
            return;
        }
        String kind = c.path("jobKind").asText("job");
        JsonNode limits = c.path("limits");
        out.println();
        out.println("capacity: " + kind + "s, at most " + limits.path("maxNodes").asInt() + " at once of "
                + limits.path("cpusPerNode").asInt() + " CPUs each");
        JsonNode jobs = c.path("jobs");
        if (jobs.isEmpty()) {
            out.println("  no " + kind + "s (one is submitted when a run waits for places)");
        } else {
            List<List<String>> rows = new ArrayList<>();
            rows.add(List.of("  JOB", "STATE", "NODE", "HOST"));
            for (JsonNode j : jobs) {
                String reason = j.path("reason").asText("");
                String state = j.path("state").asText() + (reason.isBlank() ? "" : " (" + reason + ")");
                String note = j.path("releasing").asBoolean() ? "releasing"
                        : j.path("joined").asBoolean() ? "joined" : "";
                rows.add(List.of("  " + (j.path("jobId").isNull() ? "(looked up by name " + j.path("jobName").asText() + ")"
                        : j.path("jobId").asText()), state, j.path("node").isNull() ? "-" : j.path("node").asText(),
                        j.path("hostId").asText() + (note.isEmpty() ? "" : "  " + note)));
            }
            TextTable.print(rows, out);
        }
        if (!c.path("startFailure").isNull() && !c.path("startFailure").isMissingNode()) {
            out.println("  start failure: " + c.path("startFailure").asText());
        }
        if (!c.path("submitError").isNull() && !c.path("submitError").isMissingNode()) {
            out.println("  submissions fail: " + c.path("submitError").asText() + " (" + c.path("failedSubmits").asInt()
                    + " in a row)");
        }
        if (!c.path("schedulerError").isNull() && !c.path("schedulerError").isMissingNode()) {
            out.println("  scheduler: " + c.path("schedulerError").asText());
        }
        if (c.path("nextSubmitMs").isNumber()) {
            long next = c.path("nextSubmitMs").asLong();
            // in the engine's clock: the wait as the engine saw it when it took the view, not this machine's clock
            long in = Math.max(0, next - c.path("asOfMs").asLong());
            out.println("  next submission: not before " + UNTIL.format(Instant.ofEpochMilli(next).atZone(ZoneId.systemDefault()))
                    + " (in " + (in + 999) / 1000 + " s)");
        }
    }

    /** {@code 2/4}: rank slots in use of the capacity; {@code +} when the host may take more (oversubscribe). */
    static String ranks(JsonNode host) {
        return host.path("ranksInUse").asInt() + "/" + host.path("capacity").asInt() + (host.path("oversubscribe").asBoolean() ? "+" : "");
    }

    /**
     * {@code ok}, {@code quarantined until 14:02:11: REASON} while the engine places nothing there, or {@code kept out:
     * REASON} while it cannot reach a healthy host through its relay (lost, never announced, not registered again yet).
     */
    static String state(JsonNode host) {
        JsonNode q = host.path("quarantine");
        if (!q.isObject() || !q.path("active").asBoolean()) {
            String unreachable = host.path("unreachable").asText("");
            // the reason without its advice in parentheses (that is in --json): the relay and its address are the point
            int advice = unreachable.indexOf(" (");
            return unreachable.isEmpty() ? "ok" : "kept out: " + (advice > 0 ? unreachable.substring(0, advice) : cut(unreachable));
        }
        String until = UNTIL.format(Instant.ofEpochMilli(q.path("untilMs").asLong()).atZone(ZoneId.systemDefault()));
        String reason = q.path("reason").asText().lines().findFirst().orElse("");
        // a column, not the whole story: the reason in full is in --json (GET /api/registry/hosts)
        return "quarantined until " + until + ": " + cut(reason);
    }

    private static String cut(String reason) {
        return reason.length() > REASON_WIDTH ? reason.substring(0, REASON_WIDTH - 1) + "…" : reason;
    }

    private static String ago(long ms) {
        return Math.max(0, ms / 1000) + " s ago";
    }
}
