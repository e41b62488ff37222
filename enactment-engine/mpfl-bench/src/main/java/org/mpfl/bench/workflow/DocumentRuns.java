package org.mpfl.bench.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.engine.cli.EngineClient;
import org.mpfl.engine.workflow.Compilers;

/**
 * Runs MPFL documents through an engine's REST API the way {@code mpflc run} does (compile here,
 * start with plan, parameters and archives, follow until the run ends) and hands back the run's
 * detail; bounded by a timeout, after which the run is cancelled.
 */
final class DocumentRuns {
    /**
     * Polling for the end of a run starts at {@code FIRST_POLL_MS} and backs off to {@code MAX_POLL_MS}: the
     * figures come from the engine's own clock and the document's outputs, not from the poll, and polling
     * every 25 ms kept the engine serialising run records (and compiling its REST path) on the cores a
     * benchmark's ranks were measured on.
     */
    private static final long FIRST_POLL_MS = 5;
    private static final long MAX_POLL_MS = 250;

    private DocumentRuns() {
    }

    /**
     * An ended run and the client's own time from sending the start request ({@code sentAtMs}, wall
     * clock) to reading the run's final state (compilation before the request excluded; resolution:
     * the polling interval).
     */
    record Ended(JsonNode run, double clientMs, long sentAtMs) {
    }

    /** Compiles {@code document} with {@code params} (values as typed on a command line), runs it, returns the ended run. */
    static JsonNode run(EngineClient client, Path document, Map<String, Object> params, Duration timeout)
            throws IOException, InterruptedException, WorkflowCompiler.CompileException {
        return run(client, document, params, timeout, FIRST_POLL_MS, MAX_POLL_MS).run();
    }

    /** As {@link #run(EngineClient, Path, Map, Duration)}, polling the run every {@code pollMs}, and timed from the start request. */
    static Ended run(EngineClient client, Path document, Map<String, Object> params, Duration timeout, long pollMs)
            throws IOException, InterruptedException, WorkflowCompiler.CompileException {
        return run(client, document, params, timeout, pollMs, pollMs);
    }

    private static Ended run(EngineClient client, Path document, Map<String, Object> params, Duration timeout, long firstPollMs,
                             long maxPollMs) throws IOException, InterruptedException, WorkflowCompiler.CompileException {
        String text = Files.readString(document, StandardCharsets.UTF_8);
        WorkflowCompiler.Compiled c = Compilers.forFile(document).compile(document.toString(), text, params);
        Map<String, Object> start = new LinkedHashMap<>();
        start.put("plan", c.plan());
        start.put("params", c.params());
        List<Map<String, String>> archives = new ArrayList<>();
        c.archives().forEach((service, bytes) ->
                archives.add(Map.of("service", service, "archive", Base64.getEncoder().encodeToString(bytes))));
        if (!archives.isEmpty()) {
            start.put("archives", archives);
        }
        long sentAtMs = System.currentTimeMillis();
        long t0 = System.nanoTime();
        String id = client.post("/api/runs", start).get("id").asText();
        long deadline = t0 + timeout.toNanos();
        long pollMs = firstPollMs;
        for (;;) {
            JsonNode run = client.get("/api/runs/" + id);
            String state = run.path("state").asText();
            if (state.equals("SUCCEEDED") || state.equals("FAILED") || state.equals("CANCELLED")) {
                return new Ended(run, (System.nanoTime() - t0) / 1e6, sentAtMs);
            }
            if (System.nanoTime() > deadline) {
                client.post("/api/runs/" + id + "/cancel", null);
                StringBuilder ranks = new StringBuilder();
                for (JsonNode r : run.path("ranks")) {
                    ranks.append(' ').append(r.path("rank").asText()).append('=').append(r.path("state").asText());
                }
                throw new IOException("run " + id + " of " + document.getFileName() + " did not end within "
                        + timeout.toSeconds() + " s (cancelled); it was " + state + ", ranks:" + ranks);
            }
            Thread.sleep(pollMs);
            pollMs = Math.min(maxPollMs, pollMs * 3 / 2 + 1);
        }
    }

    /** The run's error as one line, for a failed run. */
    static String describeFailure(JsonNode run) {
        JsonNode e = run.path("error");
        String where = e.hasNonNull("rank") ? "rank " + e.get("rank").asInt() + (e.hasNonNull("location") ? " at " + e.get("location").asText() : "") + ": " : "";
        return "run " + run.path("id").asText() + " " + run.path("state").asText() + ": " + where + e.path("message").asText("");
    }

    /** Output {@code name} of world rank {@code rank}, or a missing node. */
    static JsonNode output(JsonNode run, String name, int rank) {
        return run.path("outputs").path(name).path(Integer.toString(rank));
    }
}
