package org.mpfl.bench.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.mpfl.ir.spi.WorkflowCompiler;
import org.mpfl.engine.cli.EngineClient;
import org.mpfl.ir.files.FileTrees;

/**
 * The engine's start-up time and fixed overhead: an embedded engine with {@code hosts} local
 * service-host processes ({@link BenchCluster}), started once; then for every rank count p a
 * document whose p ranks do nothing but one barrier ({@link #barrierDocument}), and at the end an
 * empty workflow (one rank, no activities, {@link #EMPTY_DOCUMENT}) — the overhead of a run.
 *
 * <p>Each document is run once "first" — its generated service is new to the hosts (one service type
 * per rank count), so that run includes compiling nothing but deploying the archive to every host
 * and the hosts loading the service — then {@code repeat} times "warm" (the service is there), of
 * which the medians are reported. Before all of them one untimed run of a one-rank barrier document
 * with its own service warms up the engine itself (JIT of the REST, placement and fan-out paths), so
 * that the first rank count's first run is not also the engine's first run.
 *
 * <p>Per run: {@code startupMs} as the engine records it (from the start of placement, deployment
 * included, until every rank accepted {@code run}), and the client's end-to-end time from sending
 * the REST start request to reading SUCCEEDED (polled every {@value #POLL_MS} ms).
 */
final class StartupBenchmark {
    /** One document's figures (ms): first run and medians of the warm runs. */
    record Result(int ranks, double firstStartupMs, double startupMs, double firstEndToEndMs, double endToEndMs) {
    }

    /** The rank counts' results and the empty workflow's. */
    record Results(List<Result> results, Result empty) {
    }

    /** Polling interval of the client while a run is under way: the resolution of the end-to-end time. */
    static final long POLL_MS = 5;
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration STARTUP_RECORD_WAIT = Duration.ofSeconds(60);

    /** The empty workflow: one rank that does nothing. */
    static final String EMPTY_DOCUMENT = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- mpflc bench startup: the empty workflow (one rank, no activities), the overhead of a run -->
            <workflow xmlns="urn:mpfl:1.0" name="startup-empty" version="1">
              <process name="nothing" ranks="1" service="StartupEmpty"/>
            </workflow>
            """;

    /** p ranks ({@code ranks} parameter) that do nothing but one barrier, as service type {@code service}. */
    static String barrierDocument(String service) {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- mpflc bench startup: every rank does nothing but one barrier -->
                <workflow xmlns="urn:mpfl:1.0" name="startup" version="1">
                  <param name="ranks" type="int" default="4"/>
                  <process name="rank" ranks="ranks" service="%s">
                    <barrier/>
                  </process>
                </workflow>
                """.formatted(service);
    }

    private final List<Integer> ranks;
    private final int repeat;
    private final int hosts;
    private final int capacity;
    private final List<String> hostJvmArgs;
    private final PrintStream progress;

    /** @param capacity ranks per host before the placement moves on (0: the hosts' default, their core count) */
    StartupBenchmark(List<Integer> ranks, int repeat, int hosts, int capacity, List<String> hostJvmArgs, PrintStream progress) {
        this.ranks = ranks;
        this.repeat = repeat;
        this.hosts = hosts;
        this.capacity = capacity;
        this.hostJvmArgs = hostJvmArgs;
        this.progress = progress;
    }

    Results run() throws Exception {
        Path work = Files.createTempDirectory("mpfl-bench-startup-");
        try {
            progress.println("[bench startup] starting an engine and " + hosts + " service hosts " + BenchCommands.load());
            try (BenchCluster cluster = BenchCluster.start(work.resolve("engine"), hosts, capacity, hostJvmArgs)) {
                EngineClient client = cluster.client();
                progress.println("[bench startup] warming up the engine (one untimed 1-rank run) " + BenchCommands.load());
                once(client, write(work, "warmup.mpfl.xml", barrierDocument("StartupWarmup")), ranksParam(1), "warm-up");
                List<Result> results = new ArrayList<>();
                for (int p : ranks) {
                    Path doc = write(work, "startup-" + p + ".mpfl.xml", barrierDocument("Startup" + p));
                    results.add(measure(client, doc, p, ranksParam(p), "p=" + p));
                }
                Path empty = write(work, "empty.mpfl.xml", EMPTY_DOCUMENT);
                Result e = measure(client, empty, 1, Map.of(), "empty workflow");
                return new Results(results, e);
            }
        } finally {
            FileTrees.deleteQuietly(work);
        }
    }

    private static Path write(Path dir, String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text, StandardCharsets.UTF_8);
        return f;
    }

    private static Map<String, Object> ranksParam(int p) {
        return Map.of("ranks", Integer.toString(p));
    }

    private Result measure(EngineClient client, Path doc, int p, Map<String, Object> params, String what)
            throws IOException, InterruptedException, WorkflowCompiler.CompileException {
        progress.printf(Locale.ROOT, "[bench startup] %s: first run (deploys its service) %s%n", what, BenchCommands.load());
        double[] first = once(client, doc, params, what);
        progress.printf(Locale.ROOT, "[bench startup] %s: first run: start-up %.0f ms, end to end %.0f ms; %d warm runs%n",
                what, first[0], first[1], repeat);
        double[][] t = new double[6][repeat];
        for (int i = 0; i < repeat; i++) {
            double[] one = once(client, doc, params, what);
            for (int k = 0; k < t.length; k++) {
                t[k][i] = one[k];
            }
        }
        Result r = new Result(p, first[0], median(t[0]), first[1], median(t[1]));
        progress.printf(Locale.ROOT, "[bench startup] %s: warm median: start-up %.0f ms, end to end %.0f ms %s%n",
                what, r.startupMs(), r.endToEndMs(), BenchCommands.load());
        progress.printf(Locale.ROOT, "[bench startup] %s: where the end-to-end time goes (warm medians, ms): start request until"
                + " the engine accepted the run %.0f, accepted until placement began %.0f, start-up %.0f, all ranks running until"
                + " SUCCEEDED %.0f, SUCCEEDED until the client saw it %.0f%n", what, median(t[2]), median(t[3]), median(t[0]),
                median(t[4]), median(t[5]));
        return r;
    }

    /**
     * One run of {@code doc}: {engine's startupMs, client's end-to-end ms, then the end-to-end time's
     * parts from the engine's timestamps (same clock): request → run created, created → placement
     * began, all ranks running → ended, ended → seen by the client}.
     */
    private static double[] once(EngineClient client, Path doc, Map<String, Object> params, String what)
            throws IOException, InterruptedException, WorkflowCompiler.CompileException {
        DocumentRuns.Ended ended = DocumentRuns.run(client, doc, params, RUN_TIMEOUT, POLL_MS);
        JsonNode run = ended.run();
        if (!run.path("state").asText().equals("SUCCEEDED")) {
            throw new IOException(what + ": " + DocumentRuns.describeFailure(run));
        }
        run = withStartup(client, run, what);
        JsonNode startup = run.path("startupMs");
        long created = run.path("createdMs").asLong();
        long started = run.path("startedMs").asLong();
        long endedMs = run.path("endedMs").asLong();
        long allRunning = started + startup.asLong();
        return new double[] {startup.asDouble(), ended.clientMs(), created - ended.sentAtMs(), started - created,
            endedMs - allRunning, ended.sentAtMs() + ended.clientMs() - endedMs};
    }

    /**
     * The ended {@code run} once its {@code startupMs} is recorded: ranks can all end before the
     * engine's fan-out has seen the last acceptance, and the run is then SUCCEEDED a moment before its
     * start-up time is recorded; this reads it again (bounded) until the fan-out is back.
     */
    static JsonNode withStartup(EngineClient client, JsonNode run, String what) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + STARTUP_RECORD_WAIT.toNanos();
        while (!run.path("startupMs").isNumber() && System.nanoTime() < deadline) {
            Thread.sleep(POLL_MS);
            run = client.get("/api/runs/" + run.path("id").asText());
        }
        if (!run.path("startupMs").isNumber()) {
            throw new IOException(what + ": run " + run.path("id").asText() + " has no startupMs "
                    + STARTUP_RECORD_WAIT.toSeconds() + " s after it succeeded");
        }
        return run;
    }

    /** The median (mean of the middle two for an even count); NaN for none. */
    static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] v = values.clone();
        Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }
}
